// The background indexer works in idle time, over real HTTP with the bundled model: a worker
// restarted on a store with a backlog does not start the model process in its first
// indexStartDelayMs, nor while writes keep coming (indexQuietMs after the last one); then it embeds
// them all and hybrid search finds the new records by meaning. A semantic query does not wait:
// it starts the model at once, and the backlog goes with it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const workers: RunningWorker[] = [];
after(async () => {
  for (const w of workers) await w.stop();
});

/** Pids whose command line runs the model (dist/embedder.js), among the worker's children. */
function modelProcesses(w: RunningWorker): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === w.proc.pid && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('embedder.js')) out.push(Number(name));
    } catch {
      /* exited while listed */
    }
  }
  return out;
}

/** When the worker's log says it listened and when it first started the model process (ms since the epoch). */
function logTimes(w: RunningWorker): { listening?: number; modelStarted?: number } {
  const lines = fs.readFileSync(path.join(w.dataDir, 'logs', 'worker.log'), 'utf8').split('\n');
  const at = (re: RegExp) => {
    const line = lines.filter((l) => re.test(l)).pop();
    return line ? Date.parse(line.slice(0, line.indexOf(' '))) : undefined;
  };
  return { listening: at(/ INFO listening on /), modelStarted: at(/ INFO embedder process started/) };
}

async function start(dataDir: string, search: Record<string, unknown>): Promise<RunningWorker> {
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: 'local', ...search } }));
  const w = await startWorker({ dataDir });
  workers.push(w);
  return w;
}

const status = async (w: RunningWorker) => (await w.req('GET', '/api/search/status')).body as { pending: number; indexed: { observations: number }; embeddings: { state: string } };
const save = async (w: RunningWorker, text: string, project = 'idle') => {
  const r = await w.req('POST', '/api/memory/save', { text, project });
  assert.equal(r.status, 201);
  return r.body.id as number;
};
const search = async (w: RunningWorker, query: string, mode: 'hybrid' | 'semantic', project = 'idle') => {
  const r = await w.req('GET', `/api/search?${new URLSearchParams({ query, mode, project })}`);
  assert.equal(r.status, 200);
  return r.body as { modeUsed: string; items: { id: number }[] };
};

/** Samples the worker's children every 50 ms while `busy` runs: the model processes seen. */
async function watchWhile<T>(w: RunningWorker, busy: () => Promise<T>): Promise<{ result: T; seen: number[] }> {
  const seen = new Set<number>();
  const t = setInterval(() => modelProcesses(w).forEach((p) => seen.add(p)), 50);
  try {
    const result = await busy();
    modelProcesses(w).forEach((p) => seen.add(p));
    return { result, seen: [...seen] };
  } finally {
    clearInterval(t);
  }
}

const NOTES = [
  'Users were being signed out unexpectedly because two browser tabs refreshed the session token at the same time.',
  'Baked a chocolate cake for the team birthday party with extra frosting.',
  'Kubernetes pods resolved external hostnames slowly; lowering ndots in the pod DNS config fixed it.',
  'Currency totals drifted by a cent because floating point numbers were used for money amounts.',
  'The dark theme flashed white on first paint until an inline script set the theme before rendering.',
];

describe('background embedding in idle time', () => {
  it('a worker restarted on a store with a backlog does not start the model in its first indexStartDelayMs, then embeds it all', async () => {
    const dataDir = tempDir('cmem-idle-start-');
    // The backlog: records written while embeddings were off.
    const off = await startWorker({ dataDir, env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
    for (const text of NOTES) await save(off, text);
    assert.equal(await off.stop(), 0);

    const START_DELAY_MS = 6000;
    const w = await start(dataDir, { indexStartDelayMs: START_DELAY_MS, indexQuietMs: 0 });
    const listening = logTimes(w).listening as number;
    assert.ok(listening > 0, 'the log says when the worker listened');
    // Keyword search and status calls meanwhile, as a window opening would make: none starts the model.
    const { seen, result: pendingSeen } = await watchWhile(w, async () => {
      const pending: number[] = [];
      while (Date.now() < listening + START_DELAY_MS - 1500) {
        pending.push((await status(w)).pending);
        assert.equal((await w.req('GET', `/api/search?${new URLSearchParams({ query: 'cake', mode: 'keyword' })}`)).status, 200);
        await new Promise((r) => setTimeout(r, 200));
      }
      return pending;
    });
    assert.deepEqual(seen, [], 'no model process in the first seconds after start');
    assert.ok(pendingSeen.length > 0 && pendingSeen.every((n) => n === NOTES.length), `the backlog waits: pending ${pendingSeen.join(',')}`);

    await until(async () => (await status(w)).indexed.observations === NOTES.length, 180_000, 'the backlog to be embedded after the start delay');
    const { modelStarted } = logTimes(w);
    assert.ok(modelStarted !== undefined && modelStarted >= listening + START_DELAY_MS, `model started ${(modelStarted ?? NaN) - listening} ms after listening, not before ${START_DELAY_MS}`);
    const r = await search(w, 'why did people lose their login', 'semantic');
    assert.equal(r.modeUsed, 'semantic');
    assert.equal(r.items.length, NOTES.length);
  });

  it('while writes keep coming the model is not started; once they pause the new records are embedded and hybrid search finds them by meaning', async () => {
    const QUIET_MS = 2500;
    const w = await start(tempDir('cmem-idle-quiet-'), { indexStartDelayMs: 0, indexQuietMs: QUIET_MS });
    let lastWrite = 0;
    const ids: number[] = [];
    const { seen } = await watchWhile(w, async () => {
      // A burst: a write every 500 ms, each well inside the quiet time of the one before.
      for (const text of NOTES) {
        ids.push(await save(w, text));
        lastWrite = Date.now();
        await new Promise((r) => setTimeout(r, 500));
      }
    });
    assert.deepEqual(seen, [], 'no model process while the writes keep coming');
    assert.equal((await status(w)).pending, NOTES.length);

    await until(async () => (await status(w)).indexed.observations === NOTES.length, 180_000, 'the records to be embedded once writes pause');
    const { modelStarted } = logTimes(w);
    // The save's kick precedes its reply: allow the clock's few milliseconds between the two.
    assert.ok(modelStarted !== undefined && modelStarted >= lastWrite + QUIET_MS - 50, `model started ${(modelStarted ?? NaN) - lastWrite} ms after the last write, not before ${QUIET_MS}`);
    assert.equal(modelProcesses(w).length, 1, 'one model process for the whole burst');

    const r = await search(w, 'why did people lose their login', 'hybrid');
    assert.equal(r.modeUsed, 'hybrid');
    assert.equal(r.items[0]?.id, ids[0], 'the signed-out note, found by meaning (no shared word)');
  });

  it('a semantic query starts the model at once, and the backlog is embedded with it', async () => {
    const w = await start(tempDir('cmem-idle-query-'), { indexStartDelayMs: 3600_000, indexQuietMs: 600_000 });
    const ids: number[] = [];
    for (const text of NOTES) ids.push(await save(w, text));
    assert.deepEqual(modelProcesses(w), [], 'nothing embedded yet: the start delay is an hour');

    const first = await search(w, 'why did people lose their login', 'semantic');
    assert.equal(first.modeUsed, 'semantic', 'answered by meaning, not refused');
    await until(async () => (await status(w)).indexed.observations === NOTES.length, 180_000, 'the backlog, woken by the query');
    const again = await search(w, 'why did people lose their login', 'semantic');
    assert.equal(again.items[0]?.id, ids[0]);
    assert.equal(again.items.length, NOTES.length);
  });
});
