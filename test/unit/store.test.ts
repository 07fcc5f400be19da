import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { frame, listSegments, readSegment, segmentName } from '../../worker/store/journal';
import { listSnapshots, snapshotName } from '../../worker/store/snapshot';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';
import { bundledEntry } from '../helpers/bundle';

// Worker threads do not get tsx's loader: the replica runs from a bundle of the current source.
const REPLICA = bundledEntry('worker/store/replica.ts');

async function open(dir: string, replica = false): Promise<Store> {
  const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: replica ? REPLICA : null });
  await s.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  return s;
}

const values = (s: Store) => s.all<{ v: string }>('SELECT v FROM t ORDER BY id').map((r) => r.v);

describe('journal framing', () => {
  it('reads records, drops a torn tail, skips a damaged middle record', () => {
    const dir = tempDir();
    const file = path.join(dir, segmentName(1));
    const recs = ['one', 'two', 'three', 'four'].map((s) => frame(Buffer.from(s)));
    const damaged = Buffer.from(recs[1]);
    damaged[14] ^= 0xff; // flip a payload byte: crc mismatch
    fs.writeFileSync(file, Buffer.concat([recs[0], damaged, recs[2], recs[3], recs[3].subarray(0, 9)]));
    const r = readSegment(file);
    assert.deepEqual(r.records.map((b) => b.toString()), ['one', 'three', 'four']);
    assert.equal(r.problems.length, 2);
    assert.match(r.problems[0], /skipped/);
    assert.match(r.problems[1], /torn or damaged tail/);
  });
});

describe('store recovery', () => {
  it('replays the journal after a crash (no close)', async () => {
    const dir = tempDir();
    const s = await open(dir);
    for (let i = 0; i < 50; i++) await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`v${i}`]));
    // no close: as if killed
    const s2 = await open(dir);
    assert.equal(values(s2).length, 50);
    assert.equal(s2.recovery.recordsReplayed, 51);
    await s2.close();
  });

  it('a failed transaction writes nothing to memory or journal', async () => {
    const dir = tempDir();
    const s = await open(dir);
    await assert.rejects(
      s.write((tx) => {
        tx.run('INSERT INTO t (v) VALUES (?)', ['kept?']);
        throw new Error('boom');
      }),
    );
    assert.deepEqual(values(s), []);
    const s2 = await open(dir);
    assert.deepEqual(values(s2), []);
    await s2.close();
  });

  for (const replica of [false, true]) {
    it(`snapshots (${replica ? 'replica thread' : 'main thread'}), falls back to the previous snapshot when the newest is corrupt`, async () => {
      const dir = tempDir();
      const s = await open(dir, replica);
      const want: string[] = [];
      const add = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const v = `v${want.length}`;
          want.push(v);
          await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [v]));
        }
      };
      await add(10);
      const a = await s.snapshot();
      assert.equal(a.via, replica ? 'replica' : 'main');
      if (replica) assert.equal(a.blockedMs, 0);
      await add(10);
      const b = await s.snapshot();
      await add(10);
      // crash now, then damage the newest snapshot
      const snaps = listSnapshots(dir);
      assert.deepEqual(snaps, [a.gen, b.gen]);
      const newest = path.join(dir, snapshotName(b.gen));
      const bytes = fs.readFileSync(newest);
      fs.writeFileSync(newest, bytes.subarray(0, bytes.length - 100));
      const s2 = await open(dir);
      assert.deepEqual(values(s2), want);
      assert.equal(s2.recovery.snapshotGen, a.gen);
      assert.match(s2.recovery.problems.join('\n'), /unusable/);
      assert.ok(fs.readdirSync(path.join(dir, 'damaged')).length === 1, 'the damaged snapshot is kept aside');
      await s2.close();
      await s.close(false).catch(() => undefined);
    });
  }

  it('a snapshot thread that cannot rebuild every record from the files gives way to the live database', async () => {
    const dir = tempDir();
    const s = await open(dir, true);
    for (let i = 0; i < 20; i++) await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`v${i}`]));
    // Bit rot in the segment after it was acknowledged: the live database still has every row.
    const seg = path.join(dir, segmentName(s.journalGen));
    const bytes = fs.readFileSync(seg);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    fs.writeFileSync(seg, bytes);
    const snap = await s.snapshot();
    assert.equal(snap.via, 'main', 'the rebuilt copy missed a record, so the snapshot came from memory');
    await s.close(false);
    const s2 = await open(dir);
    assert.equal(values(s2).length, 20);
    await s2.close();
  });

  it('a snapshot of random bytes is ignored; journal segments still replay', async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['x']));
    fs.writeFileSync(path.join(dir, snapshotName(99)), Buffer.from(Array.from({ length: 4096 }, () => Math.floor(Math.random() * 256))));
    const s2 = await open(dir);
    assert.deepEqual(values(s2), ['x']);
    assert.match(s2.recovery.problems.join('\n'), /snapshot-0000000099.db unusable/);
    // New writes go to a fresh segment after every existing one.
    assert.ok(s2.journalGen > Math.max(...listSegments(dir).filter((g) => g !== s2.journalGen), 0));
    await s2.close();
  });

  it('prunes old snapshots and segments, keeping two snapshots', async () => {
    const dir = tempDir();
    const s = await open(dir);
    for (let k = 0; k < 4; k++) {
      await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`k${k}`]));
      await s.snapshot();
    }
    assert.equal(listSnapshots(dir).length, 2);
    assert.ok(Math.min(...listSegments(dir)) >= listSnapshots(dir)[0]);
    await s.close();
    const s2 = await open(dir);
    assert.deepEqual(values(s2), ['k0', 'k1', 'k2', 'k3']);
    await s2.close();
  });
});
