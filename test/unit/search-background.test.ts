// stepInBackground (worker/search/background.ts): a generator stepped on timers, one step a timer
// (kept alive here: unref'd timers would let the test process end first), waiting for a lull in
// requests before each step when asked to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stepInBackground } from '../../worker/search/background';
import { Lull } from '../../worker/lull';

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

test('with a wait, takes no step while a request is in flight, and goes on once it ends', async () => {
  const lull = new Lull(5, 60_000);
  let steps = 0;
  const s = stepInBackground((function* () {
    for (; steps < 50; steps++) yield;
  })(), { keepAlive: true, wait: () => lull.wait() });
  await new Promise((r) => setTimeout(r, 10));
  const ended = lull.request();
  const at = steps;
  await new Promise((r) => setTimeout(r, 100));
  // A step already past its wait may still run; none after it.
  assert.ok(steps <= at + 1, `no step while the request ran (${steps - at} taken)`);
  ended();
  await s.ended;
  assert.equal(steps, 50);
});
