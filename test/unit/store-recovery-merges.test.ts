// Recovery for a reader that never writes (the list warm-up process, warmProcess.ts): the journal
// records that only merge a full-text index are left out with skipIndexMerges, so the reader does
// not hold the chunks they rewrite as dirty; every row and word is still there. The worker's own
// recovery replays them (search-fts-merge.test.ts: the store reopened is merged).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { isIndexMergeTx, pagedFiles, recover } from '../../worker/store/recovery';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

const WORDS = ['cache', 'retry', 'token', 'parser', 'queue', 'render', 'schema', 'socket', 'button', 'deploy'];

describe('recovery without index merges', () => {
  it('tells a merge-only record from any other', () => {
    assert.equal(isIndexMergeTx([["INSERT INTO observations_fts(observations_fts) VALUES ('merge=16,2')", []]]), true);
    assert.equal(isIndexMergeTx([["INSERT INTO t_fts(t_fts) VALUES ('optimize')", []]]), true);
    assert.equal(isIndexMergeTx([["INSERT INTO t_fts(t_fts) VALUES ('merge=16,2')", []], ['INSERT INTO t (body) VALUES (?)', ['x']]]), false);
    assert.equal(isIndexMergeTx([["INSERT INTO t_fts(t_fts) VALUES ('rebuild')", []]]), false);
    assert.equal(isIndexMergeTx([["INSERT INTO t_fts(other) VALUES ('merge=16,2')", []]]), false);
    assert.equal(isIndexMergeTx([['INSERT INTO t_fts(t_fts) VALUES (?)', ['merge=16,2']]]), false);
    assert.equal(isIndexMergeTx([]), false);
  });

  it('a reader gets every row and word without the merges, holding fewer dirty chunks', async () => {
    const dir = path.join(tempDir('recover-merges-'), 'db');
    const open = () => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 40, bulkDeltaBytes: 0, replicaScript: null, pageCacheBytes: 1 << 20 });
    let store = await open();
    await store.write((tx) => {
      tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
      tx.run('CREATE VIRTUAL TABLE t_fts USING fts4(content="t", body)');
    });
    await store.close(true);
    store = await open();
    // One FTS segment per transaction, then merge steps until one is left, all in the journal.
    for (let b = 0; b < 64; b++) {
      await store.write((tx) => {
        for (let i = 0; i < 40; i++) {
          const id = b * 40 + i + 1;
          const body = `${WORDS[id % WORDS.length]} ${WORDS[(id * 7) % WORDS.length]} row${id} ${'lorem ipsum '.repeat(20)}`;
          tx.run('INSERT INTO t (id, body) VALUES (?, ?)', [id, body]);
          tx.run('INSERT INTO t_fts (docid, body) VALUES (?, ?)', [id, body]);
        }
      });
    }
    const segments = () => Number(store.get<{ n: number }>('SELECT count(*) AS n FROM t_fts_segdir')?.n);
    const before = segments();
    for (let i = 0; i < 200 && segments() > 1; i++) await store.write((tx) => tx.run("INSERT INTO t_fts(t_fts) VALUES ('merge=16,2')"));
    assert.ok(segments() < before, `merged: ${before} -> ${segments()} segments`);
    const answers = (all: (sql: string) => unknown[]) => [
      all('SELECT count(*) AS n FROM t'),
      ...WORDS.map((w) => all(`SELECT docid FROM t_fts WHERE t_fts MATCH '${w}' ORDER BY docid`)),
      all("SELECT docid FROM t_fts WHERE t_fts MATCH 'row777'"),
    ];
    const want = answers((sql) => store.all(sql).map((r) => Object.values(r).map(Number)));
    await store.close(false); // the merges are only in the journal

    const SQL = await loadSqlJs();
    const read = (skipIndexMerges: boolean) => {
      const { db, report } = recover(SQL, dir, { quarantine: false, pageCacheBytes: 1 << 20, skipIndexMerges });
      const all = (sql: string) => (db.exec(sql)[0]?.values ?? []).map((r) => r.map(Number));
      const got = { answers: answers(all), dirty: pagedFiles.get(db)?.stats.dirtyBytes ?? NaN, lost: report.lost, segments: Number(all('SELECT count(*) FROM t_fts_segdir')[0]) };
      db.close();
      pagedFiles.get(db)?.close();
      return got;
    };
    const withMerges = read(false);
    const without = read(true);
    assert.deepEqual(without.lost, []);
    assert.deepEqual(withMerges.answers.map(String), without.answers.map(String));
    assert.deepEqual(without.answers, want);
    assert.ok(without.segments > withMerges.segments, `segments left unmerged: ${without.segments} vs ${withMerges.segments}`);
    assert.ok(without.dirty < withMerges.dirty, `dirty ${without.dirty} < ${withMerges.dirty}`);
  });
});
