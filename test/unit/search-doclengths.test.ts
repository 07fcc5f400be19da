// Rows' lengths in memory (docLengths.ts): BM25 from matchinfo 'y' and those lengths gives exactly
// the numbers matchinfo 'pcnaly' gives, for every kind of full-text table, for a column longer than
// 65,535 tokens, after rows are added and deleted; and until the lengths are read, 'pcnaly' is used.
// Builds under way at once share their reading, and a common word's first list reads them first.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { bm25Idf, partSql, registerSearchFunctions } from '../../worker/search/bm25';
import { buildDocLengths, columnAverages, docLengths } from '../../worker/search/docLengths';
import { KINDS, type KindTable } from '../../worker/search/records';
import { buildInSteps, LIST_SIZE, termList } from '../../worker/search/termLists';
import { insertObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { seededWords } from '../helpers/seeded';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2025, 0, 1);
const VOCAB = Array.from({ length: 40 }, (_, i) => `v${i}q`);
const { rand, words } = seededWords(7, VOCAB);

let made = 0;
async function addObservations(store: Store, n: number, narrative = () => words(5 + Math.floor(rand() * 300))): Promise<void> {
  await store.write((tx) => {
    for (let i = 0; i < n; i++, made++) {
      insertObservation(tx, {
        sessionId: 1,
        project: 'p',
        type: 'change',
        title: words(1 + Math.floor(rand() * 8)),
        subtitle: rand() < 0.5 ? words(3) : undefined,
        narrative: narrative(),
        facts: rand() < 0.7 ? [words(6), words(4)] : [],
        concepts: rand() < 0.3 ? ['gotcha'] : [],
        filesModified: rand() < 0.5 ? [`src/${VOCAB[made % 40]}.ts`] : [],
        toolName: 'Edit',
        promptNumber: 1,
        contentHash: `h${made}`,
        source: 'local',
        createdAt: T0 + made * 60_000,
      });
    }
  });
}

async function addPromptsAndSummaries(store: Store, n: number): Promise<void> {
  await store.write((tx) => {
    for (let i = 0; i < n; i++, made++) {
      tx.run('INSERT INTO user_prompts (session_id, project, prompt_number, text, created_at) VALUES (1, ?, ?, ?, ?)', ['p', made, words(2 + Math.floor(rand() * 40)), T0 + made]);
      tx.run('INSERT INTO session_summaries (session_id, project, request, learned, next_steps, content_hash, created_at) VALUES (1, ?, ?, ?, ?, ?, ?)', ['p', words(5), words(30), rand() < 0.5 ? words(4) : null, `s${made}`, T0 + made]);
    }
  });
}

/** Every matching row's score both ways: [pcnaly, from lengths]. */
function bothWays(store: Store, k: KindTable, match: string, idfs: number[]): [Map<number, number>, Map<number, number>] {
  bm25Idf.values = idfs;
  const sql = (part: string) => `SELECT docid AS id, ${part} AS s FROM ${k.fts} WHERE ${k.fts} MATCH ?`;
  const old = store.all<{ id: number; s: number }>(sql(`cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}')`), [match]);
  const part = partSql(store, k);
  assert.match(part, /cm_bm25y/, 'scored from the lengths');
  const now = store.all<{ id: number; s: number }>(sql(part), [match]);
  return [new Map(old.map((r) => [r.id, r.s])), new Map(now.map((r) => [r.id, r.s]))];
}

function assertSameScores(store: Store, k: KindTable, what: string): void {
  let rows = 0;
  for (const [match, idfs] of [
    [`"${VOCAB[0]}"`, [1]],
    [`"${VOCAB[5]}" OR "${VOCAB[20]}"`, [0.7, 2.3]],
    [`"${VOCAB[1]}" OR "${VOCAB[2]}" OR "${VOCAB[39]}"`, [0.2, 0.5, 4.1]],
  ] as [string, number[]][]) {
    const [old, now] = bothWays(store, k, match, idfs);
    assert.ok(old.size > 0, `${what}: ${match} matches`);
    assert.deepEqual([...now.keys()].sort((a, b) => a - b), [...old.keys()].sort((a, b) => a - b));
    for (const [id, s] of old) assert.equal(now.get(id), s, `${what}: ${match}, row ${id}`); // the same number, not a close one
    rows += old.size;
  }
  assert.ok(rows > 50, `${what}: ${rows} rows compared`);
}

describe('BM25 from lengths in memory', () => {
  let store: Store;
  before(async () => {
    store = await Store.open({ dir: path.join(tempDir('doclengths-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    registerSearchFunctions(store);
    await store.write((tx) => tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'p', 'completed', ?, ?)`, [T0, T0]));
    await addObservations(store, 400);
    // A narrative past 65,535 tokens: its length does not fit the 16-bit array.
    await addObservations(store, 1, () => `${VOCAB[0]} ${'filler '.repeat(70_000)}${VOCAB[5]}`);
    await addPromptsAndSummaries(store, 200);
  });
  after(() => store.close(false));

  it('uses matchinfo pcnaly until the lengths are read', () => {
    assert.equal(docLengths(store, KINDS.observation), undefined);
    assert.match(partSql(store, KINDS.observation), /'pcnaly'/);
  });

  it('gives the same numbers as pcnaly for every table, a column of 70,000 tokens included', () => {
    for (const k of [KINDS.observation, KINDS.summary, KINDS.prompt]) {
      const steps = buildDocLengths(store, k, k === KINDS.observation ? 7 : k === KINDS.summary ? 6 : 1, 64);
      let r = steps.next();
      let yields = 0;
      for (; !r.done; r = steps.next()) yields++;
      assert.ok(yields >= 3, `${k.fts}: read a page at a time (${yields} yields)`);
      assertSameScores(store, k, k.fts);
    }
    const d = docLengths(store, KINDS.observation);
    assert.equal(d?.long.size, 1, 'the long narrative is kept aside');
    assert.ok([...(d?.long.values() ?? [])][0] > 70_000);
  });

  it('follows rows added and deleted after they were read, and the averages FTS4 keeps', async () => {
    const k = KINDS.observation;
    const before = columnAverages(store, k, 7);
    await addObservations(store, 150, () => words(400)); // longer than most: the averages move
    await store.write((tx) => tx.run('DELETE FROM observations WHERE id % 9 = 0'));
    const after = columnAverages(store, k, 7);
    assert.notDeepEqual(after, before);
    // FTS4's own figures: matchinfo 'a' of any matching row.
    const mi = store.all<{ a: Uint8Array }>(`SELECT matchinfo(${k.fts}, 'a') AS a FROM ${k.fts} WHERE ${k.fts} MATCH ? LIMIT 1`, [`"${VOCAB[0]}"`])[0].a;
    assert.deepEqual([...new Uint32Array(mi.buffer, mi.byteOffset, 7)], [...(after ?? [])]);
    assertSameScores(store, k, 'after adds and deletes');
    assert.equal(docLengths(store, k)?.maxId, Number(store.get<{ m: number }>('SELECT max(id) AS m FROM observations')?.m));
  });
});

describe('reading the lengths', () => {
  let store: Store;
  before(async () => {
    store = await Store.open({ dir: path.join(tempDir('doclengths-read-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    registerSearchFunctions(store);
    await store.write((tx) => tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'p', 'completed', ?, ?)`, [T0, T0]));
    await addObservations(store, 400, () => `${VOCAB[3]} ${words(5 + Math.floor(rand() * 60))}`);
  });
  after(() => store.close(false));

  /** The store as search reads it, counting the statements whose SQL holds `what` (each view keeps its own lengths and lists). */
  const counted = (what: string) => {
    const view = { n: 0, all: <T>(sql: string, params?: (string | number | null | Uint8Array)[]) => (sql.includes(what) && view.n++, store.all<T>(sql, params)) };
    return view;
  };

  it('shares its progress between builds of one table under way at once', () => {
    const k = KINDS.observation;
    const view = counted('_docsize');
    const first = buildDocLengths(view, k, 7, 64);
    first.next();
    first.next();
    const second = buildDocLengths(view, k, 7, 64);
    let r = second.next();
    while (!r.done) r = second.next();
    assert.equal(view.n, Math.ceil(401 / 64), 'each page of docsize rows read once');
    assert.equal(first.next().value, r.value, 'the first build ends with the lengths the second kept');
    assert.equal(docLengths(view, k), r.value);
    const alone = counted('_docsize');
    const steps = buildDocLengths(alone, k, 7, 64);
    let a = steps.next();
    while (!a.done) a = steps.next();
    assert.deepEqual(r.value.len, a.value.len, 'the same lengths as one build alone');
  });

  it('are read first by a common word\'s list built before the start-up fill read them, which then comes from the segments', () => {
    const k = KINDS.observation;
    const phrase = `"${VOCAB[3]}"`;
    const rows = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n);
    const view = counted('MATCH');
    assert.equal(docLengths(view, k), undefined);
    const steps = buildInSteps(view, k, phrase, rows, rows);
    while (!steps.next().done);
    assert.ok(docLengths(view, k), 'the lengths were read');
    assert.equal(view.n, 0, 'no matches ranked through SQL');
    const list = termList(view, k, phrase, LIST_SIZE, rows, rows, Date.now());
    assert.equal(view.n, 0, 'the list was kept');
    // Ranked through SQL from matchinfo 'pcnaly' on a view with no lengths: the same rows and parts.
    const bySql = termList(counted('MATCH'), k, phrase, LIST_SIZE, rows, rows, Date.now(), 0);
    assert.equal(list.ids.length, rows);
    assert.deepEqual([...list.ids], [...bySql.ids]);
    assert.deepEqual([...list.parts], [...bySql.parts]);
  });
});
