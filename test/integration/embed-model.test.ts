// The real sentence encoder in a real worker thread (loaded from the .ts source through tsx): in
// the integration tier because it loads the model.
// One shared embedder keeps model loads to two for the whole file (~1 s each).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createLocalEmbedder } from '../../worker/search/embed/embedder';
import type { EmbedderThreadData } from '../../worker/search/embed/protocol';
import { BACKGROUND_NICE } from '../../worker/threadPriority';
import { childPids } from '../helpers/procCpu';

const threadScript = path.resolve(__dirname, '../../worker/search/embedderThread.ts');
const shared = createLocalEmbedder({ threadScript, idleMs: 60_000 });
after(() => shared.close());

const cos = (a: Float32Array, b: Float32Array) => {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return d / Math.sqrt(na * nb);
};

test('similar sentences score higher than unrelated ones', async () => {
  const [login, auth, cake] = await shared.embed(['fixed the login bug', 'repaired authentication error', 'bake a chocolate cake']);
  assert.equal(login.length, 512);
  const related = cos(login, auth);
  const unrelated = cos(login, cake);
  assert.ok(related > unrelated + 0.2, `related ${related.toFixed(3)} vs unrelated ${unrelated.toFixed(3)}`);
  const st = shared.stats();
  assert.equal(st.backend, 'wasm');
  assert.equal(typeof st.lastLoadMs, 'number');
});

test('a batch gives the same vectors as one text at a time, in order', async () => {
  const texts = ['refactored the job queue', '', 'added retries with backoff', 'x'.repeat(5000), 'renamed the config key'];
  const batched = await shared.embed(texts);
  assert.equal(batched.length, texts.length);
  for (let i = 0; i < texts.length; i++) {
    const [single] = await shared.embed([texts[i]]);
    let maxDiff = 0;
    for (let j = 0; j < single.length; j++) maxDiff = Math.max(maxDiff, Math.abs(single[j] - batched[i][j]));
    assert.ok(maxDiff < 1e-4, `text ${i}: max diff ${maxDiff}`);
    const norm = Math.hypot(...batched[i]);
    assert.ok(Math.abs(norm - 1) < 1e-3 && Number.isFinite(norm), `text ${i}: norm ${norm}`);
  }
});

test('more texts than one batch (32) go in several messages, order kept', async () => {
  const texts = Array.from({ length: 40 }, (_, i) => `note number ${i} about the ${i % 2 ? 'build' : 'tests'}`);
  const all = await shared.embed(texts);
  assert.equal(all.length, 40);
  const [one] = await shared.embed([texts[37]]);
  assert.ok(cos(all[37], one) > 0.9999);
  assert.ok(cos(all[36], one) < 0.9999);
  assert.deepEqual(await shared.embed([]), []);
});

test('the thread unloads when idle and a later call starts a fresh one', async (t) => {
  const e = createLocalEmbedder({ threadScript, idleMs: 150 });
  t.after(() => e.close());
  const [a] = await e.embed(['the worker restarts cleanly']);
  assert.equal(e.stats().running, true);
  await waitFor(() => !e.stats().running, 5000);
  const [b] = await e.embed(['the worker restarts cleanly']);
  assert.equal(e.stats().starts, 2);
  assert.ok(cos(a, b) > 0.9999);
});

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a query sent while the indexer's message runs is answered before that message", async () => {
  // 48 texts of ~60 tokens: two dozen graph runs of 128 tokens; the query needs one.
  const backlog = Array.from({ length: 48 }, (_, i) => `record ${i}: the queue now retries failed jobs with exponential backoff, logs each attempt with its error, and gives up after ${i + 3} tries so that a broken job no longer blocks the workers behind it`);
  const order: string[] = [];
  const indexing = shared
    .serial(64, 60_000)
    .embed(backlog)
    .then((v) => (order.push('index'), v));
  await new Promise((r) => setTimeout(r, 50));
  const [q] = await shared.embed(['why do failed jobs retry']).then((v) => (order.push('query'), v));
  const indexed = await indexing;
  assert.deepEqual(order, ['query', 'index']);
  assert.equal(indexed.length, 48);
  const [again] = await shared.embed(['why do failed jobs retry']);
  assert.ok(cos(q, again) > 0.9999, 'the query vector is its own');
  const [single] = await shared.embed([backlog[17]]);
  assert.ok(cos(indexed[17], single) > 0.9999, 'the indexer vectors stay in order');
});

test('after a query is answered, indexing runs hold back (a next query finds the model free), then go on', async () => {
  // A hold long enough that the test's order cannot come from timing luck: 2 short texts take well under 2 s.
  const threadData: EmbedderThreadData = { queryHoldMs: 6000 };
  const e = createLocalEmbedder({ threadScript, idleMs: 60_000, threadData });
  try {
    await e.embed(['load the model and answer a first query']);
    const order: string[] = [];
    const indexing = e
      .serial(8, 60_000)
      .embed(['the queue retries failed jobs', 'the cache keeps the newest pages'])
      .then((v) => (order.push('index'), v));
    await new Promise((r) => setTimeout(r, 2000));
    await e.embed(['why do failed jobs retry']).then(() => order.push('query'));
    const indexed = await indexing;
    assert.deepEqual(order, ['query', 'index'], 'the indexing message waited out the hold; the query came during it and went first');
    assert.equal(indexed.length, 2, 'held, not dropped');
  } finally {
    await e.close();
  }
});

test("the cut at the model's 128 tokens changes no vector", async (t) => {
  const uncut = createLocalEmbedder({ threadScript, idleMs: 60_000, threadData: { maxTokens: 0 } });
  t.after(() => uncut.close());
  const long = Array.from({ length: 120 }, (_, i) => `step ${i} of the migration rewrote table t${i}`).join('; ');
  const short = 'fixed the flaky login test';
  const [a, s1] = await shared.embed([long, short]);
  const [b, s2] = await uncut.embed([long, short]);
  assert.ok(cos(a, b) > 0.9999, `long text: cosine ${cos(a, b)}`);
  assert.ok(cos(s1, s2) > 0.9999);
  const [first] = await uncut.embed([long.slice(0, 200)]);
  assert.ok(cos(a, first) < 0.99, 'the cut keeps more than a short prefix');
});

test('every thread of the model process runs at background priority', { skip: process.platform !== 'linux' && 'Linux only (/proc)' }, async () => {
  await shared.embed(['warm the model up']); // loaded: every thread that loading starts exists
  const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  const models = childPids(process.pid).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('embedderThread');
    } catch {
      return false;
    }
  });
  assert.equal(models.length, 1, 'one model process');
  const want = Math.max(os.getPriority(), process.env.CLAUDE_MEM_BACKGROUND_NICE ? Number(process.env.CLAUDE_MEM_BACKGROUND_NICE) : BACKGROUND_NICE);
  const threads = fs.readdirSync(`/proc/${models[0]}/task`).map((t) => nice(fs.readFileSync(`/proc/${models[0]}/task/${t}/stat`, 'utf8')));
  assert.ok(threads.length > 1, `threads: ${threads.length}`);
  assert.deepEqual(threads, threads.map(() => want), `every thread at nice ${want}: ${threads.join(' ')}`);
});
