// Packing the chain (worker/store/packChain.ts): after a checkpoint the newest full snapshot and the
// deltas after it are rewritten in place with each 64 KiB chunk deflated, and the page cache reads
// them from there. Real files in a temp dir, real sql.js: the packed files are smaller, every read
// gives the same rows (through a page cache small enough to evict and re-read), a store written
// before packing (raw files) or before sub-blocks (chunks packed whole) opens and is packed in sub-blocks,
// a read inflates only the sub-block it needs, a damaged packed chunk or sub-block is found, and the raw
// file's blocks leave the disk once packed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { openChain } from '../../worker/store/chain';
import { deltaName, listDeltas, readDeltaHeader, verifyDelta } from '../../worker/store/delta';
import { rawChainFiles } from '../../worker/store/packChain';
import { PACK_SUB, PAGED_CHUNK, PagedBytes } from '../../worker/store/pagedFile';
import { recover } from '../../worker/store/recovery';
import { chunkPlaces, listSnapshots, readSnapshot, snapshotHeader, snapshotHeaderOf, snapshotName, verifySnapshot, writeSnapshotFrom } from '../../worker/store/snapshot';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store } from '../../worker/store/store';
import { packWhole } from '../helpers/packedWhole';
import { tempDir, until } from '../helpers/worker';

const BUDGET = 4 * PAGED_CHUNK;
const open = (dir: string, packChain = true) =>
  Store.open({ dir, log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null, pageCacheBytes: BUDGET, deltaMinBytes: 0, packChain });
// Text that deflates about as the real history does (words, not one repeated letter).
const WORDS = ['search', 'index', 'journal', 'snapshot', 'delta', 'worker', 'session', 'observation', 'memory', 'chunk', 'page', 'cache'];
const body = (i: number) => Array.from({ length: 80 }, (_, k) => WORDS[(i * 7 + k * k) % WORDS.length] + ((i + k) % 97)).join(' ');

async function insert(s: Store, from: number, n: number): Promise<void> {
  await s.write((tx) => {
    for (let i = from; i < from + n; i++) tx.run('INSERT INTO t (id, body) VALUES (?, ?)', [i, body(i)]);
  });
}

const rows = (s: Store) => s.all<{ id: number; body: string }>('SELECT id, body FROM t ORDER BY id');
const magic = (file: string) => fs.readFileSync(file).subarray(0, 8).toString('latin1');
const newestSnapshot = (dir: string) => path.join(dir, snapshotName(listSnapshots(dir).pop() as number));

function expected(n: number, edited: number[] = []): { id: number; body: string }[] {
  return Array.from({ length: n }, (_, id) => ({ id, body: edited.includes(id) ? 'edited' : body(id) }));
}

/** Files this process holds open that were removed from the disk (their blocks are still taken). */
function removedButOpen(dir: string): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir) && target.endsWith('(deleted)')) out.push(target);
    } catch {
      /* closed meanwhile */
    }
  }
  return out;
}

let rawTemplate: string | undefined;

/**
 * A store of 3000 rows (about 2 MB) with one full snapshot and a delta after it, written raw
 * (packing off), closed. Written once; each call gets a copy of its files in a fresh dir.
 */
async function rawStore(): Promise<string> {
  rawTemplate ??= await writeRawStore();
  const dir = path.join(tempDir('pack-'), 'db');
  fs.cpSync(rawTemplate, dir, { recursive: true });
  return dir;
}

async function writeRawStore(): Promise<string> {
  const dir = path.join(tempDir('pack-seed-'), 'db');
  let s = await open(dir, false);
  await s.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'));
  for (let i = 0; i < 3000; i += 500) await insert(s, i, 500);
  await s.close(true); // its first snapshot: the next start is served by the page cache
  s = await open(dir, false);
  await insert(s, 3000, 100);
  await s.write((tx) => tx.run("UPDATE t SET body = 'edited' WHERE id = 17"));
  assert.equal((await s.snapshot()).via, 'delta');
  await s.close(false);
  return dir;
}

describe('packing the newest snapshot and its deltas', () => {
  it('a store of raw files (written before packing) opens as it is, then is packed in place: smaller files, the same rows', async () => {
    const dir = await rawStore();
    const snap = newestSnapshot(dir);
    const delta = path.join(dir, deltaName(listDeltas(dir).pop() as number));
    assert.equal(magic(snap), 'CMEMSNP2');
    assert.equal(magic(delta), 'CMEMDLT1');
    const rawSizes = [fs.statSync(snap).size, fs.statSync(delta).size];
    // Opened with packing off: the raw files as they are.
    let s = await open(dir, false);
    assert.deepEqual(rows(s), expected(3100, [17]));
    await s.close(false);
    // With packing: the start's background pass packs both (10 s after start), or the next checkpoint does.
    s = await open(dir);
    try {
      await insert(s, 3100, 10);
      await s.snapshot();
      await until(() => rawChainFiles(dir).length === 0, 20_000, 'the chain packed');
      assert.equal(magic(snap), 'CMEMSNP4');
      assert.ok(listDeltas(dir).every((g) => magic(path.join(dir, deltaName(g))) === 'CMEMDLT3'), 'every delta packed');
      // The raw delta, packed, and the new one (written packed) are merged into one: its chunks and the few new ones.
      await until(() => listDeltas(dir).length === 1, 20_000, 'the deltas merged into one');
      const packedSizes = [fs.statSync(snap).size, fs.statSync(path.join(dir, deltaName(listDeltas(dir)[0]))).size];
      assert.ok(packedSizes[0] < rawSizes[0] * 0.6, `snapshot ${rawSizes[0]} -> ${packedSizes[0]} bytes`);
      assert.ok(packedSizes[1] < rawSizes[1] * 0.6, `delta ${rawSizes[1]} -> ${packedSizes[1]} bytes`);
      // Served from the packed files now: reading every row evicts and re-reads (and inflates) chunks.
      const before = s.pageCache?.reads ?? 0;
      assert.deepEqual(rows(s), expected(3110, [17]));
      assert.ok((s.pageCache?.reads ?? 0) > before, 'chunks read again from the packed files');
      // A checkpoint running at that moment holds the files it captured until it ends, then lets go.
      await until(() => removedButOpen(dir).length === 0, 20_000, `no descriptor holds a raw file the packed one replaced (${removedButOpen(dir).join(' ')})`);
    } finally {
      await s.close(false);
    }
    // A start reads the packed chain: snapshot, deltas, then the journal.
    s = await open(dir);
    try {
      assert.deepEqual(rows(s), expected(3110, [17]));
      assert.ok(s.recovery.deltasApplied.length >= 1, 'the packed deltas were laid over the packed snapshot');
    } finally {
      await s.close(false);
    }
  });

  it('a store packed whole (before sub-blocks: CMEMSNP3, CMEMDLT2) opens as it is, then is packed again in sub-blocks: the same rows', async () => {
    const dir = await rawStore();
    const snap = newestSnapshot(dir);
    const delta = path.join(dir, deltaName(listDeltas(dir).pop() as number));
    assert.equal(packWhole(snap), 'CMEMSNP3');
    assert.equal(packWhole(delta), 'CMEMDLT2');
    await verifySnapshot(snap);
    await verifyDelta(delta);
    assert.deepEqual(rawChainFiles(dir), [snap, delta], 'both are to be packed again');
    // Opened with packing off: the files packed whole, as they are (each chunk inflated whole).
    let s = await open(dir, false);
    assert.deepEqual(rows(s), expected(3100, [17]));
    assert.deepEqual(s.recovery.deltasApplied, listDeltas(dir));
    await s.close(false);
    const SQL = await loadSqlJs();
    const { db, report } = recover(SQL, dir, { quarantine: false });
    assert.deepEqual(report.lost, []);
    assert.equal(Number(db.exec('SELECT count(*) FROM t')[0].values[0][0]), 3100);
    db.close();
    // With packing: both are packed again in sub-blocks, in place.
    s = await open(dir);
    try {
      await s.snapshot();
      await until(() => rawChainFiles(dir).length === 0 && !fs.readdirSync(dir).some((n) => n.includes('.tmp-')), 20_000, 'the chain packed in sub-blocks');
      assert.equal(magic(snap), 'CMEMSNP4');
      assert.ok(listDeltas(dir).every((g) => magic(path.join(dir, deltaName(g))) === 'CMEMDLT3'), 'every delta packed in sub-blocks');
      assert.deepEqual(rows(s), expected(3100, [17]));
    } finally {
      await s.close(false);
    }
    s = await open(dir);
    try {
      assert.deepEqual(rows(s), expected(3100, [17]));
    } finally {
      await s.close(false);
    }
  });

  it('a read inflates only the sub-block of a chunk it needs; a damaged sub-block is reported, not served, and the chunk\'s other sub-blocks still read', async () => {
    const dir = tempDir('subs-');
    // Three chunks and a half of text that deflates like the history, written as a packed snapshot.
    const bytes = Buffer.from(Array.from({ length: 900 }, (_, i) => body(i)).join('\n')).subarray(0, 3.5 * PAGED_CHUNK);
    assert.equal(bytes.length, 3.5 * PAGED_CHUNK);
    const file = await writeSnapshotFrom(
      dir,
      1,
      bytes.length,
      (async function* () {
        yield bytes;
      })(),
      { stopping: () => false },
    );
    assert.equal(magic(file), 'CMEMSNP4');
    const fd = fs.openSync(file, 'r');
    const places = chunkPlaces(fd, snapshotHeaderOf(fd)) ?? [];
    fs.closeSync(fd);
    assert.ok(places.every((p) => p.subs && p.packed !== undefined && p.packed < p.len * 0.6), 'each chunk deflated, in sub-blocks');
    // Not read whole at open: every read goes to the file.
    const chain = openChain(dir, 1, [], { notes: [], damaged: [] }, 0);
    const paged = new PagedBytes(chain, 2 * PAGED_CHUNK);
    const damage: [string, number][] = [];
    paged.onDamage = (f, i) => damage.push([path.basename(f), i]);
    try {
      const page = (at: number) => Buffer.from(paged.subarray(at, at + 4096));
      assert.deepEqual(page(PAGED_CHUNK + 4096), bytes.subarray(PAGED_CHUNK + 4096, PAGED_CHUNK + 8192));
      assert.equal(paged.stats.reads, 1, 'one sub-block read');
      assert.deepEqual(page(PAGED_CHUNK + 8192), bytes.subarray(PAGED_CHUNK + 8192, PAGED_CHUNK + 12288));
      assert.equal(paged.stats.reads, 1, 'the same sub-block: cached');
      assert.deepEqual(page(PAGED_CHUNK + 3 * PACK_SUB), bytes.subarray(PAGED_CHUNK + 3 * PACK_SUB, PAGED_CHUNK + 3 * PACK_SUB + 4096));
      assert.equal(paged.stats.reads, 2, 'another sub-block of the same chunk');
      // The last chunk is half a chunk (two sub-blocks).
      assert.deepEqual(page(3 * PAGED_CHUNK + PACK_SUB), bytes.subarray(3 * PAGED_CHUNK + PACK_SUB, 3 * PAGED_CHUNK + PACK_SUB + 4096));
      // Sub-block 2 of chunk 2 damaged on disk: reading it is an error (and reported), never its bytes.
      const p = places[2];
      const subs = p.subs as Uint32Array;
      const at = p.offset + subs[0] + subs[2] + (subs[4] >> 1);
      const f = fs.openSync(file, 'r+');
      fs.writeSync(f, Buffer.alloc(8, 0x5a), 0, 8, at);
      fs.closeSync(f);
      assert.throws(() => paged.subarray(2 * PAGED_CHUNK + 2 * PACK_SUB, 2 * PAGED_CHUNK + 2 * PACK_SUB + 4096), /chunk 2 sub-block 2 (does not inflate|changed on disk)/);
      assert.deepEqual(damage, [[path.basename(file), 2]]);
      // The chunk's other sub-blocks check out on their own and are served.
      assert.deepEqual(page(2 * PAGED_CHUNK), bytes.subarray(2 * PAGED_CHUNK, 2 * PAGED_CHUNK + 4096));
      assert.deepEqual(page(2 * PAGED_CHUNK + 3 * PACK_SUB), bytes.subarray(2 * PAGED_CHUNK + 3 * PACK_SUB, 2 * PAGED_CHUNK + 3 * PACK_SUB + 4096));
      // A write to the chunk needs all of it (a checkpoint writes it whole): refused too.
      assert.throws(() => paged.set(Buffer.alloc(10, 1), 2 * PAGED_CHUNK + 100), /chunk 2 sub-block 2/);
      // Whole-file readers find it as well.
      await assert.rejects(verifySnapshot(file), /checksum mismatch/);
    } finally {
      paged.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('readers without the page cache (the replica, claude-mem recover) read packed snapshots; each file checks out whole', async () => {
    const dir = await rawStore();
    let s = await open(dir);
    await s.snapshot(false, true); // a full snapshot: the chain is one file, packed next
    await until(() => rawChainFiles(dir).length === 0, 20_000, 'the chain packed');
    await s.close(false);
    const snap = newestSnapshot(dir);
    assert.equal(magic(snap), 'CMEMSNP4');
    await verifySnapshot(snap);
    assert.equal(snapshotHeader(snap).version, 4);
    const SQL = await loadSqlJs();
    for (const opts of [{ quarantine: false }, { quarantine: false, eager: true }]) {
      const { db, report } = recover(SQL, dir, opts);
      assert.deepEqual(report.lost, []);
      assert.equal(report.snapshotGen, listSnapshots(dir).pop());
      assert.equal(Number(db.exec('SELECT count(*) FROM t')[0].values[0][0]), 3100);
      db.close();
    }
    // The bytes a packed snapshot holds are the raw snapshot's: the database opens from them whole.
    const whole = new SQL.Database(readSnapshot(snap));
    assert.equal(Number(whole.exec("SELECT count(*) FROM t WHERE body = 'edited'")[0].values[0][0]), 1);
    whole.close();
    s = await open(dir);
    assert.deepEqual(rows(s), expected(3100, [17]));
    await s.close(false);
  });

  it('a damaged packed chunk is found: the snapshot and the delta do not check out, the chain refuses the snapshot', async () => {
    const dir = await rawStore();
    const s = await open(dir);
    await insert(s, 3100, 10);
    await s.snapshot();
    await until(() => rawChainFiles(dir).length === 0, 20_000, 'the chain packed');
    await s.close(false);
    const snap = newestSnapshot(dir);
    const delta = path.join(dir, deltaName(listDeltas(dir).pop() as number));
    const info = readDeltaHeader(fs.openSync(delta, 'r'));
    assert.ok(info.packed && info.entries.some((e) => e.packed !== undefined), 'the delta holds deflated chunks');
    for (const file of [snap, delta]) {
      const b = fs.readFileSync(file);
      const at = file === delta ? info.entries[0].offset + 8 : Math.floor(b.length / 3);
      for (let i = at; i < at + 16; i++) b[i] ^= 0x5a;
      fs.writeFileSync(file, b);
    }
    await assert.rejects(verifySnapshot(snap), /checksum mismatch/);
    await assert.rejects(verifyDelta(delta), /checksum mismatch/);
    // Read whole at open (a small chain): the damaged snapshot is refused there.
    assert.throws(() => openChain(dir, listSnapshots(dir).pop() as number, [], { notes: [], damaged: [] }), /does not inflate|changed on disk/);
  });

  it('a stop during packing leaves the raw file and no temp file; the next start packs it', async () => {
    const dir = await rawStore();
    let s = await open(dir);
    await insert(s, 3100, 10);
    const snap = newestSnapshot(dir);
    await s.snapshot(); // starts packing the chain in the background
    await s.close(false); // stops it at its next piece
    assert.ok(!fs.readdirSync(dir).some((n) => n.includes('.tmp-')), `no temp file left: ${fs.readdirSync(dir).join(' ')}`);
    assert.ok(['CMEMSNP2', 'CMEMSNP4'].includes(magic(snap)));
    s = await open(dir);
    try {
      assert.deepEqual(rows(s), expected(3110, [17]));
      await s.snapshot();
      await until(() => rawChainFiles(dir).length === 0, 20_000, 'the chain packed');
      assert.deepEqual(rows(s), expected(3110, [17]));
    } finally {
      await s.close(false);
    }
  });

  it('packed deltas are merged into one: fewer files, the newest copy of each chunk, the same rows before and after a restart', async () => {
    const dir = await rawStore();
    let s = await open(dir);
    const taken: number[] = [];
    try {
      await s.snapshot();
      await until(() => rawChainFiles(dir).length === 0, 20_000, 'the chain packed');
      // Each checkpoint rewrites chunks the one before held (row 17 edited each time): a delta, written packed.
      for (let k = 0; k < 5; k++) {
        await insert(s, 3100 + k * 100, 100);
        await s.write((tx) => tx.run('UPDATE t SET body = ? WHERE id = 17', [`edit ${k}`]));
        const r = await s.snapshot();
        assert.equal(r.via, 'delta');
        taken.push(r.gen);
        assert.equal(magic(path.join(dir, deltaName(r.gen))), 'CMEMDLT3', 'written packed');
      }
      await until(() => listDeltas(dir).length <= 2 && !fs.readdirSync(dir).some((n) => n.includes('.tmp-')), 20_000, `the deltas merged (${listDeltas(dir).join(' ')})`);
      const left = listDeltas(dir);
      assert.ok(left.includes(taken[taken.length - 1]) || left.length === 1, `the merged delta has the newest gen: ${left.join(' ')} of ${taken.join(' ')}`);
      const want = expected(3600, [17]).map((r) => (r.id === 17 ? { ...r, body: 'edit 4' } : r));
      assert.deepEqual(rows(s), want);
      await until(() => removedButOpen(dir).length === 0, 20_000, `no descriptor holds a merged delta (${removedButOpen(dir).join(' ')})`);
    } finally {
      await s.close(false);
    }
    // A start lays the merged chain over the snapshot: the same rows, nothing replayed but the journal after it.
    s = await open(dir);
    try {
      assert.deepEqual(rows(s).find((r) => r.id === 17)?.body, 'edit 4');
      assert.equal(rows(s).length, 3600);
      assert.deepEqual(s.recovery.deltasApplied, listDeltas(dir));
    } finally {
      await s.close(false);
    }
  });
});
