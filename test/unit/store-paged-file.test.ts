// PagedBytes (worker/store/pagedFile.ts) under real sql.js: a database opened from a snapshot
// through a small page cache answers exactly like the fully loaded one, takes writes and growth,
// keeps its cache near the budget (clean chunks evicted, dirty ones kept), and refuses a chunk
// that changed on disk after it was verified.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openPagedSnapshot, PAGED_CHUNK } from '../../worker/store/pagedFile';
import { readSnapshot, snapshotHeader, writeSnapshot } from '../../worker/store/snapshot';
import { loadSqlJs } from '../../worker/store/sqlite';
import { tempDir } from '../helpers/worker';

async function makeSnapshot(rows: number): Promise<string> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  db.run('CREATE VIRTUAL TABLE t_fts USING fts4(content="t", body, tokenize=porter)');
  db.run('BEGIN');
  for (let i = 1; i <= rows; i++) {
    const body = `row ${i} ${'lorem ipsum dolor '.repeat(8)} word${i % 97} ${i % 3 === 0 ? 'fizz' : 'buzz'}`;
    db.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, body]);
    db.run('INSERT INTO t_fts (docid, body) VALUES (?, ?)', [i, body]);
  }
  db.run('COMMIT');
  const dir = tempDir('paged-');
  const file = await writeSnapshot(dir, 1, db.export());
  db.close();
  return file;
}

const QUERIES = [
  'SELECT count(*) FROM t',
  "SELECT count(*) FROM t_fts WHERE t_fts MATCH 'fizz'",
  "SELECT docid FROM t_fts WHERE t_fts MATCH 'word42' ORDER BY docid",
  'SELECT sum(length(body)) FROM t WHERE id % 7 = 0',
];

describe('PagedBytes under sql.js', () => {
  it('answers like the fully loaded database with a cache far smaller than the file, and takes writes', async () => {
    const file = await makeSnapshot(6000);
    const SQL = await loadSqlJs();
    const full = new SQL.Database(readSnapshot(file));
    const budget = 2 * PAGED_CHUNK;
    const paged = openPagedSnapshot(file, budget, snapshotHeader(file));
    assert.ok(paged.length > 8 * budget, `file ${paged.length} bytes vs budget ${budget}`);
    const db = new SQL.Database(paged as unknown as Uint8Array);
    try {
      db.run('PRAGMA cache_size = -256'); // SQLite's own cache small, so reads really go through ours
      for (const q of QUERIES) assert.deepEqual(db.exec(q), full.exec(q), q);
      assert.ok(paged.stats.evictions > 0, 'clean chunks were evicted');
      assert.ok(paged.stats.cachedBytes <= budget + PAGED_CHUNK, `cache ${paged.stats.cachedBytes}`);

      // Writes (and growth past the snapshot) land in dirty chunks, which are never evicted.
      for (const d of [db, full]) {
        d.run('BEGIN');
        for (let i = 6001; i <= 7000; i++) d.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, `new row ${i} ${'x'.repeat(200)}`]);
        d.run("UPDATE t SET body = 'changed' WHERE id % 500 = 0");
        d.run('COMMIT');
      }
      assert.ok(paged.stats.size > paged.stats.cachedBytes - paged.stats.dirtyBytes, 'grew');
      assert.ok(paged.dirtyChunks().length > 0);
      for (const q of [...QUERIES, "SELECT count(*) FROM t WHERE body = 'changed'", 'SELECT max(id) FROM t']) assert.deepEqual(db.exec(q), full.exec(q), q);
      // An export reads every page through the cache and gives the same database.
      const copy = new SQL.Database(db.export());
      for (const q of QUERIES) assert.deepEqual(copy.exec(q), full.exec(q), q);
      copy.close();
    } finally {
      db.close();
      full.close();
      paged.close();
    }
  });

  it('refuses a chunk that changed on disk after it was verified', async () => {
    const file = await makeSnapshot(3000);
    const SQL = await loadSqlJs();
    const paged = openPagedSnapshot(file, 2 * PAGED_CHUNK, snapshotHeader(file));
    const db = new SQL.Database(paged as unknown as Uint8Array);
    try {
      db.run('PRAGMA cache_size = -64');
      // Flip a byte in the middle of the file (the worker's own files never change: a disk fault would).
      const fd = fs.openSync(file, 'r+');
      const at = Math.floor(fs.fstatSync(fd).size / 2);
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, at);
      b[0] ^= 0xff;
      fs.writeSync(fd, b, 0, 1, at);
      fs.closeSync(fd);
      assert.throws(() => db.exec('SELECT sum(length(body)) FROM t'), /changed on disk|disk I\/O|I\/O/i);
    } finally {
      try {
        db.close();
      } catch {
        /* may be unusable after the error */
      }
      paged.close();
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });
});

describe('Store with pageCacheBytes (opt-in)', () => {
  it('reopens through the page cache, takes writes, snapshots and reopens with every write', async () => {
    const { Store } = await import('../../worker/store/store');
    const { nullLogger } = await import('../../common/node/log');
    const dir = path.join(tempDir('paged-store-'), 'db');
    const open = () => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null, pageCacheBytes: 4 << 20 });
    let store = await open();
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)'));
    for (let b = 0; b < 20; b++) await store.write((tx) => { for (let i = 0; i < 500; i++) tx.run('INSERT INTO t (body) VALUES (?)', [`${b}-${i} ${'z'.repeat(300)}`]); });
    await store.close(true);
    assert.ok(fs.readdirSync(dir).some((n) => n.startsWith('snapshot-')), 'a snapshot to serve from');

    store = await open();
    try {
      assert.ok(store.pageCache, 'served through the page cache');
      assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM t')?.n, 10_000);
      await store.write((tx) => tx.run("INSERT INTO t (body) VALUES ('after reopen')"));
      await store.write((tx) => tx.run("UPDATE t SET body = 'edited' WHERE id = 7"));
      assert.ok((store.pageCache?.cachedBytes ?? Infinity) <= (4 << 20) + (store.pageCache?.dirtyBytes ?? 0));
      await store.snapshot(true);
      await store.write((tx) => tx.run("INSERT INTO t (body) VALUES ('after snapshot')"));
    } finally {
      await store.close(false); // no final snapshot: the last write must come back from the journal
    }
    store = await open();
    try {
      assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM t')?.n, 10_002);
      assert.equal(store.get<{ body: string }>('SELECT body FROM t WHERE id = 7')?.body, 'edited');
      assert.equal(store.get<{ body: string }>('SELECT body FROM t ORDER BY id DESC LIMIT 1')?.body, 'after snapshot');
    } finally {
      await store.close(false);
    }
  });
});
