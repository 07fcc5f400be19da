// Thread lifecycle of the local embedder (batching, crashes, hangs, idle unload, close) against
// a fake model thread, so no model load is needed. This file is the fake thread too: loaded as a
// worker it answers the protocol instead of running tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isMainThread, parentPort, threadId, workerData } from 'node:worker_threads';
import { createLocalEmbedder, type LocalEmbedderOptions } from '../../worker/search/embed/embedder';
import type { EmbedderThreadData, FromThread, ToThread } from '../../worker/search/embed/protocol';

if (!isMainThread) fakeThread();
else tests();

/** Each text `t<n>` comes back as [n, batch size, thread id]; special texts misbehave. */
function fakeThread(): void {
  const port = parentPort;
  if (!port) return;
  const post = (m: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  if ((workerData as EmbedderThreadData).modelDir === 'FATAL') {
    post({ type: 'fatal', message: 'no weights here' });
    return;
  }
  if ((workerData as EmbedderThreadData).modelDir === 'NEVER') {
    setInterval(() => {}, 1000); // "loading" forever
    return;
  }
  post({ type: 'ready', backend: 'fake', loadMs: 1 });
  port.on('message', (msg: ToThread) => {
    if (msg.texts.includes('CRASH')) process.exit(3);
    if (msg.texts.includes('THROW')) throw new Error('boom in thread');
    if (msg.texts.includes('HANG')) return;
    if (msg.texts.includes('FAIL')) return post({ type: 'error', id: msg.id, message: 'bad input' });
    const data = new Float32Array(msg.texts.length * 3);
    msg.texts.forEach((t, i) => data.set([Number(t.slice(1)), msg.texts.length, threadId], i * 3));
    post({ type: 'result', id: msg.id, dims: 3, data }, [data.buffer]);
  });
}

function tests(): void {
  const make = (o: Partial<LocalEmbedderOptions> = {}) => createLocalEmbedder({ threadScript: __filename, ...o });

  test('batches of batchSize, results in input order', async (t) => {
    const e = make({ batchSize: 3 });
    t.after(() => e.close());
    const out = await e.embed(Array.from({ length: 8 }, (_, i) => `t${i}`));
    assert.deepEqual(
      out.map((v) => v[0]),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    assert.deepEqual(
      out.map((v) => v[1]),
      [3, 3, 3, 3, 3, 3, 2, 2],
    );
    assert.equal(e.stats().starts, 1);
  });

  test('texts longer than maxChars are cut before they reach the thread', async (t) => {
    const e = make({ maxChars: 3 });
    t.after(() => e.close());
    const [v] = await e.embed(['t12345']);
    assert.equal(v[0], 12);
  });

  test('a thread that exits fails the calls in flight; the next call starts a fresh thread', async (t) => {
    const e = make();
    t.after(() => e.close());
    const [before] = await e.embed(['t1']);
    const results = await Promise.allSettled([e.embed(['CRASH']), e.embed(['t2'])]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /embedder thread crashed: exited with code 3/);
    }
    const [after] = await e.embed(['t3']);
    assert.equal(after[0], 3);
    assert.notEqual(after[2], before[2], 'a new thread id');
    assert.equal(e.stats().starts, 2);
  });

  test('an uncaught error in the thread is reported with its message', async (t) => {
    const e = make();
    t.after(() => e.close());
    await assert.rejects(e.embed(['THROW']), /crashed: boom in thread/);
    assert.equal((await e.embed(['t4']))[0][0], 4);
  });

  test('an error answer fails only that call', async (t) => {
    const e = make();
    t.after(() => e.close());
    const [bad, good] = await Promise.allSettled([e.embed(['FAIL']), e.embed(['t5'])]);
    assert.equal(bad.status, 'rejected');
    assert.match(String((bad as PromiseRejectedResult).reason), /local embedder: bad input/);
    assert.equal(good.status, 'fulfilled');
    assert.equal(e.stats().starts, 1);
  });

  test('a model that cannot load fails the call clearly', async (t) => {
    const e = make({ threadData: { modelDir: 'FATAL' } });
    t.after(() => e.close());
    await assert.rejects(e.embed(['t1']), /model failed to load: no weights here/);
    assert.equal(e.stats().running, false);
  });

  test('a thread that never gets ready is terminated after loadTimeoutMs', async (t) => {
    const e = make({ threadData: { modelDir: 'NEVER' }, loadTimeoutMs: 300, callTimeoutMs: 50 });
    t.after(() => e.close());
    await assert.rejects(e.embed(['t1']), /model did not load within 300 ms/);
    assert.equal(e.stats().running, false);
  });

  test('a hung thread is terminated after callTimeoutMs', async (t) => {
    const e = make({ callTimeoutMs: 200 });
    t.after(() => e.close());
    await assert.rejects(e.embed(['HANG']), /no answer within 200 ms/);
    assert.equal((await e.embed(['t6']))[0][0], 6);
    assert.equal(e.stats().starts, 2);
  });

  test('idle unload, then reuse', async (t) => {
    const e = make({ idleMs: 80 });
    t.after(() => e.close());
    await e.embed(['t1']);
    assert.equal(e.stats().running, true);
    await waitFor(() => !e.stats().running);
    assert.equal((await e.embed(['t7']))[0][0], 7);
    assert.equal(e.stats().starts, 2);
  });

  test('close fails pending calls and refuses new ones', async () => {
    const e = make();
    const hung = assert.rejects(e.embed(['HANG']), /closed/);
    await new Promise((r) => setTimeout(r, 50));
    await e.close();
    await hung;
    await assert.rejects(e.embed(['t1']), /closed/);
    assert.equal(e.stats().running, false);
  });
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
