// Crashes: SIGKILL the worker at random moments during mixed load (ingest from several clients,
// queued compression jobs, a snapshot in progress, an import, manual saves), 20 rounds on one
// data dir. After each restart every acknowledged write is present, nothing is duplicated, and
// the queue drains. Then a SIGKILL at every step of a graceful stop and of the next start's
// catch-up (worker/store/faultPoint.ts holds the worker there). Also a client killed mid-request
// leaves the worker healthy.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { copyDataDir, SHORT_LIVED_WORKER_ARGS, startShortLivedWorker, tempDir, until, workerArgv, type RunningWorker } from '../helpers/worker';
import { packWhole } from '../helpers/packedWhole';
import { faultCase } from './record';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 20);

async function allObservations(w: RunningWorker, project: string): Promise<{ title: string; narrative: string | null }[]> {
  const out: { title: string; narrative: string | null }[] = [];
  for (let offset = 0; ; offset += 1000) {
    const r = await w.req('GET', `/api/observations?project=${project}&limit=1000&offset=${offset}`);
    out.push(...r.body.items);
    if (r.body.items.length < 1000) return out;
  }
}

function importDoc(round: number) {
  const t = 1_700_000_000_000 + round * 1000;
  return {
    format: 'claude-mem-vscode/export',
    version: 1,
    sessions: [
      {
        platform: 'import', contentSessionId: `imp-${round}`, project: 'crash', cwd: null, status: 'completed', promptCounter: 1,
        startedAt: t, updatedAt: t, completedAt: t, completionReason: 'exit',
        prompts: [{ promptNumber: 1, text: `imported prompt ${round}`, createdAt: t }],
        observations: Array.from({ length: 20 }, (_, i) => ({
          type: 'discovery', title: `imported ${round}/${i}`, subtitle: null, facts: [], narrative: null, concepts: [], filesRead: [], filesModified: [],
          toolName: null, promptNumber: 1, contentHash: `imp-${round}-${i}`, source: 'import', inputTokens: 0, outputTokens: 0, discoveryTokens: 0, createdAt: t + i,
        })),
        summaries: [],
      },
    ],
  };
}

it(`SIGKILL at random moments, ${ROUNDS} rounds of mixed load`, { timeout: 15 * 60_000 }, async () => {
  await faultCase(__filename, 'crashes', `SIGKILL x${ROUNDS} during mixed load`, async () => {
    const dataDir = tempDir();
    // A small journal threshold: snapshots run often, so kills land during them too.
    const env = { CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES: String(128 * 1024) };
    const ackedObs = new Set<string>();
    const ackedSaves = new Set<string>();
    const ackedImports = new Set<number>();
    let seq = 0;
    let totalAcked = 0;
    const recoveryMs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const t0 = performance.now();
      const w = await startShortLivedWorker({ dataDir, env });
      recoveryMs.push(performance.now() - t0);
      if (round > 0) {
        // Verify everything acknowledged so far survived the previous kill.
        await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, 30_000, 'queue to drain after restart');
        const obs = await allObservations(w, 'crash');
        const titles = obs.map((o) => o.title);
        assert.equal(new Set(titles).size, titles.length, `round ${round}: duplicated observations`);
        const have = new Set(titles);
        const narratives = new Set(obs.map((o) => o.narrative));
        const lostObs = [...ackedObs].filter((k) => !have.has(`Read ${k}.ts`));
        const lostSaves = [...ackedSaves].filter((k) => !narratives.has(k));
        const lostImports = [...ackedImports].filter((r) => !have.has(`imported ${r}/19`));
        assert.deepEqual([lostObs, lostSaves, lostImports], [[], [], []], `round ${round}: acknowledged writes lost`);
      }
      let stop = false;
      const ingest = async (client: number) => {
        while (!stop) {
          const k = `r${round}c${client}n${seq++}`;
          try {
            const r = await w.req('POST', '/api/sessions/observations', { contentSessionId: `crash-${client}`, project: 'crash', tool_name: 'Read', tool_input: { file_path: `${k}.ts` }, tool_response: 'x', tool_use_id: k });
            if (r.status === 202) ackedObs.add(k);
          } catch {
            return;
          }
        }
      };
      const other = async () => {
        try {
          const s = `save ${round}`;
          if ((await w.req('POST', '/api/memory/save', { text: s, project: 'crash' })).status === 201) ackedSaves.add(s);
          w.req('POST', '/api/admin/snapshot', {}).catch(() => undefined);
          if ((await w.req('POST', '/api/import', importDoc(round))).status === 200) ackedImports.add(round);
          await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'crash-0', project: 'crash', last_assistant_message: `round ${round}` });
        } catch {
          /* killed */
        }
      };
      const clients = [0, 1, 2, 3].map(ingest);
      void other();
      await new Promise((r) => setTimeout(r, 150 + Math.random() * 900));
      await w.kill('SIGKILL');
      stop = true;
      await Promise.all(clients);
      totalAcked = ackedObs.size + ackedSaves.size + ackedImports.size;
    }
    // Final check.
    const w = await startShortLivedWorker({ dataDir, env });
    try {
      await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, 30_000, 'final drain');
      const obs = await allObservations(w, 'crash');
      const have = new Set(obs.map((o) => o.title));
      assert.equal(have.size, obs.length, 'no duplicates');
      const lost = [...ackedObs].filter((k) => !have.has(`Read ${k}.ts`));
      assert.deepEqual(lost, []);
      const p = [...recoveryMs].sort((a, b) => a - b);
      return `${totalAcked} acknowledged writes (${ackedObs.size} observations, ${ackedSaves.size} saves, ${ackedImports.size} imports) over ${ROUNDS} kills: 0 lost, 0 duplicated; restart to listening p50 ${p[Math.floor(p.length / 2)].toFixed(0)} ms, max ${p[p.length - 1].toFixed(0)} ms`;
    } finally {
      await w.stop();
    }
  });
});

// ---- a SIGKILL at every step of the stop and of the next start -------------------------------------

const WORDS = ['journal', 'snapshot', 'delta', 'parser', 'router', 'cache', 'token', 'schema', 'index', 'replay', 'chunk', 'verify'];
/** An import of n observations with long narratives (about 1.7 KB each): more journal than a stop leaves to replay. */
function bulkDoc(tag: string, n: number) {
  const t = 1_710_000_000_000;
  const narrative = (i: number) => Array.from({ length: 240 }, (_, k) => `${WORDS[(i * 7 + k * 13) % WORDS.length]}${(i + k) % 97}`).join(' ');
  return {
    format: 'claude-mem-vscode/export',
    version: 1,
    sessions: [
      {
        platform: 'import', contentSessionId: `bulk-${tag}`, project: 'steps', cwd: null, status: 'completed', promptCounter: 1,
        startedAt: t, updatedAt: t, completedAt: t, completionReason: 'exit',
        prompts: [{ promptNumber: 1, text: `bulk ${tag}`, createdAt: t }],
        observations: Array.from({ length: n }, (_, i) => ({
          type: 'discovery', title: `bulk ${tag}/${i}`, subtitle: null, facts: [], narrative: narrative(i), concepts: [], filesRead: [], filesModified: [],
          toolName: null, promptNumber: 1, contentHash: `bulk-${tag}-${i}`, source: 'import', inputTokens: 0, outputTokens: 0, discoveryTokens: 0, createdAt: t + i,
        })),
        summaries: [],
      },
    ],
  };
}

/** Every acknowledged write of a data dir, checked after each restart. */
class Acked {
  saves: string[] = [];
  imports = new Map<string, number>();
  /** An import in flight when the worker was killed: none, some or all of it may be there (never twice). */
  unanswered = new Map<string, number>();
  /** The same writes, for a copy of the data dir they were made in. */
  copy(): Acked {
    const c = new Acked();
    c.saves = [...this.saves];
    c.imports = new Map(this.imports);
    c.unanswered = new Map(this.unanswered);
    return c;
  }
  async save(w: RunningWorker, text: string): Promise<void> {
    const r = await w.req('POST', '/api/memory/save', { text, project: 'steps' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    this.saves.push(text);
  }
  async bulk(w: RunningWorker, tag: string, n: number): Promise<void> {
    const r = await w.req('POST', '/api/import', bulkDoc(tag, n));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    this.imports.set(tag, n);
  }
  async check(w: RunningWorker, what: string): Promise<number> {
    const ready = await w.req('GET', '/api/readiness');
    assert.equal(ready.body.ready, true, `${what}: not ready: ${JSON.stringify(ready.body)}`);
    const obs: { title: string; narrative: string | null }[] = [];
    for (let offset = 0; ; offset += 1000) {
      const r = await w.req('GET', `/api/observations?project=steps&limit=1000&offset=${offset}`);
      obs.push(...r.body.items);
      if (r.body.items.length < 1000) break;
    }
    const narratives = new Set(obs.map((o) => o.narrative));
    const titles = new Set(obs.map((o) => o.title));
    assert.deepEqual(this.saves.filter((t) => !narratives.has(t)), [], `${what}: acknowledged saves lost`);
    for (const [tag, n] of this.imports) {
      const lost = Array.from({ length: n }, (_, i) => `bulk ${tag}/${i}`).filter((t) => !titles.has(t));
      assert.deepEqual(lost.slice(0, 5), [], `${what}: ${lost.length} imported observations of ${tag} lost`);
    }
    const maybe = [...this.unanswered].reduce((sum, [tag, n]) => sum + Array.from({ length: n }, (_, i) => `bulk ${tag}/${i}`).filter((t) => titles.has(t)).length, 0);
    const bulkTitles = obs.map((o) => o.title).filter((t) => t.startsWith('bulk '));
    assert.equal(new Set(bulkTitles).size, bulkTitles.length, `${what}: duplicated imported observations`);
    assert.equal(obs.length, this.saves.length + [...this.imports.values()].reduce((a, b) => a + b, 0) + maybe, `${what}: duplicated or extra observations`);
    return obs.length;
  }
}

/**
 * Waits until the worker says it reached `point` (it is held there), then SIGKILLs it. It is killed
 * also when it does not get there in 60 s: left running, its pipes would keep the test file's
 * process alive after the failure.
 */
async function killAt(proc: ChildProcess, output: () => string, point: string): Promise<void> {
  try {
    const reached = () => output().includes(`fault point ${point}\n`);
    await until(() => reached() || proc.exitCode !== null, 60_000, `the worker to reach ${point}`).catch(() => undefined);
    assert.ok(reached(), `the worker ${proc.exitCode === null ? 'did not reach' : `exited (${proc.exitCode}) without reaching`} ${point} in 60 s:\n${output().slice(-2000)}`);
  } finally {
    proc.kill('SIGKILL');
    await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(undefined) : proc.once('exit', r)));
  }
}

/** A worker started with fault points set, held at `point` before it may listen (start:replayed), then killed. */
async function startAndKillAt(dataDir: string, env: Record<string, string>, pause: string, point: string): Promise<void> {
  const proc = spawn(process.execPath, workerArgv(SHORT_LIVED_WORKER_ARGS), {
    env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', ANTHROPIC_API_KEY: '', ...env, CLAUDE_MEM_FAULT_PAUSE: pause },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  await killAt(proc, () => out, point);
}

// No index merge: its background writes would land after the checkpoints a step asks for, so a
// pause meant for the stop's checkpoint would stop a catch-up checkpoint at the next start instead.
const STEP_ENV = { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_DELTA_MIN_BYTES: '0', CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES: String(256 << 20), CLAUDE_MEM_INDEX_MERGE: 'off' };
/** No delta while an import goes on: its whole journal is left to the stop, and then to the next start's catch-up. */
const STOP_STEP_ENV = { ...STEP_ENV, CLAUDE_MEM_BULK_DELTA_BYTES: '0' };

interface Step {
  name: string;
  /** CLAUDE_MEM_FAULT_PAUSE for the worker that is killed, and the point it is killed at. */
  pause: string;
  at: string;
  /** stop: killed during its graceful stop (after these writes); start: during the next start's catch-up. */
  during: 'stop' | 'start';
  /** Journal left since the last checkpoint: a few saves, or a bulk import too (the stop writes no checkpoint for either). */
  tail: 'small' | 'bulk';
  /** A checkpoint requested just before the stop, held this long in its write so the stop finds it under way. */
  checkpointUnderWay?: boolean;
}

const STEPS: Step[] = [
  { name: 'stop: before anything', pause: 'stop:begin', at: 'stop:begin', during: 'stop', tail: 'small' },
  { name: 'stop: after the journal fsync', pause: 'stop:journal-synced', at: 'stop:journal-synced', during: 'stop', tail: 'small' },
  { name: 'stop: a checkpoint under way being stopped', pause: 'write:before-sync=1500,stop:stopping-background-work', at: 'stop:stopping-background-work', during: 'stop', tail: 'small', checkpointUnderWay: true },
  { name: 'stop: before anything (bulk journal)', pause: 'stop:begin', at: 'stop:begin', during: 'stop', tail: 'bulk' },
  { name: 'stop: after the journal fsync (bulk journal)', pause: 'stop:journal-synced', at: 'stop:journal-synced', during: 'stop', tail: 'bulk' },
  { name: 'next start: journal replayed, not listening', pause: 'start:replayed', at: 'start:replayed', during: 'start', tail: 'small' },
  { name: 'next start: catch-up checkpoint written, not synced', pause: 'write:before-sync', at: 'write:before-sync', during: 'start', tail: 'small' },
  { name: 'next start: catch-up checkpoint renamed', pause: 'write:renamed', at: 'write:renamed', during: 'start', tail: 'small' },
  { name: 'next start: catch-up checkpoint verified, nothing pruned', pause: 'checkpoint:before-prune', at: 'checkpoint:before-prune', during: 'start', tail: 'small' },
  { name: 'next start (bulk journal): catch-up delta written, not synced', pause: 'write:before-sync', at: 'write:before-sync', during: 'start', tail: 'bulk' },
  { name: 'next start (bulk journal): catch-up delta renamed', pause: 'write:renamed', at: 'write:renamed', during: 'start', tail: 'bulk' },
  { name: 'next start (bulk journal): catch-up delta verified, nothing pruned', pause: 'checkpoint:before-prune', at: 'checkpoint:before-prune', during: 'start', tail: 'bulk' },
];

/**
 * The store every step starts from, built once and copied for each step: a snapshot and a delta
 * behind it, stopped with nothing since its last checkpoint (so a start has no catch-up checkpoint to
 * write). With `tail`, a few saves (and with 'bulk' an import) after that checkpoint before the
 * stop, which writes no checkpoint for them: the next start replays them.
 */
async function checkpointedStore(tail: 'none' | 'small' | 'bulk'): Promise<{ dataDir: string; acked: Acked }> {
  const dataDir = tempDir();
  const acked = new Acked();
  const w = await startShortLivedWorker({ dataDir, env: STOP_STEP_ENV });
  await acked.bulk(w, 'base', 300);
  assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
  for (let i = 0; i < 5; i++) await acked.save(w, `before ${i}`);
  assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
  if (tail !== 'none') for (let i = 0; i < 5; i++) await acked.save(w, `tail ${i}`);
  if (tail === 'bulk') await acked.bulk(w, 'tail', 1500);
  await w.stop();
  return { dataDir, acked };
}

it(`SIGKILL at every step of a graceful stop and of the next start (${STEPS.length} steps)`, { timeout: 20 * 60_000 }, async () => {
  await faultCase(__filename, 'crashes', 'SIGKILL at every step of the stop and the next start', async () => {
    let total = 0;
    let underWay = 0;
    const stopFrom = await checkpointedStore('none');
    const startFrom = { small: await checkpointedStore('small'), bulk: await checkpointedStore('bulk') };
    for (const step of STEPS) {
      const from = step.during === 'stop' ? stopFrom : startFrom[step.tail];
      const dataDir = copyDataDir(from.dataDir);
      const acked = from.acked.copy();
      if (step.during === 'stop') {
        const w = await startShortLivedWorker({ dataDir, env: { ...STOP_STEP_ENV, CLAUDE_MEM_FAULT_PAUSE: step.pause } });
        // Writes since the last checkpoint: a few saves, and a bulk import for the bulk cases.
        for (let i = 0; i < 5; i++) await acked.save(w, `${step.name}: tail ${i}`);
        if (step.tail === 'bulk') await acked.bulk(w, 'tail', 1500);
        if (step.checkpointUnderWay) {
          void w.req('POST', '/api/admin/snapshot', {}).catch(() => undefined);
          await until(() => w.stdout().includes('fault point write:before-sync\n'), 30_000, 'the checkpoint to be writing');
        }
        w.proc.kill('SIGTERM');
        await killAt(w.proc, w.stdout, step.at);
        if (step.checkpointUnderWay && fs.readdirSync(path.join(dataDir, 'db')).some((n) => n.includes('.tmp-'))) underWay++;
      } else {
        await startAndKillAt(dataDir, STOP_STEP_ENV, step.pause, step.at);
      }
      // The next start has every acknowledged write, takes more, and a clean stop and start keep them.
      let w = await startShortLivedWorker({ dataDir, env: STOP_STEP_ENV });
      try {
        await acked.check(w, `${step.name}, restarted`);
        await acked.save(w, `${step.name}: after`);
        await w.stop();
        w = await startShortLivedWorker({ dataDir, env: STOP_STEP_ENV });
        total += await acked.check(w, `${step.name}, after one more stop`);
      } finally {
        await w.stop();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    for (const from of [stopFrom, startFrom.small, startFrom.bulk]) fs.rmSync(from.dataDir, { recursive: true, force: true });
    return `${STEPS.length} steps (${STEPS.map((s) => s.at).join(', ')}), each killed there: every acknowledged write back (${total} observations checked after the restarts), none duplicated, ready${underWay ? '; a checkpoint was under way (its temp file on disk) when the stop was killed' : ''}`;
  });
});

/** Three steps of a data dir's first run, where the worker now serves it through the page cache from the start. */
const FIRST_RUN_STEPS = [
  { name: 'first start: snapshot of the journals written, not listening', at: 'start:first-snapshot', pause: 'start:first-snapshot' },
  // The first write is the first start's snapshot; the second, the first checkpoint during the imports.
  { name: 'fresh dir: a bulk delta being written during an import', at: 'write:before-sync', pause: 'write:before-sync@2' },
  { name: 'fresh dir: stop right after an import, its delta under way being stopped', at: 'stop:stopping-background-work', pause: 'stop:stopping-background-work' },
] as const;

it(`SIGKILL at every step of a data dir's first run (${FIRST_RUN_STEPS.length} steps)`, { timeout: 10 * 60_000 }, async () => {
  await faultCase(__filename, 'crashes', "SIGKILL at every step of a data dir's first run", async () => {
    let total = 0;
    for (const step of FIRST_RUN_STEPS) {
      const dataDir = tempDir();
      const acked = new Acked();
      if (step.at === 'start:first-snapshot') {
        // Journals and no snapshot (written with the page cache off, stopped before any checkpoint).
        const w = await startShortLivedWorker({ dataDir, env: { ...STEP_ENV, CLAUDE_MEM_PAGE_CACHE_MB: '0' } });
        for (let i = 0; i < 5; i++) await acked.save(w, `${step.name}: ${i}`);
        await w.stop();
        assert.ok(!fs.readdirSync(path.join(dataDir, 'db')).some((n) => n.startsWith('snapshot-')), 'journals only');
        await startAndKillAt(dataDir, STEP_ENV, step.at, step.at);
      } else {
        const w = await startShortLivedWorker({ dataDir, env: { ...STEP_ENV, CLAUDE_MEM_FAULT_PAUSE: step.pause } });
        assert.ok(fs.readdirSync(path.join(dataDir, 'db')).some((n) => n.startsWith('snapshot-')), 'the first start wrote a snapshot');
        await acked.save(w, `${step.name}: first`);
        if (step.at === 'write:before-sync') {
          // Imports until the first bulk delta holds the worker in its write; the import then in flight is not acknowledged
          // (its answer never comes, so each import waits for its answer or the pause, whichever is first).
          const paused = until(() => w.stdout().includes(`fault point ${step.at}\n`), 300_000, 'the bulk delta').then(
            () => undefined,
            () => undefined,
          );
          for (let i = 0; !w.stdout().includes(`fault point ${step.at}\n`) && i < 20; i++) {
            acked.unanswered.set(`b${i}`, 1500);
            const r = await Promise.race([w.req('POST', '/api/import', bulkDoc(`b${i}`, 1500)).catch(() => undefined), paused]);
            if (r?.status === 200) {
              acked.unanswered.delete(`b${i}`);
              acked.imports.set(`b${i}`, 1500);
            }
          }
          await killAt(w.proc, w.stdout, step.at);
        } else {
          for (let i = 0; i < 2; i++) await acked.bulk(w, `b${i}`, 1500);
          w.proc.kill('SIGTERM');
          await killAt(w.proc, w.stdout, step.at);
        }
      }
      let w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
      try {
        await acked.check(w, `${step.name}, restarted`);
        await acked.save(w, `${step.name}: after`);
        await w.stop();
        w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
        total += await acked.check(w, `${step.name}, after one more stop`);
      } finally {
        await w.stop();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    return `${FIRST_RUN_STEPS.length} steps (${FIRST_RUN_STEPS.map((s) => s.at).join(', ')}), each killed there: every acknowledged write back (${total} observations checked after the restarts), none duplicated, ready`;
  });
});

/**
 * The steps of compressing the journal segments a checkpoint covers (worker/store/coldJournal.ts),
 * which runs after each checkpoint: its .logz written but not synced, renamed but the directory not
 * synced, and read back but the .log not yet removed.
 */
const COLD_JOURNAL_STEPS = [
  { name: 'covered segment compressed, not synced', at: 'cold-journal:before-sync' },
  { name: 'covered segment compressed, renamed, directory not synced', at: 'cold-journal:renamed' },
  { name: 'covered segment compressed and read back, its .log not removed', at: 'cold-journal:verified' },
] as const;

it(`SIGKILL at every step of compressing the journal a checkpoint covers (${COLD_JOURNAL_STEPS.length} steps)`, { timeout: 10 * 60_000 }, async () => {
  await faultCase(__filename, 'crashes', 'SIGKILL at every step of compressing covered journal segments', async () => {
    let total = 0;
    const seen: string[] = [];
    for (const step of COLD_JOURNAL_STEPS) {
      const dataDir = tempDir();
      const acked = new Acked();
      let w = await startShortLivedWorker({ dataDir, env: { ...STEP_ENV, CLAUDE_MEM_FAULT_PAUSE: step.at } });
      await acked.bulk(w, 'base', 300);
      for (let i = 0; i < 5; i++) await acked.save(w, `${step.name}: before ${i}`);
      // The checkpoint covers every segment before it: their compression starts right after it.
      assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
      await killAt(w.proc, w.stdout, step.at);
      const db = path.join(dataDir, 'db');
      const files = fs.readdirSync(db);
      seen.push(`${step.at}: ${files.filter((n) => /\.logz?$|\.tmp-/.test(n) && !/\.log$/.test(n)).join(' ') || 'no .logz yet'}`);
      if (step.at === 'cold-journal:verified') assert.ok(files.some((n) => n.endsWith('.logz') && files.includes(n.slice(0, -1))), `both forms of a segment on disk: ${files.join(' ')}`);
      w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
      try {
        await acked.check(w, `${step.name}, restarted`);
        await acked.save(w, `${step.name}: after`);
        // Another checkpoint finishes the compression the kill cut short.
        assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
        await until(() => fs.readdirSync(db).some((n) => n.endsWith('.logz')) && !fs.readdirSync(db).some((n) => n.includes('.tmp-')), 20_000, 'the covered segments compressed');
        await w.stop();
        // The newest checkpoint damaged: the start falls back to the older files and replays the compressed segments.
        const newest = fs.readdirSync(db).filter((n) => /^(snapshot|delta)-\d+\.db$/.test(n)).sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0])).pop()!;
        const b = fs.readFileSync(path.join(db, newest));
        for (let i = b.length >> 1; i < (b.length >> 1) + 16; i++) b[i] ^= 0x5a;
        fs.writeFileSync(path.join(db, newest), b);
        w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
        total += await acked.check(w, `${step.name}, ${newest} damaged`);
      } finally {
        await w.stop();
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    return `${COLD_JOURNAL_STEPS.length} steps, each killed there (${seen.join('; ')}): every acknowledged write back, also from the compressed segments with the newest checkpoint damaged (${total} observations checked), none duplicated, ready`;
  });
});

it('a client killed mid-request leaves the worker healthy', async () => {
  await faultCase(__filename, 'crashes', 'client SIGKILL mid-request', async () => {
    const w = await startShortLivedWorker();
    try {
      // A child process starts a large upload and is killed halfway through it.
      const script = `
        const http = require('http');
        const req = http.request({ host: '127.0.0.1', port: ${w.port}, method: 'POST', path: '/api/sessions/observations',
          headers: { authorization: 'Bearer ${w.token}', 'content-type': 'application/json', 'content-length': 5000000 } });
        req.write('{"contentSessionId":"half","tool_name":"Read","tool_response":"' + 'x'.repeat(100000));
        setInterval(() => {}, 1000);`;
      for (let i = 0; i < 5; i++) {
        const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
        await new Promise((r) => setTimeout(r, 300));
        child.kill('SIGKILL');
        await new Promise((r) => child.on('exit', r));
      }
      const h = await w.req('GET', '/api/health');
      assert.equal(h.status, 200);
      const stats = await w.req('GET', '/api/stats');
      assert.equal(stats.body.sessions, 0, 'nothing half-received was stored');
      assert.equal((await w.req('POST', '/api/memory/save', { text: 'still works' })).status, 201);
      return '5 clients killed mid-upload: worker healthy, nothing partial stored';
    } finally {
      await w.stop();
    }
  });
});

/**
 * The steps of packing the chain (worker/store/packChain.ts), which runs after each checkpoint: the
 * packed copy written to its temp file but not synced, synced and read back but not renamed over
 * the raw file, renamed but the directory not synced. Each for a full snapshot, for a delta (a
 * start's catch-up delta: the others are written packed) and for a full snapshot packed whole
 * (CMEMSNP3, as data dirs from before sub-blocks hold it: packed again in sub-blocks). And of merging packed deltas into one:
 * the merged copy written but not synced, read back but not renamed over the newest delta, renamed
 * but the older deltas not removed.
 */
const PACK_STEPS = [
  { name: 'packed copy written, not synced', at: 'pack:before-sync' },
  { name: 'packed copy read back, not renamed over the raw file', at: 'pack:verified' },
  { name: 'packed copy renamed over the raw file, directory not synced', at: 'pack:renamed' },
] as const;
const MERGE_STEPS = [
  { name: 'merged delta written, not synced', at: 'merge:before-sync' },
  { name: 'merged delta read back, not renamed over the newest delta', at: 'merge:verified' },
  { name: 'merged delta renamed over the newest delta, older deltas not removed', at: 'merge:renamed' },
] as const;
const PACK_KINDS = [
  ['snapshot', PACK_STEPS],
  ['delta', PACK_STEPS],
  ['whole', PACK_STEPS],
  ['merge', MERGE_STEPS],
] as const;
const PACK_STEP_COUNT = PACK_KINDS.reduce((n, [, steps]) => n + steps.length, 0);
/** Saves before each kill (and, for delta and merge, before the stop that made the store it starts from). */
const saves = { snapshot: 5, delta: 5, whole: 5, merge: 2 } as const;
/**
 * Observations imported into the store each kind starts from. merge: enough that its two deltas of
 * two saves each (8-12 chunks of 64 KiB each) stay well under half the database (about 10 MB raw),
 * past which the checkpoint would be a full snapshot (checkpoint.ts FULL_WHEN_DELTAS_OVER) and there
 * would be nothing to merge.
 */
const baseRows = { snapshot: 300, delta: 300, whole: 300, merge: 1500 } as const;
/** A checkpoint asked for, which must be a delta (a merge needs two). */
async function deltaCheckpoint(w: RunningWorker, what: string): Promise<void> {
  const r = await w.req('POST', '/api/admin/snapshot', {});
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.via, 'delta', `${what}: the checkpoint was not a delta, so no merge can follow (the deltas since the full snapshot over half the database?): ${JSON.stringify(r.body)}`);
}

const chainFile = (n: string) => /^(snapshot|delta)-\d+\.db$/.test(n);
const genOf = (n: string) => Number(/\d+/.exec(n)![0]);
const magicOf = (file: string) => fs.readFileSync(file).subarray(0, 8).toString('latin1');
/** The chain's files (newest full snapshot and the deltas after it) that are still raw, or packed whole (to be packed in sub-blocks). */
function rawChain(db: string): string[] {
  const files = fs.readdirSync(db).filter(chainFile);
  const newest = Math.max(...files.filter((n) => n.startsWith('snapshot-')).map(genOf));
  return files.filter((n) => genOf(n) >= newest && (n.startsWith('delta-') || genOf(n) === newest) && ['CMEMSNP2', 'CMEMDLT1', 'CMEMSNP3', 'CMEMDLT2'].includes(magicOf(path.join(db, n))));
}

it(`SIGKILL at every step of packing the newest snapshot and its deltas, and of merging deltas (${PACK_STEP_COUNT} steps)`, { timeout: 15 * 60_000 }, async () => {
  await faultCase(__filename, 'crashes', 'SIGKILL at every step of packing the newest snapshot and its deltas', async () => {
    let total = 0;
    const seen: string[] = [];
    for (const [kind, steps] of PACK_KINDS) {
      // The store each step of this kind starts from, built once and copied for each step.
      const from = { dataDir: tempDir(), acked: new Acked() };
      {
        const fromDb = path.join(from.dataDir, 'db');
        if (kind === 'snapshot' || kind === 'whole') {
          // A raw snapshot, as a data dir written before packing holds (the page cache off writes
          // raw full snapshots); the next start, with the page cache, packs it 10 s after it starts.
          const w = await startShortLivedWorker({ dataDir: from.dataDir, env: { ...STEP_ENV, CLAUDE_MEM_PAGE_CACHE_MB: '0' } });
          await from.acked.bulk(w, 'base', baseRows[kind]);
          assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
          await w.stop();
          const raw = rawChain(fromDb).filter((n) => n.startsWith('snapshot-'));
          assert.ok(raw.length > 0, 'a raw snapshot');
          // whole: that snapshot packed whole, as a data dir written before sub-blocks holds it.
          if (kind === 'whole') for (const n of raw) assert.equal(packWhole(path.join(fromDb, n)), 'CMEMSNP3');
        } else {
          // (No delta during the import: the checkpoint after it is a full snapshot, with no delta before the ones to merge.)
          const w = await startShortLivedWorker({ dataDir: from.dataDir, env: { ...STEP_ENV, CLAUDE_MEM_BULK_DELTA_BYTES: '0' } });
          await from.acked.bulk(w, 'base', baseRows[kind]);
          assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
          await until(() => rawChain(fromDb).length === 0, 30_000, 'the snapshot packed');
          // delta: writes after the last checkpoint, which the next start replays and writes a raw
          // delta of (its catch-up); merge: a packed delta, which the next one is merged with (a
          // few writes each: more would make the next checkpoint a full snapshot).
          for (let i = 0; i < saves[kind]; i++) await from.acked.save(w, `${kind}: before the stop ${i}`);
          if (kind === 'merge') await deltaCheckpoint(w, 'merge: the first delta').catch(async (e) => { await w.kill(); throw e; });
          await w.stop();
        }
      }
      for (const step of steps) {
        const dataDir = copyDataDir(from.dataDir);
        const db = path.join(dataDir, 'db');
        const acked = from.acked.copy();
        let w = await startShortLivedWorker({ dataDir, env: { ...STEP_ENV, CLAUDE_MEM_FAULT_PAUSE: step.at } });
        try {
          for (let i = 0; i < saves[kind]; i++) await acked.save(w, `${kind} ${step.name}: before ${i}`);
          // snapshot and delta: the start's background pass packs the raw file 10 s after it starts;
          // merge: a few saves change a few chunks, a delta (written packed) merged with the one before.
          if (kind === 'merge') await deltaCheckpoint(w, `${kind} ${step.name}: the second delta`);
        } catch (e) {
          await w.kill();
          throw e;
        }
        await killAt(w.proc, w.stdout, step.at);
        const files = fs.readdirSync(db);
        const tmp = files.filter((n) => n.includes('.tmp-'));
        seen.push(`${kind} ${step.at}: ${tmp.join(' ') || 'no temp file'}`);
        // (A closed journal segment being compressed at the same moment has a temp file of its own.)
        const chainTmp = tmp.filter((n) => n.startsWith('snapshot-') || n.startsWith('delta-'));
        const deltas = files.filter((n) => /^delta-\d+\.db$/.test(n));
        if (step.at === 'pack:renamed' || step.at === 'merge:renamed') assert.deepEqual(chainTmp, [], `the new copy took the old file's name: ${files.join(' ')}`);
        else if (kind === 'merge') assert.ok(chainTmp.some((n) => n.startsWith('delta-')) && deltas.length >= 2, `the merged delta in its temp file, the deltas in place: ${files.join(' ')}`);
        else {
          const name = kind === 'whole' ? 'snapshot' : kind;
          assert.ok(tmp.some((n) => n.startsWith(name)) && rawChain(db).some((n) => n.startsWith(name)), `the packed ${name} in its temp file, the one to pack in place: ${files.join(' ')}`);
        }
        if (step.at === 'merge:renamed') assert.ok(deltas.length >= 2, `the older deltas still there: ${files.join(' ')}`);
        w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
        try {
          await acked.check(w, `${kind} ${step.name}, restarted`);
          // (The new worker may already be packing again, under a temp file of its own.)
          assert.deepEqual(tmp.filter((n) => fs.existsSync(path.join(db, n))), [], 'the start removed the killed worker\'s temp file');
          await acked.save(w, `${kind} ${step.name}: after`);
          // Another checkpoint packs what the kill left raw (and merges the deltas).
          assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
          await until(() => rawChain(db).length === 0 && !fs.readdirSync(db).some((n) => n.includes('.tmp-')), 30_000, 'the chain packed');
          await w.stop();
          w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
          await acked.check(w, `${kind} ${step.name}, from the packed chain`);
          await w.stop();
          // The newest checkpoint (packed) damaged: the start falls back to the older files.
          const newest = fs.readdirSync(db).filter(chainFile).sort((a, b) => genOf(a) - genOf(b)).pop()!;
          const b = fs.readFileSync(path.join(db, newest));
          for (let i = b.length >> 1; i < (b.length >> 1) + 16; i++) b[i] ^= 0x5a;
          fs.writeFileSync(path.join(db, newest), b);
          w = await startShortLivedWorker({ dataDir, env: STEP_ENV });
          total += await acked.check(w, `${kind} ${step.name}, packed ${newest} damaged`);
        } finally {
          await w.stop();
        }
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
      fs.rmSync(from.dataDir, { recursive: true, force: true });
    }
    return `${PACK_STEP_COUNT} steps, each killed there (${seen.join('; ')}): every acknowledged write back, also from the packed chain and with its newest file damaged (${total} observations checked), none duplicated, ready`;
  });
});
