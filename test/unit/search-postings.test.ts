// A word's matches read straight from FTS4's segments (ftsPostings.ts) are exactly what
// `MATCH` and matchinfo 'y' give: over segments of every level (many small writes merged, one
// large write with interior nodes), after deletes and updates (delete markers in newer segments),
// for every full-text table, with docid windows; and a word's list ranked from them (termLists.ts)
// has the same rows and the same numbers as ranking through SQL.
import { before, after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { bm25Idf, registerSearchFunctions } from '../../worker/search/bm25';
import { buildDocLengths } from '../../worker/search/docLengths';
import { readTermHits } from '../../worker/search/ftsPostings';
import { KINDS, type KindTable } from '../../worker/search/records';
import { scoreFromSegments, termList } from '../../worker/search/termLists';
import { insertObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { seededWords } from '../helpers/seeded';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2025, 0, 1);
const VOCAB = Array.from({ length: 60 }, (_, i) => `w${i}k`);
const { rand, words } = seededWords(11, VOCAB);
const COLS: [KindTable, number][] = [
  [KINDS.observation, 7],
  [KINDS.summary, 6],
  [KINDS.prompt, 1],
];

let made = 0;
async function add(store: Store, n: number): Promise<void> {
  await store.write((tx) => {
    for (let i = 0; i < n; i++, made++) {
      insertObservation(tx, {
        sessionId: 1,
        project: 'p',
        type: 'change',
        title: words(1 + Math.floor(rand() * 6)),
        subtitle: rand() < 0.5 ? words(3) : undefined,
        narrative: words(3 + Math.floor(rand() * 80)),
        facts: rand() < 0.6 ? [words(5)] : [],
        concepts: [],
        filesModified: rand() < 0.5 ? [`src/${VOCAB[made % 60]}/handlers.ts`] : [],
        toolName: 'Edit',
        promptNumber: 1,
        contentHash: `h${made}`,
        source: 'local',
        createdAt: T0 + made * 60_000,
      });
      if (i % 3 === 0) {
        tx.run('INSERT INTO user_prompts (session_id, project, prompt_number, text, created_at) VALUES (1, ?, ?, ?, ?)', ['p', made, words(2 + Math.floor(rand() * 20)), T0 + made]);
        tx.run('INSERT INTO session_summaries (session_id, project, request, learned, content_hash, created_at) VALUES (1, ?, ?, ?, ?, ?)', ['p', words(4), words(20), `s${made}`, T0 + made]);
      }
    }
  });
}

/** Every row matching the word, with matchinfo 'y', through SQL. */
function viaSql(store: Store, k: KindTable, cols: number, word: string): { ids: number[]; hits: number[] } {
  const rows = store.all<{ id: number; y: Uint8Array }>(`SELECT docid AS id, matchinfo(${k.fts}, 'y') AS y FROM ${k.fts} WHERE ${k.fts} MATCH ? ORDER BY docid`, [`"${word}"`]);
  return { ids: rows.map((r) => r.id), hits: rows.flatMap((r) => [...new Uint32Array(r.y.slice().buffer, 0, cols)]) };
}

function assertAllWordsAgree(store: Store, what: string): number {
  let compared = 0;
  for (const [k, cols] of COLS) {
    for (const word of [...VOCAB, 'src', 'handler', 'ts', 'absent']) {
      const want = viaSql(store, k, cols, word);
      const got = readTermHits(store, k.fts, word, cols);
      assert.ok(got, `${what}: ${k.fts} ${word} read`);
      assert.deepEqual([...got.ids], want.ids, `${what}: ${k.fts} ${word} rows`);
      assert.deepEqual([...got.hits], want.hits, `${what}: ${k.fts} ${word} hits`);
      compared += want.ids.length;
    }
  }
  return compared;
}

describe('a word read from the FTS4 segments', () => {
  let store: Store;
  before(async () => {
    store = await Store.open({ dir: path.join(tempDir('postings-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    registerSearchFunctions(store);
    await store.write((tx) => tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'p', 'completed', ?, ?)`, [T0, T0]));
    await add(store, 1500); // one segment with interior nodes
    for (let i = 0; i < 40; i++) await add(store, 10); // level-0 segments, merged 16 at a time
  });
  after(() => store.close(false));

  it('gives every row and hit MATCH gives, over every level and a b-tree with interior nodes', () => {
    const segs = store.all<{ level: number; root: Uint8Array }>('SELECT level, root FROM observations_fts_segdir');
    assert.ok(new Set(segs.map((s) => s.level)).size >= 2, `segments on ${segs.length} levels`);
    assert.ok(
      segs.some((s) => s.root[0] > 0),
      'a segment whose root is an interior node',
    );
    assert.ok(assertAllWordsAgree(store, 'added') > 20_000);
  });

  it('takes the newest entry of a row: deleted rows and updated rows', async () => {
    await store.write((tx) => {
      tx.run('DELETE FROM observations WHERE id % 7 = 0');
      tx.run('DELETE FROM user_prompts WHERE id % 5 = 0');
      tx.run(`UPDATE observations SET narrative = ? WHERE id % 11 = 0`, [`${VOCAB[59]} ${VOCAB[58]} ${VOCAB[0]}`]);
    });
    await add(store, 30);
    assertAllWordsAgree(store, 'after deletes and updates');
  });

  it('reads a partly merged index or gives up, and an optimized one', async () => {
    await add(store, 200);
    for (let i = 0; i < 20; i++) await add(store, 5);
    // An incremental merge of one block: its output segment is not finished.
    await store.write((tx) => tx.run(`INSERT INTO observations_fts(observations_fts) VALUES ('merge=1,2')`));
    for (const word of VOCAB.slice(0, 20)) {
      const got = readTermHits(store, KINDS.observation.fts, word, 7);
      if (got === undefined) continue; // left to SQL
      const want = viaSql(store, KINDS.observation, 7, word);
      assert.deepEqual([...got.ids], want.ids, `partly merged: ${word}`);
      assert.deepEqual([...got.hits], want.hits, `partly merged: ${word}`);
    }
    await store.write((tx) => {
      for (const [k] of COLS) tx.run(`INSERT INTO ${k.fts}(${k.fts}) VALUES ('optimize')`);
    });
    assert.equal(store.all('SELECT 1 FROM observations_fts_segdir').length, 1, 'one segment');
    assertAllWordsAgree(store, 'optimized');
  });

  it('keeps only the rows of a docid window', () => {
    const k = KINDS.observation;
    const all = viaSql(store, k, 7, VOCAB[0]).ids;
    const lo = all[Math.floor(all.length / 3)];
    const hi = all[Math.floor((2 * all.length) / 3)];
    const got = readTermHits(store, k.fts, VOCAB[0], 7, lo, hi);
    assert.deepEqual(
      [...(got?.ids ?? [])],
      all.filter((id) => id > lo && id <= hi),
    );
  });

  it('scores a word like SQL does, to the bit, and keeps the best rows SQL would; a prefix or a phrase is left to SQL', () => {
    let cut = 0;
    for (const [k, cols] of COLS) {
      const maxId = Number(store.all<{ m: number }>(`SELECT max(id) AS m FROM ${k.table}`)[0].m);
      const steps = buildDocLengths(store, k, cols);
      for (let r = steps.next(); !r.done; r = steps.next());
      const rows = Number(store.all<{ n: number }>(`SELECT count(*) AS n FROM ${k.fts}`)[0].n);
      for (const word of [VOCAB[0], VOCAB[3], VOCAB[40], 'handlers']) {
        bm25Idf.values = [1];
        const want = store.all<{ id: number; s: number }>(
          `SELECT docid AS id, cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}') AS s FROM ${k.fts} WHERE ${k.fts} MATCH ? ORDER BY s DESC, docid DESC`,
          [`"${word}"`],
        );
        const got = scoreFromSegments(store, k, `"${word}"`, 0, Infinity);
        assert.ok(got, `${k.fts} ${word}: scored from the segments`);
        const byId = [...want].sort((a, b) => a.id - b.id);
        assert.deepEqual([...got.ids], byId.map((r) => r.id), `${k.fts} ${word}: rows in id order`);
        assert.deepEqual([...got.s], byId.map((r) => r.s), `${k.fts} ${word}: parts`);
        // A list of the best 5 (the word in more rows than SEGMENTS_MIN_DF: from the segments).
        if (want.length <= 6) continue;
        cut++;
        const list = termList(store, k, `"${word}"`, 5, rows, maxId, Date.now());
        const best = want.slice(0, 5).sort((a, b) => a.id - b.id);
        assert.deepEqual([...list.ids], best.map((r) => r.id), `${k.fts} ${word}: the best 5, in id order`);
        assert.deepEqual([...list.parts], best.map((r) => r.s), `${k.fts} ${word}: their parts`);
        assert.equal(list.floor, want[5].s, `${k.fts} ${word}: the floor is the sixth best part`);
        assert.equal(list.complete, false);
      }
    }
    assert.ok(cut >= 9, `lists cut: ${cut}`);
    assert.equal(scoreFromSegments(store, KINDS.observation, `"${VOCAB[1].slice(0, 2)}*"`, 0, Infinity), undefined);
    assert.equal(scoreFromSegments(store, KINDS.observation, `"${VOCAB[1]} ${VOCAB[2]}"`, 0, Infinity), undefined);
  });

  it('gives up, never guesses, on a segment it cannot read', async () => {
    const scratch = await Store.open({ dir: path.join(tempDir('postings-bad-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    try {
      await migrate(scratch);
      await scratch.write((tx) => tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'p', 'completed', ?, ?)`, [T0, T0]));
      await add(scratch, 5);
      // A leaf whose doclist size runs past its end.
      await scratch.write((tx) => tx.run(`UPDATE observations_fts_segdir SET root = X'0003${Buffer.from(VOCAB[0]).toString('hex')}7F00'`));
      assert.equal(readTermHits(scratch, KINDS.observation.fts, VOCAB[0], 7), undefined);
    } finally {
      scratch.close(false);
    }
  });
});
