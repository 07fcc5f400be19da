// The small reads a search repeats on an unchanged store are kept until its next write
// (worker/store/untilWrite.ts): a word ranked for the first time reads no row lengths or averages
// again while nothing was written, and rows written later are read and ranked as SQL ranks them;
// a write, and a rolled-back one, make a kept answer read again; the freshness and team steps of a
// search page ask nothing while nothing was written, and a memory retired since is marked at once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchRow } from '../../common/contract';
import { annotateRows } from '../../worker/freshness/search';
import { DEFAULT_FRESHNESS } from '../../worker/freshness/settings';
import { lastBranch } from '../../worker/freshness/state';
import { ListWarmer } from '../../worker/search/listWarmer';
import type { Store } from '../../worker/store/store';
import { untilWrite } from '../../worker/store/untilWrite';
import { labelTeamItems } from '../../worker/team/labels';
import { titleKey } from '../../worker/search/rerank';
import { everyMatch, keywordHits, observationWriter, openSearchStore, recording, T0 } from '../helpers/searchStore';

const addRows = observationWriter(() => 'alpha');

const lengthReads = (sqls: string[]) => sqls.filter((s) => /_docsize WHERE docid > \?/.test(s));
const averageReads = (sqls: string[]) => sqls.filter((s) => /_stat WHERE id = 0/.test(s));

describe('reads kept until the next write', () => {
  let store: Store;
  let rec: ReturnType<typeof recording>;
  before(async () => {
    store = await openSearchStore('until-write-');
    await addRows(store, 600, (i) => `${i % 2 ? 'common' : 'other'} text ${i % 30 === 0 ? 'sparse' : ''} ${i % 200 === 7 ? 'lonely' : ''} ${i % 50 === 3 ? 'rarer' : ''} tail${i}`);
    rec = recording(store, { writes: true });
    // The warm-up reads the lengths (and the vocabulary), as the worker's does after start.
    for (const _ of new ListWarmer(rec.db, 8).steps());
    rec.take();
  });
  after(() => store.close(false));

  const search = (q: string, depth = 20) => keywordHits(rec.db, q, depth);

  it('ranks new words without reading the lengths or averages again while nothing was written', async () => {
    await search('sparse');
    rec.take();
    for (const q of ['lonely', 'rarer tail7', 'tail13']) {
      const got = await search(q);
      const sqls = rec.take();
      assert.deepEqual(lengthReads(sqls), [], `${q}: no catch-up of the lengths`);
      assert.deepEqual(averageReads(sqls), [], `${q}: no read of the averages`);
      assert.deepEqual(got, everyMatch(store, q.split(' '), 20), q);
    }
  });

  it('reads the rows written since, once, and ranks them as SQL does', async () => {
    await addRows(store, 4, (i) => `quillwort by the water, quillwort again ${i % 2 ? 'sparse' : ''}`);
    const got = await search('quillwort');
    const sqls = rec.take();
    assert.equal(lengthReads(sqls).length, 1, 'the lengths caught up once');
    assert.equal(got.length, 4);
    assert.deepEqual(got, everyMatch(store, ['quillwort'], 20));
    const sparse = await search('sparse', 100);
    const added = store.all<{ id: number }>(`SELECT id FROM observations WHERE narrative LIKE 'quillwort%sparse%'`).map((r) => r.id);
    assert.equal(added.length, 2);
    for (const id of added) assert.ok(sparse.some((h) => h.id === id), `row ${id}, written since, is in the kept list of "sparse"`);
    assert.deepEqual(lengthReads(rec.take()), [], 'and the lengths are not read again');
  });

  it('keeps an answer until a write, a rolled-back one included; a reader without a write count reads every time', async () => {
    let reads = 0;
    const read = () => ++reads;
    assert.equal(untilWrite(store, 'probe', read), 1);
    assert.equal(untilWrite(store, 'probe', read), 1, 'kept');
    await addRows(store, 1, () => 'one more');
    assert.equal(untilWrite(store, 'probe', read), 2, 'read again after a write');
    await assert.rejects(
      store.write((tx) => {
        tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (2, 'claude-code', 's2', 'beta', 'active', ?, ?)`, [T0, T0]);
        untilWrite(store, 'probe', read);
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(reads, 3, 'read again inside the transaction, after its statement');
    assert.equal(untilWrite(store, 'probe', read), 4, 'what the rolled-back transaction showed is not kept');
    const bare = { all: store.all.bind(store) };
    assert.equal(untilWrite(bare, 'probe', read), 5);
    assert.equal(untilWrite(bare, 'probe', read), 6, 'no write count: read every time');
  });

  it('asks the freshness and team steps nothing while nothing was written, and marks a memory retired since', async () => {
    const rows = (): SearchRow[] =>
      store.all<{ id: number }>('SELECT id FROM observations ORDER BY id LIMIT 5').map((r) => ({ kind: 'observation', id: r.id, ref: String(r.id), type: 'change', title: 't', project: 'alpha', sessionId: 1, time: '', epoch: 0, readTokens: 1, score: 1 }));
    const page = () => labelTeamItems(rec.db, annotateRows(rec.db, rows(), lastBranch(rec.db, 'alpha'), DEFAULT_FRESHNESS));
    const first = page();
    assert.ok(rec.take().length > 0, 'the first page asks');
    assert.deepEqual(page(), first);
    assert.deepEqual(rec.take(), [], 'the next page of an unchanged store asks nothing');
    assert.ok(first.every((r) => (r as SearchRow).freshness === undefined && (r as SearchRow).branch === undefined));
    const id = first[2].id;
    await store.write((tx) => tx.run(`INSERT INTO memory_state (observation_id, status, at) VALUES (?, 'retired', ?)`, [id, T0]));
    const marked = page();
    assert.equal((marked.find((r) => r.id === id) as SearchRow).freshness, 'retired', 'retired at once');
    assert.equal(marked[marked.length - 1].id, id, 'and moved after the rest of the page');
  });

  it('works out a title\'s key once, with the answer of working it out afresh', () => {
    const fresh = (t: string) => t.toLowerCase().replace(/[0-9]+/g, '#').replace(/\s+/g, ' ').trim();
    // More titles than are kept: the keys stay right across the clearing.
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 5000; i++) {
        const t = `  Ran npm test:\t${i} passed  ${i % 7 ? 'OK' : 'Ünïcode'} `;
        assert.equal(titleKey(t), fresh(t));
      }
    }
  });
});
