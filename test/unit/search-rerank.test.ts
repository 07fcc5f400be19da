// Priors of rerank.ts: substance, question intent, near-duplicate titles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priorInfo, type RecordInfo } from '../../worker/search/records';
import { demoteDuplicates, prior, questionIntents, substance, titleKey } from '../../worker/search/rerank';

const rec = (over: Partial<RecordInfo>) =>
  priorInfo({ kind: 'observation', id: 1, type: 'change', title: 't', project: 'p', sessionId: 1, epoch: 0, readTokens: 10, body: '', concepts: '[]', filesRead: '[]', filesModified: '[]', ...over });

const routine = rec({ type: 'discovery', title: 'Read src/db/pool.ts', body: 'Opened src/db/pool.ts to check database sessions.\nsrc/db/pool.ts: 120 lines read', concepts: '["how-it-works"]', filesRead: '["src/db/pool.ts"]' });
const decision = rec({
  type: 'decision',
  title: 'Background jobs run on arq, not Celery',
  body: 'We only have three job kinds and the whole code base is async. Celery would need a sync worker model, a result backend and its own config surface; arq is a small asyncio job queue on the Redis we already run. Revisit if we ever need scheduled fan-out or priorities.\nworker.py: three functions',
  concepts: '["trade-off"]',
  filesModified: '["tidepool/worker.py"]',
});

test('substance: a decision with a narrative outweighs a one-line read note', () => {
  assert.ok(substance(decision) > 0.85, String(substance(decision)));
  assert.ok(substance(routine) < 0.6, String(substance(routine)));
  assert.equal(substance(rec({ body: '' })), 0);
});

test('question intents: why, where, outcome', () => {
  assert.deepEqual([...questionIntents('why didnt we go with celery')], ['why']);
  assert.deepEqual([...questionIntents('where is spell checking done')], ['where']);
  assert.deepEqual([...questionIntents('what happened with the invoice job')], ['outcome']);
  assert.deepEqual([...questionIntents('where did we land on upgrading postgres')], ['outcome']);
  assert.deepEqual([...questionIntents('token refresh race')], []);
});

test('question intents: chat phrasings of status and rationale; "live" and "picked up" ask for neither', () => {
  for (const q of ['recap of the widget work pls', 'status of the region problem?', "push work, done? what's left", 'NAS slowness, what came out of it', 'is there follow-up work', 'where did we end up with sync', 'did the mac binaries get notarized', '  did we get off cron', 'did anybody ever look at the cpu cost', 'when did we drop webpack']) {
    assert.deepEqual([...questionIntents(q)], ['outcome'], q);
  }
  for (const q of ['how come only the clipper is oversampled', 'what made us skip the built-in sync', 'big rooms hide the list now, was that on purpose']) {
    assert.deepEqual([...questionIntents(q)], ['why'], q);
  }
  // "live" is an adjective here (a live map, notes live on a share), and "picked up" is not a choice.
  for (const q of ['live map leaking', 'changes dont appear, notes live on the nas', 'new files in deep folders dont get picked up']) {
    assert.deepEqual([...questionIntents(q)], [], q);
  }
  assert.deepEqual([...questionIntents('which module the parser lives in')], ['where']);
  assert.deepEqual([...questionIntents('which files have the health entitlement')], ['where']);
  // A yes/no "did …" asks whether something happened only at the start: "why did it fail" does not.
  assert.deepEqual([...questionIntents('why did the nightly fail')], ['why']);
  assert.deepEqual([...questionIntents('which library did we pick for retries')], ['why']);
});

test('prior: substance weight and intent boost multiply', () => {
  const w = { substancePrior: 0.8, intentBoost: 0.3 };
  assert.ok(prior(decision, new Set(), w) > prior(routine, new Set(), w));
  assert.ok(Math.abs(prior(decision, new Set(['why']), w) / prior(decision, new Set(), w) - 1.3) < 1e-9);
  assert.equal(prior(routine, new Set(['why']), w), prior(routine, new Set(), w));
  assert.equal(prior(routine, new Set(), { substancePrior: 0, intentBoost: 0 }), 1);
});

test('near-duplicate titles step behind new ones, order otherwise kept', () => {
  assert.equal(titleKey('Ran npm test: 212 passed'), titleKey('Ran  npm test: 213 passed'));
  const hits = ['Ran npm test: 212 passed', 'Renamed cfg to config', 'Ran npm test: 99 passed', 'Fixed the race', 'Renamed cfg to config'];
  assert.deepEqual(demoteDuplicates(hits, (h) => titleKey(h)), ['Ran npm test: 212 passed', 'Renamed cfg to config', 'Fixed the race', 'Ran npm test: 99 passed', 'Renamed cfg to config']);
  const unique = ['a', 'b'];
  assert.equal(demoteDuplicates(unique, (h) => h), unique);
});
