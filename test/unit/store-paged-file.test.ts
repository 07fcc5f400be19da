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
