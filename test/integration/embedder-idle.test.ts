// The worker's process tree over real HTTP with the bundled model: the model runs in one child
// process (dist/embedder.js), started on demand; once embedderIdleMs has passed without a call it is
// gone (its memory with it), and the next semantic search starts it again and answers the same.
// The query cache is off here, so the query after the idle time reaches the new process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const IDLE_MS = 1500;
let w: RunningWorker;

/** The command lines of the worker's descendants (children, and theirs). */
function descendants(root: number): string[] {
  const parent = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited while listed */
    }
  }
  const pids = [root];
  for (let i = 0; i < pids.length; i++) for (const [pid, ppid] of parent) if (ppid === pids[i]) pids.push(pid);
  const out: string[] = [];
  for (const pid of pids.slice(1)) {
    try {
      out.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      /* exited */
    }
  }
  return out;
}
const modelProcesses = () => descendants(w.proc.pid!).filter((c) => c.includes('embedder.js'));

const semantic = async (query: string) => {
  const r = await w.req('GET', `/api/search?${new URLSearchParams({ query, mode: 'semantic', project: 'idle' })}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.modeUsed, 'semantic');
  return r.body.items.map((i: { id: number; score: number }) => ({ id: i.id, score: Number(i.score.toFixed(5)) }));
};

before(async () => {
  const dataDir = tempDir('cmem-embed-idle-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: 'local', embedderIdleMs: IDLE_MS, queryCacheSize: 0, indexStartDelayMs: 0, indexQuietMs: 0 } }));
  w = await startWorker({ dataDir });
});
after(async () => {
  await w?.stop();
});

test('the model process starts on demand, is gone once idle, and the next semantic search brings it back with the same answer', async () => {
  assert.deepEqual(modelProcesses(), [], 'no model process before anything needs one');
  for (const text of [
    'Users were signed out because two tabs refreshed the session token at once.',
    'Baked a chocolate cake for the team birthday party.',
    'Pods resolved external hostnames slowly until ndots was lowered in the DNS config.',
  ]) {
    assert.equal((await w.req('POST', '/api/memory/save', { text, project: 'idle' })).status, 201);
  }
  await until(async () => {
    const st = (await w.req('GET', '/api/search/status')).body;
    return st.pending === 0 && st.indexed.observations === 3 && st.embeddings.state !== 'indexing';
  }, 180_000, 'the background indexer');

  const first = await semantic('why did people lose their login');
  assert.equal(first.length, 3);
  assert.equal(modelProcesses().length, 1, 'one model process serves the indexer and queries');

  await until(() => modelProcesses().length === 0, IDLE_MS + 30_000, 'the model process to exit after its idle time');
  const st = (await w.req('GET', '/api/search/status')).body;
  assert.equal(st.embeddings.provider, 'local', 'semantic search is still on while the model is unloaded');

  const again = await semantic('why did people lose their login');
  assert.equal(modelProcesses().length, 1, 'started again on demand, still one');
  assert.deepEqual(again, first, 'the fresh model process gives the same ranking and scores');
});
