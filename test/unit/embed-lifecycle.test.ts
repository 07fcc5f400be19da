// Host lifecycle of the local embedder (batching, crashes, hangs, idle unload, close) against a
// fake model host (test/helpers/fakeEmbedHost.cjs), so no model load is needed. Run with HOLDER as
// its argument, this file is the worker side of "the worker is killed" instead of running tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createLocalEmbedder, type LocalEmbedderOptions } from '../../worker/search/embed/embedder';
import { processAlive as alive } from '../../common/node/identity';

/** The fake host: plain CommonJS, so each process it runs in starts without tsx. */
const FAKE_HOST = path.resolve(__dirname, '../helpers/fakeEmbedHost.cjs');

if (process.argv[2] === 'HOLDER') holder();
else tests();

function tests(): void {
  const make = (o: Partial<LocalEmbedderOptions> = {}) => createLocalEmbedder({ threadScript: FAKE_HOST, ...o });

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

  test('queries and indexing share one model process: the indexing handle sends its messages one at a time and lets the process go after its own idle time', async (t) => {
    const e = make({ batchSize: 4, idleMs: 60_000 });
    t.after(() => e.close());
    const index = e.serial(1, 100);
    const [indexed, queried] = await Promise.all([index.embed(['t1', 't2', 't3']), e.embed(['t7'])]);
    assert.deepEqual(indexed.map((v) => v[1]), [1, 1, 1], 'one text a message');
    const hosts = new Set([...indexed, ...queried].map((v) => v[2]));
    assert.equal(hosts.size, 1, `one model process for both: ${[...hosts].join(', ')}`);
    assert.equal(e.stats().starts, 1);
    // The query's 60 s keep the process after the indexer's 100 ms.
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(e.stats().running, true, 'a query keeps it for its own idle time');
    await index.close();
    assert.equal((await e.embed(['t9']))[0][0], 9, 'closing the indexing handle closes nothing');
    const alone = make({ idleMs: 60_000 });
    t.after(() => alone.close());
    await alone.serial(1, 100).embed(['t5']);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(alone.stats().running, false, 'after indexing alone the process goes after the indexing idle time');
  });

  test('texts longer than maxChars are cut before they reach the host', async (t) => {
    const e = make({ maxChars: 3 });
    t.after(() => e.close());
    const [v] = await e.embed(['t12345']);
    assert.equal(v[0], 12);
  });

  test('a host that exits fails the calls in flight; the next call starts a fresh host', async (t) => {
    const e = make();
    t.after(() => e.close());
    const [before] = await e.embed(['t1']);
    const results = await Promise.allSettled([e.embed(['CRASH']), e.embed(['t2'])]);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.match(String((r as PromiseRejectedResult).reason), /embedder process crashed: exited with code 3/);
    }
    const [after] = await e.embed(['t3']);
    assert.equal(after[0], 3);
    assert.notEqual(after[2], before[2], 'a new process id');
    assert.equal(e.stats().starts, 2);
  });

  test('an uncaught error in the host is reported with its message', async (t) => {
    const e = make();
    t.after(() => e.close());
    await assert.rejects(e.embed(['THROW']), /crashed: exited with code 1: boom in thread/);
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

  test('a host that never gets ready is terminated after loadTimeoutMs', async (t) => {
    const e = make({ threadData: { modelDir: 'NEVER' }, loadTimeoutMs: 300, callTimeoutMs: 50 });
    t.after(() => e.close());
    await assert.rejects(e.embed(['t1']), /model did not load within 300 ms/);
    assert.equal(e.stats().running, false);
  });

  test('a hung host is terminated after callTimeoutMs', async (t) => {
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

  processTests();
}

/** The worker's side of "the worker is killed": one call, print the host's pid, then wait. */
function holder(): void {
  const e = createLocalEmbedder({ threadScript: FAKE_HOST });
  void e.embed(['t1']).then(([v]) => {
    process.stdout.write(`${v[2]}\n`);
    setInterval(() => {}, 1000);
  });
}

function processTests(): void {
  const make = (o: Partial<LocalEmbedderOptions> = {}) => createLocalEmbedder({ threadScript: FAKE_HOST, ...o });

  test('process host: batches in order, a fresh process after a crash', async (t) => {
    const e = make({ batchSize: 2 });
    t.after(() => e.close());
    const out = await e.embed(['t0', 't1', 't2']);
    assert.deepEqual(
      out.map((v) => [v[0], v[1]]),
      [
        [0, 2],
        [1, 2],
        [2, 1],
      ],
    );
    const first = out[0][2];
    assert.notEqual(first, process.pid);
    await assert.rejects(e.embed(['CRASH']), /embedder process crashed: exited with code 3/);
    const [after] = await e.embed(['t3']);
    assert.equal(after[0], 3);
    assert.notEqual(after[2], first, 'a new process');
    assert.equal(alive(first), false, 'the crashed process is gone');
    assert.equal(e.stats().starts, 2);
  });

  test('process host: an uncaught error names its message; a hang is killed', async (t) => {
    // 3 s, not less: the first call starts the process, which takes over 300 ms on a loaded machine.
    const e = make({ callTimeoutMs: 3000 });
    t.after(() => e.close());
    await assert.rejects(e.embed(['THROW']), /embedder process crashed: exited with code 1: boom in thread/);
    const [v] = await e.embed(['t4']);
    await assert.rejects(e.embed(['HANG']), /no answer within 3000 ms/);
    await waitFor(() => !alive(v[2]));
    assert.equal((await e.embed(['t5']))[0][0], 5);
  });

  test('process host: idle unload ends the process; close refuses new calls', async (t) => {
    const e = make({ idleMs: 80 });
    t.after(() => e.close());
    const [v] = await e.embed(['t1']);
    await waitFor(() => !e.stats().running);
    await waitFor(() => !alive(v[2]));
    const [w] = await e.embed(['t7']);
    assert.equal(w[0], 7);
    await e.close();
    assert.equal(alive(w[2]), false);
    await assert.rejects(e.embed(['t1']), /closed/);
  });

  test('process host: the model process exits when the worker is killed', async () => {
    const h = spawn(process.execPath, ['--require', 'tsx/cjs', __filename, 'HOLDER'], { cwd: path.resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      h.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      h.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
    });
    assert.ok(alive(pid));
    h.kill('SIGKILL');
    await waitFor(() => !alive(pid));
  });
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
