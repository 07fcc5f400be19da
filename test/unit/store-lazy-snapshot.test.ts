// Start-up reads a snapshot lazily (worker/store/lazyFile.ts): the whole file's CRC is checked by
// streaming it, then sql.js gets a LazyFileBytes that reads 1 MiB chunks as SQLite asks for them.
// These tests hold it to the same guarantees as the eager load: every row back, writes into
// chunks not read yet kept, growth past the file's end, a flipped byte anywhere refused.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { CHUNK, LazyFileBytes } from '../../worker/store/lazyFile';
import { listSnapshots, openSnapshot, readSnapshot, snapshotName, writeSnapshot } from '../../worker/store/snapshot';
import { Store } from '../../worker/store/store';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-lazy-'));
const open = (dir: string) => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
const filler = (i: number) => `row ${i} `.padEnd(2000, String.fromCharCode(97 + (i % 26)));

/** A store of about 5 MiB (several chunks), snapshotted on close. */
async function bigStore(rows = 2400): Promise<string> {
  const dir = tempDir();
  const s = await open(dir);
  await s.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  for (let i = 0; i < rows; i += 200) {
    await s.write((tx) => {
      for (let j = i; j < Math.min(rows, i + 200); j++) tx.run('INSERT INTO t (id, v) VALUES (?, ?)', [j, filler(j)]);
    });
  }
  await s.close(true);
  return dir;
}

describe('lazy snapshot load', () => {
  it('LazyFileBytes reads chunks on demand, keeps writes into chunks not read yet, and hands itself to MEMFS', () => {
    const dir = tempDir();
    const file = path.join(dir, 'f');
    const data = Buffer.alloc(CHUNK * 2 + 100);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff;
    fs.writeFileSync(file, Buffer.concat([Buffer.from('HEAD'), data]));
    const lazy = new LazyFileBytes(fs.openSync(file, 'r'), 4, data.length);
    assert.equal(lazy.pendingChunks, 3);
    assert.equal(lazy.slice(0, lazy.length), lazy, "MEMFS's hand-over copy is the object itself");
    assert.ok(!(lazy.subarray(0, 1) instanceof LazyFileBytes), 'views are plain Uint8Arrays');
    assert.equal(lazy.pendingChunks, 2, 'that view read the first chunk');
    assert.deepEqual([...lazy.subarray(CHUNK + 5, CHUNK + 9)], [...data.subarray(CHUNK + 5, CHUNK + 9)]);
    assert.equal(lazy.pendingChunks, 1);
    // A write into the last chunk before it is read: the read must not overwrite it.
    lazy.set([1, 2, 3], CHUNK * 2 + 10);
    assert.deepEqual([...lazy.subarray(CHUNK * 2 + 9, CHUNK * 2 + 14)], [data[CHUNK * 2 + 9], 1, 2, 3, data[CHUNK * 2 + 13]]);
    assert.deepEqual([...lazy.subarray(-3)], [...data.subarray(-3)]);
    lazy.loadAll();
    assert.equal(lazy.pendingChunks, 0);
    assert.equal(Buffer.from(lazy.subarray(0, CHUNK)).compare(data.subarray(0, CHUNK)), 0);
  });

  it('a store reopens from a lazily read snapshot with every row, and writes into unread pages survive a restart', async () => {
    const dir = await bigStore();
    const snap = listSnapshots(dir).pop() as number;
    assert.ok(fs.statSync(path.join(dir, snapshotName(snap))).size > 4 * CHUNK, 'several chunks');
    const s = await open(dir);
    assert.equal(s.recovery.snapshotGen, snap);
    // Update rows spread over the file (pages not read yet), grow it, delete some.
    await s.write((tx) => {
      for (let i = 0; i < 2400; i += 97) tx.run('UPDATE t SET v = ? WHERE id = ?', [`changed ${i}`, i]);
      for (let i = 2400; i < 3000; i++) tx.run('INSERT INTO t (id, v) VALUES (?, ?)', [i, filler(i)]);
      tx.run('DELETE FROM t WHERE id % 500 = 499');
    });
    const want = s.all<{ id: number; v: string }>('SELECT id, v FROM t ORDER BY id');
    assert.equal(want.length, 3000 - 6);
    assert.equal(want.find((r) => r.id === 97)?.v, 'changed 97');
    assert.equal(want.find((r) => r.id === 98)?.v, filler(98));
    assert.equal(s.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check, 'ok');
    // Crash (no final snapshot): the journal replays onto the same lazily read snapshot.
    await s.close(false);
    const s2 = await open(dir);
    assert.deepEqual(s2.all('SELECT id, v FROM t ORDER BY id'), want);
    // A snapshot taken from a lazily loaded database (export reads every page) is complete.
    await s2.close(true);
    const s3 = await open(dir);
    assert.notEqual(s3.recovery.snapshotGen, snap);
    assert.deepEqual(s3.all('SELECT id, v FROM t ORDER BY id'), want);
    assert.equal(s3.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check, 'ok');
    await s3.close(false);
  });

  for (const where of ['first chunk', 'middle', 'last byte']) {
    it(`a single flipped byte (${where}) makes the snapshot unusable and the older one is used`, async () => {
      const dir = await bigStore(1200);
      const s = await open(dir);
      await s.write((tx) => tx.run('INSERT INTO t (id, v) VALUES (?, ?)', [5000, 'after the first snapshot']));
      await s.close(true);
      const [older, newest] = listSnapshots(dir).slice(-2);
      const file = path.join(dir, snapshotName(newest));
      const bytes = fs.readFileSync(file);
      const at = where === 'first chunk' ? 24 + 100 : where === 'middle' ? Math.floor(bytes.length / 2) : bytes.length - 1;
      bytes[at] ^= 0x01;
      fs.writeFileSync(file, bytes);
      assert.throws(() => openSnapshot(file), /checksum mismatch/);
      const s2 = await open(dir);
      assert.equal(s2.recovery.snapshotGen, older);
      assert.match(s2.recovery.problems.join('\n'), /unusable \(checksum mismatch\)/);
      assert.equal(s2.get<{ n: number }>('SELECT count(*) AS n FROM t')?.n, 1201, 'every row, from the older snapshot + journal');
      await s2.close(false);
    });
  }

  it('readSnapshot (all in memory) and writeSnapshot round-trip', async () => {
    const dir = tempDir();
    const body = new Uint8Array(CHUNK + 17).map((_, i) => i % 251);
    const file = await writeSnapshot(dir, 3, body);
    assert.deepEqual(Buffer.from(readSnapshot(file)), Buffer.from(body));
    fs.truncateSync(file, 30);
    assert.throws(() => openSnapshot(file), /truncated or padded/);
  });
});
