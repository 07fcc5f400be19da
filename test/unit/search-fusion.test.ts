// Hybrid refinements chosen on the development sets (docs/search.md): the keyword list's best two
// and the vector list's best keep a place near the top after fusion, and chat words for a problem
// add the words notes use for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { fuseHybrid } from '../../worker/search/hybrid';
import type { SearchHit } from '../../worker/search/hit';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';

const hit = (id: number, score: number): SearchHit => ({ kind: 'observation', id, epoch: 0, score });
const base = { ...DEFAULT_SEARCH_SETTINGS, rrfK: 60, recencyWeight: 0, recencyHalfLifeDays: 30, keywordMinRelative: 0.3, vectorWindow: 0.1, vectorMinScore: -Infinity, keywordLeadRatio: 0, keywordLeaderFloor: 0, vectorLeaderFloor: 0, promptWeight: 0 };

test('the best keyword hit stays in the top 3 and the runner-up in the top 5, however the vector side votes', () => {
  // 1 and 2 lead the keyword list; the vector list is all look-alikes (10..19) that also match a few words.
  const keyword = [hit(1, 10), hit(2, 9.5), ...Array.from({ length: 10 }, (_, i) => hit(10 + i, 9 - i * 0.1))];
  const vector = Array.from({ length: 10 }, (_, i) => hit(10 + i, 0.6 - i * 0.001));
  const plain = fuseHybrid(keyword, vector, [], { ...base, keywordLeaderFloor: 0 }, 0).map((f) => f.id);
  assert.ok(plain.indexOf(1) > 4 && plain.indexOf(2) > 4, `without the floor both fall out of the top 5: ${plain.join(',')}`);
  const floored = fuseHybrid(keyword, vector, [], { ...base, keywordLeaderFloor: 3 }, 0).map((f) => f.id);
  assert.equal(floored.indexOf(1), 2, floored.join(','));
  assert.equal(floored.indexOf(2), 4, floored.join(','));
  // Already higher: left where fusion put it.
  const agree = fuseHybrid(keyword, [hit(1, 0.7), ...vector], [], { ...base, keywordLeaderFloor: 3 }, 0).map((f) => f.id);
  assert.equal(agree[0], 1);
});

test('the best vector hit stays in the top 4 when every keyword hit outvotes it', () => {
  // The keyword list is look-alikes 10..19 that the vector list also holds lower down; the vector
  // list's best, 1, has no keyword match at all.
  const keyword = Array.from({ length: 10 }, (_, i) => hit(10 + i, 9 - i * 0.1));
  const vector = [hit(1, 0.62), ...Array.from({ length: 10 }, (_, i) => hit(10 + i, 0.6 - i * 0.001))];
  const plain = fuseHybrid(keyword, vector, [], { ...base, keywordLeaderFloor: 0 }, 0).map((f) => f.id);
  assert.ok(plain.indexOf(1) > 4, `without the floor it falls out of the top 5: ${plain.join(',')}`);
  const floored = fuseHybrid(keyword, vector, [], { ...base, keywordLeaderFloor: 0, vectorLeaderFloor: 4 }, 0).map((f) => f.id);
  assert.equal(floored.indexOf(1), 3, floored.join(','));
  assert.deepEqual(floored.filter((id) => id !== 1), plain.filter((id) => id !== 1), 'the rest keep their order');
  // Already higher: left where fusion put it.
  const agree = fuseHybrid([hit(1, 10), ...keyword], vector, [], { ...base, vectorLeaderFloor: 4 }, 0).map((f) => f.id);
  assert.equal(agree[0], 1);
});

test('vectorMinScore: vector hits under the floor do not vote, even when the relative window would keep them', () => {
  const vector = [hit(1, 0.12), hit(2, 0.1), hit(3, 0.05)];
  assert.deepEqual(fuseHybrid([], vector, [], base, 0).map((f) => f.id), [1, 2, 3], 'the window keeps all three');
  assert.deepEqual(fuseHybrid([], vector, [], { ...base, vectorMinScore: 0.2 }, 0).map((f) => f.id), []);
  assert.deepEqual(fuseHybrid([hit(9, 5)], [hit(1, 0.5), ...vector], [], { ...base, vectorMinScore: 0.2 }, 0).map((f) => f.id).sort(), [1, 9]);
  // The floor reads the cosine, not the corrected score: the density correction and priors can take
  // a fair match below 0, and 0 (the default) must stay "off".
  const corrected = [{ ...hit(1, -0.02), cosine: 0.15 }, { ...hit(2, -0.06), cosine: 0.12 }];
  assert.deepEqual(fuseHybrid([], corrected, [], { ...base, vectorMinScore: 0 }, 0).map((f) => f.id), [1, 2]);
  assert.deepEqual(fuseHybrid([], corrected, [], { ...base, vectorMinScore: 0.13 }, 0).map((f) => f.id), [1]);
});
