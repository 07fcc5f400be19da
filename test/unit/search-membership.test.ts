// Keyword search is exact about what exists, whatever its caches hold: every record that holds a
// word is found by it (ranking every match: depth past the match count) and no deleted one is,
// after (1) a search cached the word's count as 0, (2) a search made and kept the word's ranked
// list, (3) the warm-up made lists, row facts and lengths from the files before the latest writes
// and deletes (what its child process does: the same recovery from the files, the same steps),
// (4) a facts build stepped over rows written between its pages. Real stores on real files.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { register, registerSearchFunctions } from '../../worker/search/bm25';
import { ftsRowCount } from '../../worker/search/docLengths';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { keywordSearch } from '../../worker/search/keyword';
import { ListWarmer } from '../../worker/search/listWarmer';
import type { SearchFilters } from '../../worker/search/params';
import { KINDS } from '../../worker/search/records';
import { buildFacts, passes, projectCode, rowFacts } from '../../worker/search/rowFacts';
import { exportLists, importLists, listBuilds } from '../../worker/search/termLists';
import { StatementCache } from '../../worker/store/apply';
import type { Param } from '../../worker/store/records';
import { recover } from '../../worker/store/recovery';
import { insertObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store, type Row } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2025, 0, 1);
const PROJECTS = ['alpha', 'beta', 'gamma'];

async function openStore(dir: string): Promise<Store> {
  const store = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  registerSearchFunctions(store);
  await store.write((tx) => {
    tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'alpha', 'completed', ?, ?)`, [T0, T0]);
  });
  return store;
}

let made = 0;
async function add(store: Store, texts: string[], project?: string): Promise<number[]> {
  return store.write((tx) =>
    texts.map((text) => {
      const n = made++;
      const id = insertObservation(tx, {
        sessionId: 1, project: project ?? PROJECTS[n % 3], type: 'change', title: text.split(' ').slice(0, 3).join(' '), narrative: text,
        facts: [], toolName: 'Edit', promptNumber: 1, contentHash: `m${n}`, source: 'local', createdAt: T0 + n * 60_000,
      });
      assert.ok(id !== undefined);
      return id;
    }),
  );
}

async function remove(store: Store, id: number): Promise<void> {
  await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [id]));
}

/** Ids keyword search returns for one word with every match ranked. */
async function found(store: Store, word: string, project?: string): Promise<number[]> {
  const q = parseFtsQuery(word);
  assert.ok(q);
  const f: SearchFilters = { kinds: ['observation'], ...(project ? { project } : {}) };
  const hits = await keywordSearch(store, q, f, 100_000);
  return hits.map((h) => h.id).sort((a, b) => a - b);
}

/** What exists: the rows the full-text index matches, in the project when given. */
function truth(store: Store, word: string, project?: string): number[] {
  // The index's matches first (a join would let SQLite run the match once per row of the table).
  return store
    .all<{ id: number }>(
      `SELECT id FROM observations WHERE id IN (SELECT docid FROM observations_fts WHERE observations_fts MATCH ?)${project ? ' AND project = ?' : ''} ORDER BY id`,
      project ? [`"${word}"`, project] : [`"${word}"`],
    )
    .map((r) => r.id);
}

async function assertExact(store: Store, word: string, what: string): Promise<void> {
  for (const project of [undefined, ...PROJECTS]) {
    assert.deepEqual(await found(store, word, project), truth(store, word, project), `${what}: "${word}" in ${project ?? 'every project'}`);
  }
}

describe('keyword search membership', () => {
  let store: Store;
  before(async () => {
    store = await openStore(path.join(tempDir('membership-'), 'db'));
    await add(store, Array.from({ length: 15 }, (_, i) => `note ${i} about the cache`), 'alpha');
  });
  after(() => store.close(false));

  it('a word counted in no record is found in the next record that has it', async () => {
    assert.deepEqual(await found(store, 'giraffe309203558'), []);
    assert.deepEqual(await found(store, 'giraffe309203558', 'alpha'), []);
    const [id] = await add(store, ['the giraffe309203558 is tall'], 'alpha');
    assert.deepEqual(await found(store, 'giraffe309203558', 'alpha'), [id]);
    await assertExact(store, 'giraffe309203558', 'after the first record');
    await add(store, ['giraffe309203558 again'], 'beta');
    await assertExact(store, 'giraffe309203558', 'after a second record');
    await remove(store, id);
    await assertExact(store, 'giraffe309203558', 'after a delete');
  });

  it("the row count searches read from the index's stat row is the table's, after adds and deletes", async () => {
    const count = () => Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n);
    assert.equal(ftsRowCount(store, KINDS.observation), count());
    const ids = await add(store, ['one more', 'and another']);
    assert.equal(ftsRowCount(store, KINDS.observation), count());
    await remove(store, ids[0]);
    assert.equal(ftsRowCount(store, KINDS.observation), count());
  });

  it('a word whose list is kept: rows added after the list are in it, deleted ones are not', async () => {
    await add(store, Array.from({ length: 400 }, (_, i) => `heron colony ${i} ${'reed '.repeat(i % 5)}`));
    const builds = listBuilds(store);
    await assertExact(store, 'heron', 'list made');
    assert.ok(listBuilds(store) > builds, 'the search made a list');
    const kept = listBuilds(store);
    const ids = await add(store, ['heron heron', 'a heron', 'heron in a long note about many other things'], 'gamma');
    await remove(store, ids[0]);
    await remove(store, truth(store, 'heron')[0]);
    await assertExact(store, 'heron', 'after adds and deletes');
    assert.equal(listBuilds(store), kept, 'the kept list served (rows merged in, not ranked again)');
  });
});

describe('lists from the warm-up, made from the files before the latest writes', () => {
  let dir: string;
  let store: Store;
  before(async () => {
    dir = path.join(tempDir('membership-warm-'), 'db');
    store = await openStore(dir);
    // More than the warm-up's threshold (2,048 rows) hold "zebra": it gets a list.
    await add(store, Array.from({ length: 2300 }, (_, i) => `zebra herd ${i} ${i % 3 === 0 ? 'stripe' : 'dust'}`));
  });
  after(() => store.close(false));

  it('rows written and deleted after the files were read are found and gone', async () => {
    // What the warm-up process does: the database from the files, the warm-up's steps, its exports.
    const SQL = await loadSqlJs();
    const { db, report } = recover(SQL, dir, { quarantine: false });
    assert.deepEqual(report.lost, []);
    register(db);
    const cache = new StatementCache(db);
    const reader = {
      all: <T = Row>(sql: string, params: Param[] = []) => cache.rows<T>(sql, params),
      get: <T = Row>(sql: string, params: Param[] = []) => cache.first<T>(sql, params),
    };
    const steps = new ListWarmer(reader, 16, undefined, { stepRows: Infinity }).steps();
    while (!steps.next().done);
    const made = exportLists(reader);
    assert.ok(made.lists.some((e) => e.key === 'observations_fts\u0000zebra'), 'the warm-up made the list of zebra');
    db.close();

    // Meanwhile the worker wrote and deleted.
    const added = await add(store, ['zebra crossing', 'zebra zebra zebra', 'okapi and zebra notes'], 'beta');
    await add(store, ['okapi only'], 'alpha');
    await remove(store, added[1]);
    await remove(store, truth(store, 'zebra', 'alpha')[0]);
    // Then the lists arrive.
    importLists(store, made.lists, made.vocabulary);
    const builds = listBuilds(store);
    await assertExact(store, 'zebra', 'warm-up lists');
    assert.equal(listBuilds(store), builds, 'the warm-up list of zebra served');
    await assertExact(store, 'okapi', 'warm-up lists');
    await assertExact(store, 'stripe', 'warm-up lists');
  });
});

describe('row facts built a page at a time', () => {
  it('rows written between two pages pass the project filter', async () => {
    const store = await openStore(path.join(tempDir('membership-facts-'), 'db'));
    try {
      await add(store, Array.from({ length: 30 }, (_, i) => `row ${i}`));
      const k = KINDS.observation;
      const steps = buildFacts(store, k, 4);
      steps.next();
      // One row behind the walk (its project sorts first), then one ahead of it (gamma) with a larger id.
      const [behind] = await add(store, ['late row'], 'aardvark');
      const [ahead] = await add(store, ['late gamma row'], 'gamma');
      let r = steps.next();
      while (!r.done) r = steps.next();
      const facts = rowFacts(store, k, ahead);
      assert.ok(facts);
      assert.ok(passes(facts, behind, { kinds: ['observation'], project: 'aardvark' }, projectCode(facts, 'aardvark')), 'the row written behind the walk is known');
      assert.ok(passes(facts, ahead, { kinds: ['observation'], project: 'gamma' }, projectCode(facts, 'gamma')));
    } finally {
      store.close(false);
    }
  });
});
