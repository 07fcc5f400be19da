// stepInBackground (worker/search/background.ts): a generator stepped on timers, one step a timer
// (kept alive here: unref'd timers would let the test process end first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stepInBackground } from '../../worker/search/background';

test('steps to the end one step a timer, then calls done once and settles ended', async () => {
  let n = 0;
  let done = 0;
  const s = stepInBackground((function* () {
    for (; n < 5; n++) yield;
  })(), { keepAlive: true, done: (e) => (assert.equal(e, undefined), done++) });
  assert.equal(n, 0, 'nothing runs before the first timer');
  await new Promise((r) => setImmediate(r));
  assert.ok(n < 5, 'not all in one go');
  await s.ended;
  assert.equal(n, 5);
  assert.equal(done, 1);
});

test('a step that throws ends it with the error; stop() ends it without done', async () => {
  let error: Error | undefined;
  const failing = stepInBackground((function* () {
    yield;
    throw new Error('store closed');
  })(), { keepAlive: true, done: (e) => (error = e) });
  await failing.ended;
  assert.equal(error?.message, 'store closed');
  let steps = 0;
  let called = false;
  const s = stepInBackground((function* () {
    for (;;) {
      steps++;
      yield;
    }
  })(), { keepAlive: true, done: () => (called = true) });
  await new Promise((r) => setTimeout(r, 20));
  s.stop();
  await s.ended;
  const at = steps;
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(at > 0 && steps === at, 'no step after stop()');
  assert.equal(called, false);
});
