// Journal segments a checkpoint covers are kept compressed (journal-<gen>.logz, coldJournal.ts):
// written and read back before the .log goes, replayed when a checkpoint is damaged, reported
// (never used) when damaged themselves, never on the way out.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { coldSegmentName, freezeCoveredSegments, readSegmentOf } from '../../worker/store/coldJournal';
import { JOURNAL_MAGIC, unpackToMemory } from '../../worker/store/coldSnapshot';
import { listDeltas } from '../../worker/store/delta';
import { listSegments, segmentName } from '../../worker/store/journal';
import { recover } from '../../worker/store/recovery';
import { listSnapshots, snapshotName } from '../../worker/store/snapshot';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

async function open(dir: string, pageCacheBytes: number): Promise<Store> {
  const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null, pageCacheBytes, deltaMinBytes: 0, coldSnapshotMinBytes: 1 << 30, snapshotAtFirstStart: true });
  await s.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  return s;
}

const values = (s: Store) => s.all<{ v: string }>('SELECT v FROM t ORDER BY id').map((r) => r.v);
const row = (i: number) => `note ${i}: ${Array.from({ length: 60 }, (_, k) => `word${(i * 7 + k * 13) % 500}`).join(' ')}`;
const logs = (dir: string) => fs.readdirSync(dir).filter((n) => /^journal-\d+\.log$/.test(n) && fs.statSync(path.join(dir, n)).size > 0);
const colds = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.logz'));

/** Rows written in three rounds with a full snapshot after each of the first two; the rows, in order. */
async function threeRounds(dir: string, pageCacheBytes: number): Promise<{ s: Store; want: string[] }> {
  const s = await open(dir, pageCacheBytes);
  const want: string[] = [];
  const add = async (n: number) => {
    const rows = Array.from({ length: n }, (_, i) => row(want.length + i));
    want.push(...rows);
    await s.write((tx) => {
      for (const v of rows) tx.run('INSERT INTO t (v) VALUES (?)', [v]);
    });
  };
  await add(300);
  await s.snapshot(false, true);
  await add(300);
  await s.snapshot(false, true);
  await until(async () => colds(dir).length > 0 && !logs(dir).some((n) => Number(/\d+/.exec(n)![0]) < Math.max(...listSnapshots(dir))), 10_000, 'the covered segments compressed');
  await add(10);
  return { s, want };
}

function flipMiddle(file: string): void {
  const b = fs.readFileSync(file);
  for (let i = b.length >> 1; i < (b.length >> 1) + 16; i++) b[i] ^= 0x5a;
  fs.writeFileSync(file, b);
}

describe('compressed journal segments', () => {
  for (const [mode, pageCacheBytes] of [
    ['page cache', 8 << 20],
    ['whole in memory', 0],
  ] as const) {
    it(`keeps the segments the newest snapshot covers compressed, and replays them when it is damaged (${mode})`, async () => {
      const dir = tempDir();
      const { s, want } = await threeRounds(dir, pageCacheBytes);
      const [older, newer] = listSnapshots(dir);
      // Covered by the newest snapshot and kept for the older one: compressed, the .log gone.
      for (const g of listSegments(dir).filter((g) => g >= older && g < newer)) {
        const name = segmentName(g);
        if (fs.existsSync(path.join(dir, name))) assert.equal(fs.statSync(path.join(dir, name)).size, 0, `${name} left uncompressed`);
      }
      const raw = colds(dir).reduce((n, c) => n + readSegmentOf(dir, Number(/\d+/.exec(c)![0])).records.reduce((k, r) => k + r.length, 0), 0);
      const packed = colds(dir).reduce((n, c) => n + fs.statSync(path.join(dir, c)).size, 0);
      assert.ok(packed > 0 && packed < raw / 2, `compressed to ${packed} bytes against ${raw} of records`);
      // Not covered (after the newest snapshot): a plain .log, replayed at the next start.
      assert.ok(logs(dir).every((n) => Number(/\d+/.exec(n)![0]) >= newer), logs(dir).join(' '));
      await s.close(false); // as if killed: the last 10 rows are in the journal only

      const plain = await open(dir, pageCacheBytes);
      assert.deepEqual(values(plain), want);
      assert.deepEqual(plain.recovery.lost, []);
      await plain.close(false);

      flipMiddle(path.join(dir, snapshotName(newer)));
      const s2 = await open(dir, pageCacheBytes);
      assert.equal(s2.recovery.snapshotGen, older);
      assert.deepEqual(s2.recovery.lost, []);
      assert.deepEqual(values(s2), want, 'the older snapshot plus the compressed segments and the last .log');
      await s2.close(false);
    });
  }

  it('a damaged compressed segment is reported when it is needed, never replayed', async () => {
    const dir = tempDir();
    const { s } = await threeRounds(dir, 8 << 20);
    await s.close(false);
    const [, newer] = listSnapshots(dir);
    const cold = colds(dir)[0];
    flipMiddle(path.join(dir, cold));
    // Not needed while the newest snapshot is intact: every row, nothing lost.
    const ok = recover(await loadSqlJs(), dir, { quarantine: false, pageCacheBytes: 8 << 20 });
    assert.deepEqual(ok.report.lost, []);
    ok.db.close();
    // Two files damaged (past what is promised): the start says which writes are lost.
    fs.rmSync(path.join(dir, snapshotName(newer)));
    const { db, report } = recover(await loadSqlJs(), dir, { quarantine: true, pageCacheBytes: 8 << 20 });
    db.close();
    assert.match(report.lost.join('\n'), new RegExp(`${cold.replace(/\./g, '\\.')}: 1 damaged stretch`));
    assert.match(report.problems.join('\n'), /unusable \(checksum mismatch/);
    assert.ok(fs.readdirSync(path.join(dir, 'damaged')).some((n) => n.startsWith(cold)), 'a copy kept aside');
  });

  it('with deltas: the segments the newest delta covers are compressed, and a damaged delta falls back to them', async () => {
    const dir = tempDir();
    const s = await open(dir, 8 << 20);
    const want: string[] = [];
    for (let k = 0; k < 3; k++) {
      // A large first round, then small ones: each changes well under half of the database (deltas).
      const rows = Array.from({ length: k === 0 ? 1500 : 20 }, (_, i) => row(want.length + i));
      want.push(...rows);
      await s.write((tx) => {
        for (const v of rows) tx.run('INSERT INTO t (v) VALUES (?)', [v]);
      });
      await s.snapshot(false, k === 0);
    }
    const deltas = listDeltas(dir);
    assert.ok(deltas.length >= 2, `deltas ${deltas.join(' ')}`);
    await until(async () => listSegments(dir).filter((g) => g < deltas.at(-1)!).every((g) => !fs.existsSync(path.join(dir, segmentName(g))) || fs.statSync(path.join(dir, segmentName(g))).size === 0), 10_000, 'the segments under the newest delta compressed');
    await s.close(false);
    // The first delta after the snapshot damaged: the chain stops before it and the journals from there on (compressed) replay the rest.
    const { db, report } = recover(await loadSqlJs(), dir, { quarantine: true, pageCacheBytes: 8 << 20, verifyAtOpenBytes: 1 << 30 });
    db.close();
    assert.deepEqual(report.lost, []);
    flipMiddle(path.join(dir, `delta-${String(deltas[0]).padStart(10, '0')}.db`));
    const s2 = await open(dir, 8 << 20);
    assert.deepEqual(s2.recovery.lost, []);
    assert.ok(s2.recovery.segmentsReplayed.some((g) => g < deltas.at(-1)!), `replayed ${s2.recovery.segmentsReplayed.join(' ')}`);
    assert.deepEqual(values(s2), want);
    await s2.close(false);
  });

  it('a checkpoint taken while a compression runs starts a run of its own for its segments, not one after it nor at the next checkpoint', async () => {
    const dir = tempDir();
    const s = await open(dir, 0);
    const runs = s as unknown as { freezingJournals?: Promise<void> };
    const settle = async () => {
      for (let run = runs.freezingJournals; run; run = runs.freezingJournals) await run;
    };
    try {
      // About 2 MB of journal, a checkpoint, then one row and a checkpoint at once: the second lands
      // while the first one's segment is being compressed (tried again, a few times, when it did not).
      let during = false;
      for (let round = 0; round < 5 && !during; round++) {
        for (let b = 0; b < 20; b++) {
          await s.write((tx) => {
            for (let i = 0; i < 200; i++) tx.run('INSERT INTO t (v) VALUES (?)', [`${row(b * 200 + i)} ${round}/${b}/${i}`]);
          });
        }
        await s.snapshot(true);
        const first = runs.freezingJournals;
        assert.ok(first, 'the checkpoint started a compression');
        let firstDone = false;
        void first.then(() => (firstDone = true));
        await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['one more']));
        await s.snapshot(true);
        during = !firstDone;
        if (during) assert.notEqual(runs.freezingJournals, first, 'the second checkpoint started its own run at once');
        if (!during) await settle();
      }
      assert.ok(during, 'a checkpoint was taken while the compression before it ran');
      await settle();
      const newest = Math.max(...listSnapshots(dir));
      const left = logs(dir).filter((n) => Number(/\d+/.exec(n)![0]) < newest);
      assert.deepEqual(left, [], 'every segment the newest checkpoint covers is compressed');
    } finally {
      await s.close(false);
    }
  });

  it('a stop stops a compression at its next block: the .log stays, no .logz and no temp file; the next run compresses it', async () => {
    const dir = tempDir();
    const s = await open(dir, 0);
    await s.write((tx) => {
      for (let i = 0; i < 300; i++) tx.run('INSERT INTO t (v) VALUES (?)', [row(i)]);
    });
    await s.snapshot(true);
    await s.close(false);
    // The store's own compression may have run: back to .log files only (an earlier build's layout).
    for (const c of colds(dir)) {
      fs.writeFileSync(path.join(dir, c.slice(0, -1)), unpackToMemory(path.join(dir, c), JOURNAL_MAGIC));
      fs.rmSync(path.join(dir, c));
    }
    // Stopped before its first block.
    const covered = Math.max(...listSnapshots(dir));
    const before = listSegments(dir).filter((g) => g < covered && fs.existsSync(path.join(dir, segmentName(g))));
    assert.deepEqual(await freezeCoveredSegments(dir, () => true), []);
    assert.deepEqual(colds(dir), []);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('.tmp-')), []);
    const done = await freezeCoveredSegments(dir, () => false);
    assert.ok(done.length > 0 && done.every((d) => d.coldBytes > 0 && d.coldBytes < d.rawBytes), JSON.stringify(done));
    for (const d of done) assert.ok(!fs.existsSync(path.join(dir, segmentName(d.gen))) && fs.existsSync(path.join(dir, coldSegmentName(d.gen))));
    assert.ok(before.length >= done.length);
  });

  it('a stop right after a checkpoint leaves no temp file and every segment whole in one form: nothing lost', async () => {
    const dir = tempDir();
    const s = await open(dir, 0);
    const want: string[] = [];
    // About 4 MB of journal in one segment: four blocks to compress after the checkpoint.
    for (let b = 0; b < 40; b++) {
      await s.write((tx) => {
        for (let i = 0; i < 200; i++) {
          want.push(`${row(want.length)} ${b}/${i}`);
          tx.run('INSERT INTO t (v) VALUES (?)', [want[want.length - 1]]);
        }
      });
    }
    await s.snapshot(true);
    await s.close(false);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => n.includes('.tmp-')), [], 'no temp file left');
    for (const g of listSegments(dir)) {
      const log = fs.existsSync(path.join(dir, segmentName(g)));
      const cold = fs.existsSync(path.join(dir, coldSegmentName(g)));
      // Stopped before the .logz was read back: only the .log; after it: the .logz (and the .log until removed).
      assert.ok(log || cold, `segment ${g} in neither form`);
      if (cold) assert.ok(readSegmentOf(dir, g).problems.length === 0 || log, `segment ${g}: a .logz that does not read back and no .log`);
    }
    const s2 = await open(dir, 0);
    assert.deepEqual(values(s2), want);
    assert.deepEqual(s2.recovery.lost, []);
    await s2.close(false);
  });

  it('a data dir with only .log segments (an earlier build) is compressed at its first checkpoint and reads the same', async () => {
    const dir = tempDir();
    const s = await open(dir, 8 << 20);
    const want: string[] = [];
    for (let i = 0; i < 300; i++) want.push(row(i));
    await s.write((tx) => {
      for (const v of want) tx.run('INSERT INTO t (v) VALUES (?)', [v]);
    });
    await s.snapshot(false, true);
    // Done, not only written: a stop before the read-back removes the .logz again.
    await until(async () => colds(dir).length > 0 && !logs(dir).some((n) => Number(/\d+/.exec(n)![0]) < Math.max(...listSnapshots(dir))), 10_000, 'compressed');
    await s.close(false);
    // The earlier build's layout: every segment a .log.
    assert.ok(colds(dir).length > 0);
    for (const c of colds(dir)) {
      fs.writeFileSync(path.join(dir, c.slice(0, -1)), unpackToMemory(path.join(dir, c), JOURNAL_MAGIC));
      fs.rmSync(path.join(dir, c));
    }
    const s2 = await open(dir, 8 << 20);
    assert.deepEqual(values(s2), want);
    const more = Array.from({ length: 50 }, (_, i) => row(300 + i));
    want.push(...more);
    await s2.write((tx) => {
      for (const v of more) tx.run('INSERT INTO t (v) VALUES (?)', [v]);
    });
    await s2.snapshot();
    await until(async () => colds(dir).length > 0, 10_000, 'compressed at the first checkpoint');
    await s2.close(false);
    const s3 = await open(dir, 8 << 20);
    assert.deepEqual(values(s3), want);
    await s3.close(false);
  });
});
