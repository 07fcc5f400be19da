// Incremental checkpoints with the page cache: the delta file format, the chunk map built
// from a full snapshot and the deltas after it, checkpoints that write only what changed, and the
// fallbacks of recovery when a delta or a snapshot is damaged. Real files in a temp dir, real sql.js.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { openChain } from '../../worker/store/chain';
import { CheckpointStopped, deltaName, listDeltas, readDeltaHeader, verifyDelta, writeDelta } from '../../worker/store/delta';
import { listSegments } from '../../worker/store/journal';
import { PAGED_CHUNK, PagedBytes } from '../../worker/store/pagedFile';
import { recover } from '../../worker/store/recovery';
import { listSnapshots, snapshotName, verifySnapshot } from '../../worker/store/snapshot';
import { loadSqlJs } from '../../worker/store/sqlite';
import { pageCacheBytesFromEnv, Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

const BUDGET = 4 * PAGED_CHUNK;
const open = (dir: string, extra: { deltaMinBytes?: number; bulkDeltaBytes?: number; dirtyDeltaBytes?: number } = {}) =>
  Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: BUDGET, deltaMinBytes: extra.deltaMinBytes ?? 0, bulkDeltaBytes: extra.bulkDeltaBytes, dirtyDeltaBytes: extra.dirtyDeltaBytes });
const body = (i: number) => `row ${i} `.padEnd(600, String.fromCharCode(97 + (i % 26)));

async function insert(s: Store, from: number, n: number): Promise<void> {
  await s.write((tx) => {
    for (let i = from; i < from + n; i++) tx.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, body(i)]);
  });
}

const made = new Map<number, string>();

/**
 * A store of `rows` rows (about 0.7 KB each) with one full snapshot, closed; reopened it is served
 * by the page cache. Each size is written once; each call gets a copy of its files in a fresh dir.
 */
async function seeded(rows: number): Promise<string> {
  let template = made.get(rows);
  if (!template) {
    template = path.join(tempDir('delta-seed-'), 'db');
    const s = await open(template);
    await s.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'));
    for (let i = 0; i < rows; i += 500) await insert(s, i, Math.min(500, rows - i));
    await s.close(true);
    made.set(rows, template);
  }
  const dir = path.join(tempDir('delta-'), 'db');
  fs.cpSync(template, dir, { recursive: true });
  assert.equal(listSnapshots(dir).length, 1);
  return dir;
}

function count(s: Store): number {
  return Number(s.get<{ n: number }>('SELECT count(*) AS n FROM t')?.n);
}

function flip(file: string, at: number): void {
  const b = fs.readFileSync(file);
  b[at] ^= 0x5a;
  fs.writeFileSync(file, b);
}

describe('delta file format', () => {
  it('round-trips header, list and chunks; a damaged list or a short file is refused; a damaged chunk is found by the read-back', async () => {
    const dir = tempDir('delta-fmt-');
    const chunk = (v: number) => new Uint8Array(PAGED_CHUNK).fill(v);
    const info = await writeDelta(dir, 7, 5, 3 * PAGED_CHUNK + 4096, [
      { index: 3, data: chunk(3) },
      { index: 0, data: chunk(9) },
    ]);
    const file = path.join(dir, deltaName(7));
    assert.deepEqual(listDeltas(dir), [7]);
    assert.equal(fs.statSync(file).size, info.bytes);
    const fd = fs.openSync(file, 'r');
    const read = readDeltaHeader(fd);
    fs.closeSync(fd);
    assert.deepEqual({ gen: read.gen, prevGen: read.prevGen, length: read.length }, { gen: 7, prevGen: 5, length: 3 * PAGED_CHUNK + 4096 });
    assert.deepEqual(read.entries.map((e) => e.index), [0, 3], 'listed in chunk order');
    const buf = Buffer.alloc(PAGED_CHUNK);
    const fd2 = fs.openSync(file, 'r');
    fs.readSync(fd2, buf, 0, PAGED_CHUNK, read.entries[1].offset);
    fs.closeSync(fd2);
    assert.equal(buf[0], 3);
    await verifyDelta(file);

    // The list is covered by the header CRC.
    const listed = path.join(dir, 'listed.db');
    fs.copyFileSync(file, listed);
    flip(listed, 48 + 2);
    assert.throws(() => readDeltaHeader(fs.openSync(listed, 'r')), /checksum mismatch/);
    // Cut short.
    const cut = path.join(dir, 'cut.db');
    fs.copyFileSync(file, cut);
    fs.truncateSync(cut, info.bytes - 1);
    assert.throws(() => readDeltaHeader(fs.openSync(cut, 'r')), /truncated or padded/);
    // A chunk's bytes: the header still reads (chunks are checked when read), the read-back refuses it.
    const body = path.join(dir, 'body.db');
    fs.copyFileSync(file, body);
    flip(body, read.entries[1].offset + 100);
    assert.doesNotThrow(() => readDeltaHeader(fs.openSync(body, 'r')));
    await assert.rejects(verifyDelta(body), /checksum mismatch \(chunk 3\)/);
  });

  it('a read-back (of a delta or a full snapshot) ends when a stop asks, so a stop does not wait for it', async () => {
    const dir = tempDir('delta-stop-');
    await writeDelta(dir, 7, 5, PAGED_CHUNK, [{ index: 0, data: new Uint8Array(PAGED_CHUNK).fill(1) }]);
    await assert.rejects(verifyDelta(path.join(dir, deltaName(7)), () => true), CheckpointStopped);
    const snapDir = await seeded(2000);
    const snap = path.join(snapDir, snapshotName(listSnapshots(snapDir)[0]));
    await assert.rejects(verifySnapshot(snap, () => true), CheckpointStopped);
    // Not asked to stop, both read back whole.
    await verifyDelta(path.join(dir, deltaName(7)), () => false);
    await verifySnapshot(snap, () => false);
  });
});

describe('PagedBytes checkpoints', () => {
  it('a chunk written again after the capture stays dirty when the checkpoint settles', async () => {
    const SQL = await loadSqlJs();
    void SQL;
    const paged = new PagedBytes({ length: 0, locs: [], headGen: 1 }, 8 * PAGED_CHUNK);
    paged.set(new Uint8Array(100).fill(1), 0);
    paged.set(new Uint8Array(100).fill(2), PAGED_CHUNK + 10);
    const cap = paged.capture(false);
    assert.deepEqual(cap.dirty.map((c) => c.index).sort(), [0, 1]);
    paged.set(new Uint8Array(10).fill(3), PAGED_CHUNK + 500); // after the capture
    assert.equal(cap.dirty.find((c) => c.index === 1)?.data[500], 0, 'the capture keeps its bytes (copy on write)');
    assert.equal(paged.subarray(PAGED_CHUNK + 500, PAGED_CHUNK + 501)[0], 3, 'the database has the new ones');
    assert.equal(cap.dirty.find((c) => c.index === 0)?.data[0], 1);
    const dir = tempDir('delta-settle-');
    const info = await writeDelta(dir, 2, 1, cap.length, cap.dirty);
    const { FileRef } = await import('../../worker/store/pagedFile');
    const ref = FileRef.open(path.join(dir, deltaName(2)));
    paged.settle(2, info.entries.map((e) => [e.index, { ref, offset: e.offset, len: PAGED_CHUNK, crc: e.crc }]), cap.clock);
    assert.deepEqual(paged.dirtyChunks(), [1], 'chunk 1 was written after the capture');
    assert.equal(paged.headGen, 2);
    paged.close();
  });

  it('a settled checkpoint leaves the cache within its budget: the chunks it wrote are read back when needed', async () => {
    const paged = new PagedBytes({ length: 0, locs: [], headGen: 1 }, 2 * PAGED_CHUNK);
    // Six chunks written (dirty ones are kept whatever the budget), then a seventh after the capture.
    for (let i = 0; i < 6; i++) paged.set(new Uint8Array(PAGED_CHUNK).fill(i + 1), i * PAGED_CHUNK);
    assert.equal(paged.stats.cachedBytes, 6 * PAGED_CHUNK);
    const cap = paged.capture(false);
    paged.set(new Uint8Array(10).fill(9), 6 * PAGED_CHUNK);
    const dir = tempDir('delta-trim-');
    const info = await writeDelta(dir, 2, 1, cap.length, cap.dirty);
    const { FileRef } = await import('../../worker/store/pagedFile');
    const ref = FileRef.open(path.join(dir, deltaName(2)));
    paged.settle(2, info.entries.map((e) => [e.index, { ref, offset: e.offset, len: PAGED_CHUNK, crc: e.crc }]), cap.clock);
    assert.deepEqual(paged.dirtyChunks(), [6]);
    assert.ok(paged.stats.cachedBytes <= 2 * PAGED_CHUNK, `cached ${paged.stats.cachedBytes / PAGED_CHUNK} chunks after the settle, budget 2`);
    const evicted = paged.stats.evictions;
    assert.ok(evicted >= 5, `${evicted} evicted`);
    for (let i = 0; i < 6; i++) assert.equal(paged.subarray(i * PAGED_CHUNK + 7, i * PAGED_CHUNK + 8)[0], i + 1, `chunk ${i} read back`);
    assert.equal(paged.subarray(6 * PAGED_CHUNK, 6 * PAGED_CHUNK + 1)[0], 9);
    assert.ok(paged.stats.reads >= 5, 'the dropped chunks were read from the delta');
    paged.close();
  });
});

describe('Store checkpoints with the page cache', () => {
  it('a write that journals a few bytes but dirties many chunks is followed by a delta, and the cache comes back within its budget', async () => {
    const dir = await seeded(6000);
    const s = await open(dir, { dirtyDeltaBytes: 1 << 20 });
    try {
      const journalBefore = s.journalBytes;
      // One short statement rewrites every row: megabytes of dirty chunks from a record of a few bytes.
      await s.write((tx) => tx.run('UPDATE t SET body = upper(body)'));
      assert.ok(s.journalBytes - journalBefore < 1000, `journal grew ${s.journalBytes - journalBefore} bytes`);
      await until(() => listDeltas(dir).length > 0 && (s.pageCache?.dirtyBytes ?? 1) === 0, 20_000, 'a delta of the dirty chunks');
      // A writer that waits for room (the index merger) finds it at once now, and after a second such write only once a delta has written it.
      await s.dirtyRoom();
      await s.write((tx) => tx.run('UPDATE t SET body = lower(body)'));
      await s.dirtyRoom();
      assert.ok((s.pageCache?.dirtyBytes ?? Infinity) < 1 << 20, `dirty ${s.pageCache?.dirtyBytes} after dirtyRoom`);
      assert.ok(listDeltas(dir).length > 0);
      assert.equal(s.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE body = lower(body)")?.n, 6000);
      await s.write((tx) => tx.run('UPDATE t SET body = upper(body)'));
      await s.dirtyRoom();
      assert.ok((s.pageCache?.cachedBytes ?? Infinity) <= BUDGET, `cached ${s.pageCache?.cachedBytes} after the delta`);
      assert.equal(s.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE body = upper(body)")?.n, 6000);
    } finally {
      await s.close();
    }
    // Reopened from the snapshot and the delta: the rewrite is there.
    const again = await open(dir);
    try {
      assert.equal(again.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE body = upper(body)")?.n, 6000);
    } finally {
      await again.close();
    }
  });

  it('writes deltas of what changed, evicts and re-reads their chunks, and reopens from snapshot + deltas + journal', async () => {
    const dir = await seeded(6000);
    const snapBytes = fs.statSync(path.join(dir, snapshotName(listSnapshots(dir)[0]))).size;
    let s = await open(dir);
    try {
      assert.ok(s.pageCache, 'served by the page cache');
      await insert(s, 6000, 100);
      await s.write((tx) => tx.run("UPDATE t SET body = 'edited' WHERE id = 17"));
      const d1 = await s.snapshot();
      assert.equal(d1.via, 'delta');
      assert.ok(d1.bytes < snapBytes / 4, `delta ${d1.bytes} bytes vs snapshot ${snapBytes}`);
      assert.deepEqual(listDeltas(dir), [d1.gen]);
      assert.equal(s.pageCache?.dirtyBytes, 0, 'what the delta holds is clean now');
      // Reading everything evicts the delta's chunks (budget of 4 chunks) and reads them back from it.
      assert.equal(s.get<{ n: number }>("SELECT count(*) AS n FROM t WHERE body = 'edited'")?.n, 1);
      assert.ok((s.pageCache?.evictions ?? 0) > 0);
      assert.equal(count(s), 6100);
      await insert(s, 6100, 50);
      const d2 = await s.snapshot();
      assert.equal(d2.via, 'delta');
      await insert(s, 6150, 5); // only in the journal
    } finally {
      await s.close(false);
    }
    s = await open(dir);
    try {
      assert.deepEqual(s.recovery.deltasApplied, listDeltas(dir));
      assert.equal(s.recovery.deltasApplied.length, 2);
      assert.equal(count(s), 6155);
      assert.equal(s.get<{ body: string }>('SELECT body FROM t WHERE id = 17')?.body, 'edited');
      assert.equal(s.get<{ body: string }>('SELECT body FROM t WHERE id = 6154')?.body, body(6154));
      assert.equal(s.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check, 'ok');
    } finally {
      await s.close(false);
    }
  });

  it('a damaged delta (any of them, header or chunk) is left out and the journals replay what it held', async () => {
    for (const [what, damage] of [
      ['newest, header', (f: string) => flip(f, 20)],
      ['first, header', (f: string) => flip(f, 40)],
      ['first, chunk', (f: string) => flip(f, fs.statSync(f).size - 10)],
      ['first, cut short', (f: string) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
    ] as const) {
      const dir = await seeded(3000);
      let s = await open(dir);
      await insert(s, 3000, 100);
      await s.snapshot();
      await s.write((tx) => tx.run('DELETE FROM t WHERE id BETWEEN 100 AND 130'));
      await s.snapshot();
      await insert(s, 5000, 30);
      await s.close(false);
      const deltas = listDeltas(dir);
      assert.equal(deltas.length, 2);
      const victim = path.join(dir, deltaName(what.startsWith('newest') ? deltas[1] : deltas[0]));
      damage(victim);
      s = await open(dir);
      try {
        assert.equal(s.degraded, undefined, `${what}: ${s.recovery.lost.join('; ')}`);
        assert.equal(count(s), 3100 - 31 + 30, what);
        assert.match(s.recovery.problems.join('\n'), new RegExp(path.basename(victim)), what);
        assert.ok(!fs.existsSync(victim) && fs.readdirSync(path.join(dir, 'damaged')).some((n) => n.startsWith(path.basename(victim))), `${what}: moved aside`);
        assert.equal(s.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check, 'ok', what);
      } finally {
        await s.close(false);
      }
    }
  });

  it('a chunk damaged in a large chain is caught when read (lazily): recovery leaves the delta out, and at run time it is an I/O error, never served', async () => {
    const SQL = await loadSqlJs();
    const dir = await seeded(3000);
    let s = await open(dir);
    await s.write((tx) => tx.run("UPDATE t SET body = 'first chunk too' WHERE id = 1"));
    await insert(s, 3000, 200);
    const d = await s.snapshot();
    await s.close(false);
    const file = path.join(dir, deltaName(d.gen));
    const fd = fs.openSync(file, 'r');
    const info = readDeltaHeader(fd);
    fs.closeSync(fd);
    // Chunk 0 (the schema page: read by the first query at open).
    assert.equal(info.entries[0].index, 0);
    const keep = fs.readFileSync(file);
    flip(file, info.entries[0].offset + 7);
    const r = recover(SQL, dir, { quarantine: false, pageCacheBytes: BUDGET, verifyAtOpenBytes: 0 });
    assert.deepEqual(r.report.deltasApplied, []);
    assert.match(r.report.problems.join('\n'), /changed on disk/);
    assert.equal(Number(r.db.exec('SELECT count(*) FROM t')[0].values[0][0]), 3200);
    r.db.close();

    // Damage a chunk the first query does not read: the store opens lazily and refuses it when read.
    fs.writeFileSync(file, keep);
    const last = info.entries[info.entries.length - 1];
    flip(file, last.offset + 7);
    const chain = openChain(dir, listSnapshots(dir)[0], [d.gen], { notes: [], damaged: [] }, 0);
    assert.deepEqual(chain.deltas, [d.gen], 'headers check out: the chunk is checked when read');
    const paged = new PagedBytes(chain, BUDGET);
    const damaged: string[] = [];
    paged.onDamage = (f) => damaged.push(path.basename(f));
    const db = new SQL.Database(paged as unknown as Uint8Array);
    db.run('PRAGMA cache_size = -64');
    assert.throws(() => db.exec('SELECT sum(length(body)) FROM t'), /changed on disk|I\/O/i);
    assert.deepEqual(damaged, [deltaName(d.gen)]);
    try {
      db.close();
    } catch {
      /* may be unusable after the error */
    }
    paged.close();
    s = await open(dir);
    await s.close(false);
  });

  it('a snapshot chunk damaged while the worker runs is an I/O error, never served: the store turns read-only, the file goes to damaged/, and a restart rebuilds without it', async () => {
    const dir = await seeded(3000);
    let s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: BUDGET, deltaMinBytes: 0, verifyAtOpenBytes: 0 });
    const snap = path.join(dir, snapshotName(listSnapshots(dir)[0]));
    try {
      s.db.run('PRAGMA cache_size = -64');
      flip(snap, Math.floor(fs.statSync(snap).size / 2));
      assert.throws(() => s.get('SELECT sum(length(body)) AS n FROM t'), /changed on disk|I\/O/i);
      assert.match(String(s.degraded), /changed on disk after it was written/);
      await assert.rejects(insert(s, 9000, 1), /degraded|read-only/i);
      assert.ok(!fs.existsSync(snap) && fs.readdirSync(path.join(dir, 'damaged')).some((n) => n.startsWith(path.basename(snap))), 'moved aside');
    } finally {
      await s.close(false);
    }
    // The only snapshot is gone: every journal segment from the first was kept beside it.
    s = await open(dir);
    try {
      assert.equal(s.degraded, undefined, s.recovery.lost.join('; '));
      assert.equal(count(s), 3000);
    } finally {
      await s.close(false);
    }
  });

  it('a damaged full snapshot falls back to the older one and the deltas after it', async () => {
    const dir = await seeded(3000);
    let s = await open(dir);
    await insert(s, 3000, 100);
    await s.snapshot(); // delta
    const full = await s.snapshot(false, true);
    assert.equal(full.via, 'merged');
    await insert(s, 3100, 100);
    await s.snapshot(); // delta on the merged snapshot
    await insert(s, 3200, 7);
    await s.close(false);
    const snaps = listSnapshots(dir);
    assert.equal(snaps.length, 2);
    flip(path.join(dir, snapshotName(snaps[1])), 30);
    s = await open(dir);
    try {
      assert.equal(s.degraded, undefined, s.recovery.lost.join('; '));
      assert.equal(s.recovery.snapshotGen, snaps[0]);
      assert.equal(count(s), 3207);
      assert.equal(s.get<{ integrity_check: string }>('PRAGMA integrity_check')?.integrity_check, 'ok');
    } finally {
      await s.close(false);
    }
  });

  it('takes a full snapshot (merged from the chunks) once the deltas pass half its size, then prunes deltas and journals older than the older full snapshot', async () => {
    const dir = await seeded(2000);
    const s = await open(dir);
    try {
      const vias: string[] = [];
      for (let k = 0; k < 12; k++) {
        await s.write((tx) => tx.run('UPDATE t SET body = ? WHERE id BETWEEN ? AND ?', [`round ${k} `.padEnd(600, 'q'), k * 100, k * 100 + 99]));
        vias.push((await s.snapshot()).via);
      }
      assert.ok(vias.includes('delta') && vias.includes('merged'), vias.join(' '));
      const snaps = listSnapshots(dir);
      assert.equal(snaps.length, 2);
      assert.ok(listDeltas(dir).every((g) => g >= snaps[0]), `deltas ${listDeltas(dir)} vs snapshots ${snaps}`);
      assert.ok(listSegments(dir).every((g) => g >= snaps[0]));
    } finally {
      await s.close(false);
    }
    const again = await open(dir);
    try {
      assert.equal(count(again), 2000);
      assert.equal(again.get<{ body: string }>('SELECT body FROM t WHERE id = 1150')?.body, 'round 11 '.padEnd(600, 'q'));
      assert.equal(again.get<{ body: string }>('SELECT body FROM t WHERE id = 50')?.body, 'round 0 '.padEnd(600, 'q'));
    } finally {
      await again.close(false);
    }
  });

  it('compaction after a delete writes two full snapshots and removes every file that held the deleted text', async () => {
    const dir = await seeded(2000);
    const s = await open(dir);
    const secret = 'very secret words'.padEnd(600, 'z');
    try {
      await s.write((tx) => tx.run('INSERT INTO t (id, body) VALUES (?, ?)', [99999, secret]));
      await s.snapshot(); // a delta holding it
      await s.write((tx) => {
        tx.run('DELETE FROM t WHERE id = 99999');
        tx.erased();
      });
      await s.snapshot(); // a delta after the delete
      await s.compact();
      const files = fs.readdirSync(dir).filter((n) => /^(snapshot|delta|journal)-/.test(n));
      for (const f of files) assert.ok(!fs.readFileSync(path.join(dir, f)).includes('very secret words'), `${f} still holds the deleted text`);
      assert.equal(listSnapshots(dir).length, 2);
    } finally {
      await s.close(false);
    }
  });

  it('a graceful stop writes a delta, and the next start replays nothing', async () => {
    const dir = await seeded(3000);
    let s = await open(dir);
    await insert(s, 3000, 100);
    await s.close(true);
    assert.equal(listDeltas(dir).length, 1);
    s = await open(dir);
    try {
      assert.equal(s.recovery.recordsReplayed, 0);
      assert.equal(count(s), 3100);
    } finally {
      await s.close(false);
    }
  });

  it('a fresh data dir is served by the page cache from its first start, and its bulk writes are checkpointed as deltas', async () => {
    const dir = path.join(tempDir('delta-first-'), 'db');
    const first = { dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: 16 << 20, deltaMinBytes: 0, snapshotAtFirstStart: true };
    let s = await Store.open(first);
    assert.equal(listSnapshots(dir).length, 1, 'the first start wrote a snapshot');
    assert.ok(s.pageCache, 'served by the page cache from the first start');
    await s.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'));
    // About 10 MB of journal, as an import writes it, and the stop right after the last write.
    const rows = 16_000;
    for (let i = 0; i < rows; i += 500) await insert(s, i, 500);
    await s.close(false);
    assert.ok(listDeltas(dir).length >= 1, 'deltas were taken during the bulk write');
    s = await open(dir);
    try {
      assert.equal(count(s), rows);
    } finally {
      await s.close(false);
    }
  });

  it('a stop does not wait for a delta under way: it ends at its next piece, and the next start has every row', async () => {
    const dir = await seeded(3000);
    let s = await open(dir);
    await insert(s, 3000, 200);
    const before = fs.readdirSync(dir).filter((n) => /^(snapshot|delta)-/.test(n));
    const underWay = s.snapshot();
    await s.close(false);
    await assert.rejects(underWay, CheckpointStopped);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => /^(snapshot|delta)-|\.tmp-/.test(n)), before, 'no checkpoint written, no temp file left');
    s = await open(dir);
    try {
      assert.ok(s.recovery.recordsReplayed >= 1, 'the journal holds the write the delta was for');
      assert.equal(count(s), 3200);
    } finally {
      await s.close(false);
    }
  });

  it('a stop writes no checkpoint however long the journal since the last one: the next start replays it all', async () => {
    const dir = await seeded(3000);
    // No bulk delta: about 3.5 MB of journal since the snapshot when the stop comes.
    let s = await open(dir, { bulkDeltaBytes: 0 });
    for (let i = 3000; i < 8000; i += 500) await insert(s, i, 500);
    const before = fs.readdirSync(dir).filter((n) => /^(snapshot|delta)-/.test(n));
    await s.close(false);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => /^(snapshot|delta)-/.test(n)), before, 'the stop wrote no checkpoint');
    s = await open(dir);
    try {
      assert.equal(s.recovery.recordsReplayed, 10);
      assert.equal(count(s), 8000);
    } finally {
      await s.close(false);
    }
  });

  it('with the page cache off (0) a data dir with deltas opens from the full snapshot and the journals, and its checkpoints are full snapshots', async () => {
    const dir = await seeded(3000);
    let s = await open(dir);
    await insert(s, 3000, 100);
    await s.snapshot();
    await insert(s, 3100, 10);
    await s.close(false);
    assert.equal(listDeltas(dir).length, 1);
    s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: 0 });
    try {
      assert.equal(s.pageCache, undefined);
      assert.deepEqual(s.recovery.deltasApplied, []);
      assert.equal(count(s), 3110);
      assert.equal((await s.snapshot(true)).via, 'main');
      assert.equal((await s.snapshot(true)).via, 'main');
      assert.deepEqual(listDeltas(dir), [], 'pruned with the full snapshots older than the newest two');
    } finally {
      await s.close(false);
    }
    s = await open(dir);
    try {
      assert.equal(count(s), 3110);
    } finally {
      await s.close(false);
    }
  });
});

describe('snapshot format v1', () => {
  it('a v1 snapshot (no chunk table) still opens, with the page cache on and off, and the first checkpoint replaces it with a v2 one', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    for (let i = 0; i < 2000; i++) db.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, body(i)]);
    const bytes = db.export();
    db.close();
    const dir = path.join(tempDir('delta-v1-'), 'db');
    fs.mkdirSync(dir, { recursive: true });
    const head = Buffer.alloc(24);
    head.write('CMEMSNP1', 0, 'ascii');
    head.writeBigUInt64LE(BigInt(bytes.length), 8);
    const { crc32 } = await import('node:zlib');
    head.writeUInt32LE(crc32(bytes), 16);
    fs.writeFileSync(path.join(dir, snapshotName(1)), Buffer.concat([head, bytes]));
    fs.writeFileSync(path.join(dir, 'journal-0000000001.log'), '');
    for (const pageCacheBytes of [0, BUDGET]) {
      const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes, deltaMinBytes: 0 });
      try {
        assert.equal(s.recovery.snapshotGen, 1);
        assert.equal(count(s), 2000, `page cache ${pageCacheBytes}`);
      } finally {
        await s.close(false);
      }
    }
    const s = await open(dir);
    try {
      await insert(s, 2000, 10);
      assert.equal((await s.snapshot()).via, 'merged', 'not a delta over a v1 snapshot');
      assert.equal((await s.snapshot()).via, 'delta');
    } finally {
      await s.close(false);
    }
    const again = await open(dir);
    try {
      assert.equal(count(again), 2010);
    } finally {
      await again.close(false);
    }
  });
});

describe('page cache budget', () => {
  it("is shared between the chunks and SQLite's own page cache, and both halves are bounded", async () => {
    const dir = await seeded(6000);
    const budget = 16 * PAGED_CHUNK;
    const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: budget, deltaMinBytes: 0 });
    try {
      // cache_size < 0 is KiB: half the budget.
      assert.equal(s.get<{ cache_size: number }>('PRAGMA cache_size')?.cache_size, -(budget / 2 / 1024));
      assert.ok(s.pageCache && s.pageCache.size > 2 * budget, `database ${s.pageCache?.size} bytes vs budget ${budget}`);
      for (let i = 0; i < 3; i++) assert.equal(count(s), 6000);
      assert.equal(Number(s.get<{ n: number }>('SELECT sum(length(body)) AS n FROM t')?.n), 6000 * 600);
      assert.ok(s.pageCache.cachedBytes <= budget / 2, `chunks held ${s.pageCache.cachedBytes} bytes`);
      assert.ok(s.pageCache.evictions > 0);
    } finally {
      await s.close(false);
    }
  });
});

describe('page cache setting', () => {
  it("is on (16 MiB, shared with SQLite's own page cache) unless CLAUDE_MEM_PAGE_CACHE_MB says otherwise; 0 turns it off", () => {
    assert.equal(pageCacheBytesFromEnv({}), 16 << 20);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: '' }), 16 << 20);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: 'lots' }), 16 << 20);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: '64' }), 64 << 20);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: '0' }), 0);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: '16' }), 16 << 20);
    assert.equal(pageCacheBytesFromEnv({ CLAUDE_MEM_PAGE_CACHE_MB: '1' }), 4 << 20);
  });
});
