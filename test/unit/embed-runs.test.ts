// How the model host groups a message's texts into graph runs (worker/search/embed/runs.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capTokens, nextJob, planRuns } from '../../worker/search/embed/runs';

test('runs take texts shortest first and keep rows x longest within the budget', () => {
  const lengths = [40, 5, 30, 6, 41, 7];
  const runs = planRuns(lengths, 90);
  assert.deepEqual(runs, [[1, 3, 5], [2, 0], [4]]);
  for (const run of runs) assert.ok(run.length * Math.max(...run.map((i) => lengths[i])) <= 90, JSON.stringify(run));
  assert.deepEqual(runs.flat().sort((a, b) => a - b), [0, 1, 2, 3, 4, 5], 'every text exactly once');
});

test('a text longer than the budget runs alone; equal lengths keep their order', () => {
  assert.deepEqual(planRuns([500, 10, 10], 100), [[1, 2], [0]]);
  assert.deepEqual(planRuns([3, 3, 3, 3], 6), [[0, 1], [2, 3]]);
});

test('no texts, no runs', () => {
  assert.deepEqual(planRuns([], 256), []);
});

test('capTokens cuts to the cap and leaves shorter texts and cap 0 alone', () => {
  assert.deepEqual(capTokens([1, 2, 3, 4], 2), [1, 2]);
  assert.deepEqual(capTokens([1, 2], 4), [1, 2]);
  assert.deepEqual(capTokens([1, 2, 3], 0), [1, 2, 3]);
});

test('nextJob runs a query first, holds background runs back for holdMs after a query was answered, then runs them', () => {
  const bg = { background: true, left: 3 };
  const q = { background: false, left: 1 };
  const done = { background: false, left: 0 };
  assert.deepEqual(nextJob([bg, q], 1000, 900, 500), { job: q }, 'a query never waits for the hold');
  assert.deepEqual(nextJob([bg, done], 1000, 900, 500), { waitMs: 400 }, 'background held until 500 ms after the answer at 900');
  assert.deepEqual(nextJob([bg], 1400, 900, 500), { job: bg }, 'hold over: background runs');
  assert.deepEqual(nextJob([bg], 1000, -Infinity, 500), { job: bg }, 'no query answered yet: no hold');
  assert.deepEqual(nextJob([bg], 1000, 900, 0), { job: bg }, 'hold 0: the old order');
  assert.equal(nextJob([done, { background: true, left: 0 }], 1000, 900, 500), undefined, 'nothing left to run');
});

test('nextJob lets a backlog held for maxHoldMs in a row run once, however close the queries come', () => {
  const bg = { background: true, left: 3 };
  assert.deepEqual(nextJob([bg], 1000, 900, 500, undefined, 10_000), { waitMs: 400 }, 'not held yet: the usual hold');
  assert.deepEqual(nextJob([bg], 5000, 4900, 500, 0, 10_000), { waitMs: 400 }, 'held 5 s: still the usual hold');
  assert.deepEqual(nextJob([bg], 9800, 9700, 500, 0, 10_000), { waitMs: 200 }, 'the hold ends when the 10 s are up');
  assert.deepEqual(nextJob([bg], 10_000, 9990, 500, 0, 10_000), { job: bg }, 'held 10 s: one run despite the answer 10 ms ago');
});
