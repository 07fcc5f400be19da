// The statements a keyword search runs against the full-text index: once the warm-up has read
// the vocabulary (every plain word in more than VOCABULARY_MIN_DF rows, with its count), a word
// searched for the first time costs one statement (its ranking, whose length is its count), not a
// count and then a ranking; a word the vocabulary holds is not counted at all; no candidate's
// existence is asked while no row was ever deleted. The answers stay those of ranking every match,
// rows written after the warm-up and a row deleted included.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListWarmer } from '../../worker/search/listWarmer';
import { VOCABULARY_MIN_DF } from '../../worker/search/termLists';
import type { Store } from '../../worker/store/store';
import { everyMatch, keywordHits, observationWriter, openSearchStore, recording } from '../helpers/searchStore';

const ROWS = 1200;

const addRows = observationWriter((i) => (i % 2 ? 'alpha' : 'beta'));

const matching = (sqls: string[]) => sqls.filter((s) => /observations_fts MATCH/.test(s));
const counting = (sqls: string[]) => matching(sqls).filter((s) => /count\(\*\)/.test(s));

describe('keyword search statements once the vocabulary is read', () => {
  let store: Store;
  let rec: ReturnType<typeof recording>;
  before(async () => {
    store = await openSearchStore('kw-statements-');
    // "common" in half the rows and "fifth" in a fifth (both above VOCABULARY_MIN_DF, under the
    // warm-up's own list threshold), "sparse" in every 40th, "lonely" in three.
    await addRows(store, ROWS, (i) => `${i % 2 ? 'common' : 'other'} text ${i % 5 === 1 ? 'fifth' : ''} ${i % 40 === 0 ? 'sparse' : ''} ${i % 400 === 7 ? 'lonely' : ''} tail${i}`);
    rec = recording(store, { writes: false });
    const warmer = new ListWarmer(rec.db, 8);
    for (const _ of warmer.steps());
    rec.take();
  });
  after(() => store.close(false));

  const search = (q: string, depth = 20) => keywordHits(rec.db, q, depth);

  it('ranks a word searched for the first time in one full-text statement, counting nothing', async () => {
    assert.ok(ROWS / 40 < VOCABULARY_MIN_DF, 'the word is rare');
    const got = await search('sparse');
    const sqls = rec.take();
    assert.deepEqual(counting(sqls), [], 'no count statement');
    assert.equal(matching(sqls).length, 1, `one statement on the index: ${matching(sqls).join(' | ')}`);
    assert.deepEqual(got, everyMatch(store, ['sparse'], 20));
  });

  it('takes a word the vocabulary holds from the vocabulary, without counting it', async () => {
    await search('common');
    assert.deepEqual(counting(rec.take()), [], 'the count of a word in 600 rows came from the vocabulary');
  });

  it('gives the answers of ranking every match for a mix of rare and commoner words', async () => {
    // (Words in more than a fifth of the rows are left out beside a rarer one: none of these is.)
    for (const q of ['lonely fifth', 'sparse lonely', 'fifth sparse tail7', 'fifth']) {
      assert.deepEqual(await search(q, 50), everyMatch(store, q.split(' '), 50), q);
    }
  });

  it('finds a word first written after the vocabulary was read', async () => {
    await addRows(store, 3, () => 'quillwort by the water');
    const got = await search('quillwort');
    assert.equal(got.length, 3);
    assert.deepEqual(got, everyMatch(store, ['quillwort'], 20));
  });

  it('asks nothing about existence while no row was ever deleted, and a deleted row is gone at once', async () => {
    const existence = (sqls: string[]) => sqls.filter((s) => /observations_fts_docsize d\b/.test(s));
    const first = await search('sparse', 100);
    assert.deepEqual(existence(rec.take()), [], 'as many rows as the highest id: no existence statement');
    await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [first[0].id]));
    const got = await search('sparse', 100);
    assert.equal(existence(rec.take()).length, 1, 'existence asked once a row was deleted');
    assert.ok(!got.some((h) => h.id === first[0].id), 'the deleted row is not found');
    // The same rows as ranking every match (the word's cached count, a statistic, is from before the delete).
    const ids = (hits: { id: number }[]) => hits.map((h) => h.id).sort((a, b) => a - b);
    assert.deepEqual(ids(got), ids(everyMatch(store, ['sparse'], 100)));
    assert.equal(got.length, first.length - 1);
  });
});
