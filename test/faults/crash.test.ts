// Crashes: SIGKILL the worker at random moments during mixed load (ingest from several clients,
// queued compression jobs, a snapshot in progress, an import, manual saves), 20 rounds on one
// data dir. After each restart every acknowledged write is present, nothing is duplicated, and
// the queue drains. Also a client killed mid-request leaves the worker healthy.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';
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
      const w = await startWorker({ dataDir, env });
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
    const w = await startWorker({ dataDir, env });
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

it('a client killed mid-request leaves the worker healthy', async () => {
  await faultCase(__filename, 'crashes', 'client SIGKILL mid-request', async () => {
    const w = await startWorker();
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
