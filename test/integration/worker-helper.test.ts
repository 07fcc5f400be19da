// The test helper that starts a real worker: a start that does not finish in time fails the test
// and leaves no worker behind (a worker left running keeps the test file's process alive).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { startWorker, until } from '../helpers/worker';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
};

it('a worker that does not start in time is killed, and the start fails', async () => {
  let pid = 0;
  await assert.rejects(
    startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' }, startTimeoutMs: 1 }),
    (e: Error) => {
      const m = /worker pid (\d+) did not start in 0.001 s \(killed\)/.exec(e.message);
      assert.ok(m, e.message);
      pid = Number(m[1]);
      return true;
    },
  );
  await until(() => !alive(pid), 10_000, `worker pid ${pid} to be gone`);
});
