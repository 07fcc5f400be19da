// Older full snapshots kept compressed: written and read back before the .db goes,
// thawed when the newest is damaged, never used when damaged themselves.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { coldName, freezeOlderSnapshots, freezeSnapshot, JOURNAL_MAGIC, packFile, thawToMemory, unpackToMemory, verifyCold } from '../../worker/store/coldSnapshot';
import { recover } from '../../worker/store/recovery';
import { listSnapshots, snapshotBytesOf, snapshotName } from '../../worker/store/snapshot';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

async function open(dir: string, pageCacheBytes: number, coldSnapshotMinBytes = 0): Promise<Store> {
  const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null, pageCacheBytes, coldSnapshotMinBytes });
  await s.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  return s;
}

const values = (s: Store) => s.all<{ v: string }>('SELECT v FROM t ORDER BY id').map((r) => r.v);
const names = (dir: string) => fs.readdirSync(dir).filter((n) => n.startsWith('snapshot-')).sort();
// Text that compresses about as well as people's notes do, and a few hundred KB of it.
const row = (i: number) => `note ${i}: ${Array.from({ length: 60 }, (_, k) => `word${(i * 7 + k * 13) % 500}`).join(' ')}`;

/** Two full snapshots with the older one compressed; the rows written, in order. */
async function twoSnapshots(dir: string, pageCacheBytes: number): Promise<{ s: Store; want: string[]; older: number; newer: number }> {
  const s = await open(dir, pageCacheBytes);
  const want: string[] = [];
  const add = async (n: number) => {
    const rows = Array.from({ length: n }, (_, i) => row(want.length + i));
    want.push(...rows);
    await s.write((tx) => {
      for (const v of rows) tx.run('INSERT INTO t (v) VALUES (?)', [v]);
    });
  };
  await add(400);
  const older = (await s.snapshot(false, true)).gen;
  await add(400);
  const newer = (await s.snapshot(false, true)).gen;
  await until(async () => fs.existsSync(path.join(dir, coldName(older))) && !fs.existsSync(path.join(dir, snapshotName(older))), 10_000, 'the older snapshot compressed');
  await add(10);
  return { s, want, older, newer };
}

/** One full snapshot of 300 rows, left uncompressed (the store's floor is out of reach). */
async function oneSnapshot(): Promise<{ dir: string; a: { gen: number }; file: string }> {
  const dir = tempDir();
  const s = await open(dir, 0, 1 << 30);
  await s.write((tx) => {
    for (let i = 0; i < 300; i++) tx.run('INSERT INTO t (v) VALUES (?)', [row(i)]);
  });
  const a = await s.snapshot();
  await s.close(false);
  return { dir, a, file: path.join(dir, snapshotName(a.gen)) };
}

function flipMiddle(file: string): void {
  const b = fs.readFileSync(file);
  for (let i = b.length >> 1; i < (b.length >> 1) + 16; i++) b[i] ^= 0x5a;
  fs.writeFileSync(file, b);
}

describe('cold snapshots', () => {
  for (const [mode, pageCacheBytes] of [
    ['page cache', 8 << 20],
    ['whole in memory', 0],
  ] as const) {
    it(`keeps the older snapshot compressed and falls back to it when the newest is damaged (${mode})`, async () => {
      const dir = tempDir();
      const { s, want, older, newer } = await twoSnapshots(dir, pageCacheBytes);
      assert.deepEqual(names(dir), [coldName(older), snapshotName(newer)]);
      assert.deepEqual(listSnapshots(dir), [older, newer]);
      const cold = fs.statSync(path.join(dir, coldName(older))).size;
      const raw = fs.statSync(path.join(dir, snapshotName(newer))).size;
      assert.ok(cold < raw / 2, `compressed to ${cold} bytes against ${raw}`);
      await s.close(false); // as if killed: the last 10 rows are in the journal only

      flipMiddle(path.join(dir, snapshotName(newer)));
      const s2 = await open(dir, pageCacheBytes);
      assert.deepEqual(values(s2), want);
      assert.equal(s2.recovery.snapshotGen, older);
      assert.match(s2.recovery.problems.join('\n'), new RegExp(`${snapshotName(newer)} unusable`));
      assert.ok(fs.existsSync(path.join(dir, snapshotName(older))), 'thawed back to its .db');
      assert.ok(fs.readdirSync(path.join(dir, 'damaged')).some((n) => n.startsWith(snapshotName(newer))), 'the damaged one kept aside');
      await s2.close();
    });
  }

  it('a reader that must not write the data dir reads a cold snapshot in memory', async () => {
    const dir = tempDir();
    const { s, want, older, newer } = await twoSnapshots(dir, 8 << 20);
    await s.close(false);
    fs.rmSync(path.join(dir, snapshotName(newer)));
    const before = names(dir);
    const { db, report } = recover(await loadSqlJs(), dir, { quarantine: false, pageCacheBytes: 8 << 20 });
    assert.equal(report.snapshotGen, older);
    assert.deepEqual(report.lost, []);
    assert.deepEqual(
      db.exec('SELECT v FROM t ORDER BY id')[0].values.map((r) => r[0]),
      want,
    );
    db.close();
    assert.deepEqual(names(dir), before, 'nothing written');
  });

  for (const [how, damage] of [
    ['cut short', (f: string) => fs.truncateSync(f, fs.statSync(f).size - 100)],
    ['bytes flipped', flipMiddle],
    ['its index flipped', (f: string) => {
      const b = fs.readFileSync(f);
      b[33] ^= 0xff;
      fs.writeFileSync(f, b);
    }],
  ] as const) {
    it(`a damaged cold snapshot is found, never used (${how})`, async () => {
      const dir = tempDir();
      const { s, older, newer } = await twoSnapshots(dir, 8 << 20);
      await s.close(false);
      const file = path.join(dir, coldName(older));
      damage(file);
      await assert.rejects(verifyCold(file));
      assert.throws(() => thawToMemory(dir, older));
      // With the newest gone too (two files: past what is promised), the start says so and rebuilds nothing wrong.
      fs.rmSync(path.join(dir, snapshotName(newer)));
      const { db, report } = recover(await loadSqlJs(), dir, { quarantine: true, pageCacheBytes: 8 << 20 });
      db.close();
      assert.match(report.problems.join('\n'), new RegExp(`${coldName(older)} unusable`));
      assert.ok(fs.readdirSync(path.join(dir, 'damaged')).some((n) => n.startsWith(coldName(older))), 'moved aside');
      assert.ok(!fs.existsSync(path.join(dir, snapshotName(older))), 'no .db thawed from it');
    });
  }

  it('thaws to the very bytes it froze, and a stop leaves the .db and no temp file', async () => {
    const { dir, a, file } = await oneSnapshot();
    const original = fs.readFileSync(file);
    await assert.rejects(freezeSnapshot(dir, a.gen, () => true));
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('.tmp-')), []);
    assert.ok(fs.existsSync(file));
    await freezeSnapshot(dir, a.gen);
    assert.ok(!fs.existsSync(file));
    const thawed = thawToMemory(dir, a.gen);
    assert.ok(thawed.equals(original));
    assert.ok(snapshotBytesOf(thawed).length > 0);
  });

  it('asked to stop once the compressed copy is written and checked, it keeps both copies', async () => {
    const { dir, a, file } = await oneSnapshot();
    let calls = 0;
    // One call before each block (one block here), one before the header and fsync, one before
    // each block read back, then one before the .db is removed.
    await assert.rejects(freezeSnapshot(dir, a.gen, () => ++calls > 3));
    assert.equal(calls, 4);
    assert.ok(fs.existsSync(file));
    await verifyCold(path.join(dir, coldName(a.gen)));
    assert.deepEqual(listSnapshots(dir), [a.gen]);
  });

  for (const [when, after] of [
    ['every block is compressed, before the header and the fsync', 1],
    ['the copy is written, before it is read back', 2],
  ] as const) {
    it(`asked to stop once ${when}, it stops there: the .db stays, no compressed copy and no temp file`, async () => {
      const { dir, a, file } = await oneSnapshot();
      let calls = 0;
      await assert.rejects(freezeSnapshot(dir, a.gen, () => ++calls > after), (e: Error) => !/did not read back/.test(e.message));
      assert.equal(calls, after + 1, 'nothing asked after the stop');
      assert.ok(fs.existsSync(file));
      assert.deepEqual(
        fs.readdirSync(dir).filter((n) => n.includes('.tmp-') || n === coldName(a.gen)),
        [],
      );
    });
  }

  it('a file of many blocks is compressed and read back a few blocks at a time, to the very bytes', async () => {
    const dir = tempDir();
    // 10.5 MiB: eleven 1 MiB blocks, the last one short; text that compresses like a journal's.
    const parts: string[] = [];
    for (let i = 0; parts.join('\n').length < 10.5 * (1 << 20); i++) parts.push(row(i));
    const original = Buffer.from(parts.join('\n')).subarray(0, 10.5 * (1 << 20));
    const src = path.join(dir, 'file.bin');
    fs.writeFileSync(src, original);
    let calls = 0;
    const r = await packFile(src, path.join(dir, 'file.binz'), JOURNAL_MAGIC, () => (++calls, false));
    assert.equal(r.rawBytes, original.length);
    assert.ok(!fs.existsSync(src));
    assert.ok(unpackToMemory(path.join(dir, 'file.binz'), JOURNAL_MAGIC).equals(original));
    // One stop check per group of two blocks written (6), before the header, per group read back
    // (6), before the source is removed: not one per block.
    assert.equal(calls, 14);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a snapshot pruned while it was being compressed leaves no compressed copy behind (deleted text must not outlive it)', async () => {
    const { dir, a, file } = await oneSnapshot();
    // The prune runs on the same event loop while the compression awaits its reads and writes.
    const r = await freezeSnapshot(dir, a.gen, () => {
      fs.rmSync(file, { force: true });
      return false;
    });
    assert.equal(r.coldBytes, 0);
    assert.deepEqual(names(dir), []);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('.tmp-')), []);
  });

  it('leaves the newest snapshot and those under the size floor as they are', async () => {
    const dir = tempDir();
    const s = await open(dir, 0, 1 << 30);
    for (let k = 0; k < 3; k++) {
      await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [row(k)]));
      await s.snapshot();
    }
    await s.close(false);
    const before = names(dir);
    assert.deepEqual(await freezeOlderSnapshots(dir, 1 << 30, () => false), []);
    assert.deepEqual(names(dir), before);
    const done = await freezeOlderSnapshots(dir, 0, () => false);
    assert.equal(done.length, before.length - 1);
    assert.ok(names(dir).at(-1)?.endsWith('.db'), 'the newest stays a .db');
  });
});
