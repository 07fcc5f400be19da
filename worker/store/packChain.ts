// Packing the chain: the newest full snapshot and the deltas after it are what the page cache reads
// (chain.ts), so they cannot be kept as the cold snapshots' 1 MiB blocks (coldSnapshot.ts). Once a
// checkpoint is written, each of them that is still raw is rewritten in place with every 64 KiB
// chunk stored as four 16 KiB sub-blocks, each raw-deflated on its own (snapshot v4 "CMEMSNP4", delta
// "CMEMDLT3": snapshot.ts, delta.ts, pagedFile.ts), of which the page cache inflates the one it
// reads. A delta is written packed (delta.ts) except a start's catch-up (the start waits for it), and
// a data dir may hold raw files from before packing, or files packed whole (v3 "CMEMSNP3", "CMEMDLT2":
// each chunk one stream, inflated whole on every read) from before sub-blocks, which are packed again
// the same way, so packing is background work: chunks are deflated on the thread pool, and a stop stops
// it at its next piece (its temp file removed, the raw file kept). Once nothing is raw, the packed
// deltas are merged into one when they have grown enough (mergeDeltas, below).
//
// Steps, each a state a kill may leave: the packed copy written to a temp file and synced
// (pack:before-sync), read back from disk chunk by chunk and checked (pack:verified), renamed
// over the raw file (pack:renamed), the directory synced. At every moment the file's name holds a
// whole, verified copy of the same bytes (the raw one, then the packed one), and the temp file a
// start finds is removed (store.ts). A file pruned meanwhile is not brought back: the rename is
// done only when the raw file is still there, in the same tick as that check.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { StoppedError } from './coldSnapshot';
import { CheckpointStopped, type DeltaInfo, deltaLoc, deltaName, listDeltas, packedDeltaBase, packedDeltaHead, readDeltaHeader, verifyDelta, writePackedChunks, writeParts } from './delta';
import { faultPoint } from './faultPoint';
import { syncDir } from './journal';
import { type ChunkLoc, FileRef, PAGED_CHUNK, packChunks, readLoc } from './pagedFile';
import { chunkCount, chunkPlaces, listSnapshots, packedSnapshotFrame, SNAPSHOT_HEADER, snapshotHeader, snapshotHeaderOf, snapshotName } from './snapshot';

/** Chunks read, deflated (in parallel on the thread pool) and written at once (256 KiB): a stop waits for at most one such piece. */
const BATCH = 4;
/** Packed chunks a merge copies at once (at most 8 MiB read and written; fewer turns of a busy event loop). */
const COPY_BATCH = 128;

export interface Packed {
  name: string;
  rawBytes: number;
  packedBytes: number;
  ms: number;
  /** A merge: how many deltas it merged into one (rawBytes is then their bytes). */
  merged?: number;
}

/** A packed file's chunks, where they are now: the page cache reads them from there (PagedBytes.repoint). */
export type OnPacked = (file: string, placed: [number, ChunkLoc][]) => void;

/**
 * Packs every raw file of the chain (the newest full snapshot, then each delta after it), one at a
 * time, until none is left; `onPacked` is called right after each rename, in the same tick.
 * `stopping` (a stop, or storage found damaged) ends it before the next piece.
 */
export async function packChain(dir: string, stopping: () => boolean, onPacked: OnPacked): Promise<Packed[]> {
  const done: Packed[] = [];
  const tried = new Set<string>();
  for (;;) {
    if (stopping()) return done;
    const next = rawChainFiles(dir).find((f) => !tried.has(f));
    // Every file packed: merge the deltas once those after the first have grown enough.
    const run = next === undefined ? deltasToMerge(dir) : [];
    if (next === undefined && run.length === 0) return done;
    const name = next ?? deltaName(run[run.length - 1]);
    if (next !== undefined) tried.add(next);
    else if (tried.has(run.join())) return done;
    else tried.add(run.join());
    const t0 = performance.now();
    try {
      const r = next !== undefined ? await packFile(next, stopping, onPacked) : await mergeDeltas(dir, run, stopping, onPacked);
      if (r) done.push({ name: path.basename(name), ...r, ms: Math.round(performance.now() - t0), ...(next === undefined ? { merged: run.length } : {}) });
    } catch (e) {
      if (e instanceof StoppedError) return done;
      throw new Error(`${path.basename(name)} not ${next !== undefined ? 'packed' : 'merged'} (kept as it is): ${(e as Error).message}`);
    }
  }
}

/**
 * The packed deltas after the newest full snapshot are merged into one once those after the first
 * add up to this share of it: the chain stays about one packed database long (plus this share of it)
 * while an import writes a delta every 2 MiB of journal, each mostly chunks the ones before it
 * held too (the full-text index's merges rewrite recent chunks).
 */
export const MERGE_SHARE = 0.5;

/**
 * The deltas to merge now (their gens, oldest first), or none: the packed ones after the newest
 * full snapshot, up to the first raw one, one that does not build on those before it (chain.ts)
 * or one that shrinks the database, when there are two or more and those after the first add up to MERGE_SHARE of it.
 */
export function deltasToMerge(dir: string): number[] {
  const snaps = listSnapshots(dir);
  if (snaps.length === 0) return [];
  let head = snaps[snaps.length - 1];
  let length: number;
  try {
    length = snapshotHeader(path.join(dir, snapshotName(head))).length;
  } catch {
    return [];
  }
  const run: number[] = [];
  const sizes: number[] = [];
  for (const g of listDeltas(dir).filter((d) => d > head)) {
    const file = path.join(dir, deltaName(g));
    let info: DeltaInfo;
    try {
      const fd = fs.openSync(file, 'r');
      try {
        info = readDeltaHeader(fd);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      break;
    }
    // (A database that shrinks drops the chunks past its end, which a merged delta would not.)
    if (!info.packed || info.gen !== g || info.prevGen > head || info.length < length) break;
    run.push(g);
    sizes.push(info.bytes);
    head = g;
    length = info.length;
  }
  if (run.length < 2) return [];
  const after = sizes.slice(1).reduce((n, b) => n + b, 0);
  return after >= sizes[0] * MERGE_SHARE ? run : [];
}

/**
 * Merges packed deltas `gens` (oldest first, each building on the one before) into one: the newest
 * copy of each chunk, its packed bytes copied as they are, under the newest one's gen and name, with
 * the first one's prevGen. Steps, each a state a kill may leave: the merged delta written to a temp
 * file and synced (merge:before-sync), read back and each chunk's bytes checked against those
 * copied (merge:verified),
 * renamed over the newest (merge:renamed: the older ones then lie under it, each chunk of theirs
 * overridden), the older ones removed newest first (a start lays what is left in order; each
 * builds on the one before), the directory synced. Returns null when one was pruned meanwhile.
 */
async function mergeDeltas(dir: string, gens: number[], stopping: () => boolean, onPacked: OnPacked): Promise<{ rawBytes: number; packedBytes: number } | null> {
  const files = gens.map((g) => path.join(dir, deltaName(g)));
  const target = files[files.length - 1];
  const tmp = `${target}.tmp-${process.pid}`;
  const fds: number[] = [];
  let committed = false;
  try {
    const newest = new Map<number, ChunkLoc>();
    let first: DeltaInfo | undefined;
    let last: DeltaInfo | undefined;
    let rawBytes = 0;
    for (const file of files) {
      const fd = fs.openSync(file, 'r');
      fds.push(fd);
      const info = readDeltaHeader(fd);
      const ref = new FileRef(file, fd);
      for (const e of info.entries) newest.set(e.index, deltaLoc(ref, e));
      rawBytes += info.bytes;
      first ??= info;
      last = info;
    }
    if (!first || !last) return null;
    const count = chunkCount(last.length);
    const chunks = [...newest].filter(([i]) => i < count).sort((a, b) => a[0] - b[0]);
    const out = await fs.promises.open(tmp, 'w', 0o600);
    const stored: Uint32Array[] = [];
    const storedCrcs: number[] = [];
    try {
      const copied = async (from: number, to: number) => {
        if (stopping()) throw new StoppedError();
        if (!files.every((f) => fs.existsSync(f))) return null;
        return Promise.all(
          chunks.slice(from, to).map(async ([, loc]) => {
            const bytes = Buffer.allocUnsafe(loc.packed ?? loc.len);
            await loc.ref.read(bytes, bytes.length, loc.offset);
            return { bytes, subs: loc.subs as Uint32Array }; // only deltas packed in sub-blocks are merged
          }),
        );
      };
      if ((await writePackedChunks(out, packedDeltaBase(chunks.length), chunks.length, COPY_BATCH, copied, stored, storedCrcs)) === null) return null;
      if (stopping()) throw new StoppedError();
      const info: DeltaInfo = { ...last, prevGen: first.prevGen, entries: chunks.map(([index, loc]) => ({ index, crc: loc.crc, offset: 0 })) };
      await writeParts(out, [packedDeltaHead(info, stored)], 0);
      faultPoint('merge:before-sync');
      await out.sync();
    } finally {
      await out.close();
    }
    // Read back from disk, as a start would read it, before it takes the newest delta's place.
    let merged: DeltaInfo;
    try {
      // Each chunk's bytes against those copied (each source was read back when it was written).
      merged = await verifyDelta(tmp, stopping, storedCrcs);
    } catch (e) {
      throw e instanceof CheckpointStopped ? new StoppedError() : e;
    }
    if (merged.gen !== last.gen || merged.prevGen !== first.prevGen || merged.length !== last.length || merged.entries.some((e, k) => e.index !== chunks[k]?.[0] || e.crc !== chunks[k][1].crc) || merged.entries.length !== chunks.length)
      throw new Error('the merged delta does not read back as written');
    if (stopping()) throw new StoppedError();
    faultPoint('merge:verified');
    // The check and the rename in one tick: a prune (synchronous too) cannot fall between them.
    if (!files.every((f) => fs.existsSync(f))) return null;
    fs.renameSync(tmp, target);
    committed = true;
    const ref = FileRef.open(target);
    const placed = merged.entries.map((e): [number, ChunkLoc] => [e.index, deltaLoc(ref, e)]);
    for (const file of files) onPacked(file, placed);
    ref.closeIfUnused();
    faultPoint('merge:renamed');
    for (const file of files.slice(0, -1).reverse()) fs.rmSync(file, { force: true });
    await syncDir(dir);
    return { rawBytes, packedBytes: fs.statSync(target).size };
  } finally {
    for (const fd of fds) fs.closeSync(fd);
    if (!committed) fs.rmSync(tmp, { force: true });
  }
}

/** The chain's files that are not packed (in sub-blocks) yet: the newest full snapshot's .db, then the deltas after it. */
export function rawChainFiles(dir: string): string[] {
  const snaps = listSnapshots(dir);
  if (snaps.length === 0) return [];
  const newest = snaps[snaps.length - 1];
  const files = [path.join(dir, snapshotName(newest)), ...listDeltas(dir).filter((g) => g > newest).map((g) => path.join(dir, deltaName(g)))];
  return files.filter((f) => formOf(f) === 'raw');
}

/** Whether a snapshot or delta file is raw (v2 snapshot, v1 delta) or packed whole (v3, CMEMDLT2): to pack; packed in sub-blocks; or something else (a v1 snapshot, missing, damaged). */
function formOf(file: string): 'raw' | 'packed' | 'other' {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return 'other';
  }
  try {
    const head = Buffer.alloc(8);
    fs.readSync(fd, head, 0, 8, 0);
    const magic = head.toString('latin1');
    return ['CMEMSNP2', 'CMEMDLT1', 'CMEMSNP3', 'CMEMDLT2'].includes(magic) ? 'raw' : magic === 'CMEMSNP4' || magic === 'CMEMDLT3' ? 'packed' : 'other';
  } finally {
    fs.closeSync(fd);
  }
}

interface Source {
  /** Each chunk to pack: its index in the database, where it is in the raw file, its raw length. */
  chunks: { index: number; loc: ChunkLoc }[];
  /** Writes the header (and table) once every chunk is written; `stored` is each chunk's sub-blocks in the file, `end` where the chunks end. */
  frame(out: fs.promises.FileHandle, stored: Uint32Array[], end: number, crc: number): Promise<void>;
  /** Where the first chunk goes. */
  base: number;
  /** Reads the packed file's header back from disk and returns where each chunk is in it. */
  readBack(fd: number, ref: FileRef): [number, ChunkLoc][];
}

function sourceOf(file: string, fd: number, ref: FileRef): Source {
  if (path.basename(file).startsWith('delta-')) {
    const info = readDeltaHeader(fd);
    return {
      chunks: info.entries.map((e) => ({ index: e.index, loc: deltaLoc(ref, e) })),
      base: packedDeltaBase(info.entries.length),
      frame: async (out, stored) => {
        const head = packedDeltaHead(info, stored);
        await writeParts(out, [head], 0);
      },
      readBack: (pfd, pref) => {
        const packed = readDeltaHeader(pfd);
        if (!packed.packed || packed.gen !== info.gen || packed.prevGen !== info.prevGen || packed.length !== info.length) throw new Error('the packed delta does not read back as the same delta');
        return packed.entries.map((e): [number, ChunkLoc] => [e.index, deltaLoc(pref, e)]);
      },
    };
  }
  const h = snapshotHeaderOf(fd);
  const places = chunkPlaces(fd, h);
  if (!places || (h.version !== 2 && h.version !== 3)) throw new Error(`snapshot v${h.version} is not packed`);
  return {
    chunks: places.map((p, i) => ({ index: i, loc: { ref, ...p } })),
    base: SNAPSHOT_HEADER,
    frame: async (out, stored, end, crc) => {
      if (crc !== h.crc) throw new Error('checksum mismatch (of the whole snapshot, read for packing)');
      const { head, table } = packedSnapshotFrame(
        h.length,
        crc,
        places.map((p, i) => ({ crc: p.crc, subs: stored[i] })),
      );
      await writeParts(out, [table], end);
      await writeParts(out, [head], 0);
    },
    readBack: (pfd, pref) => {
      const ph = snapshotHeaderOf(pfd);
      if (ph.version !== 4 || ph.length !== h.length || ph.crc !== h.crc) throw new Error('the packed snapshot does not read back as the same snapshot');
      return (chunkPlaces(pfd, ph) ?? []).map((p, i): [number, ChunkLoc] => [i, { ref: pref, ...p }]);
    },
  };
}

/**
 * Packs one raw snapshot or delta in place. Returns null when it was pruned meanwhile (nothing
 * renamed, the temp file removed). Throws StoppedError when `stopping` ended it.
 */
async function packFile(file: string, stopping: () => boolean, onPacked: OnPacked): Promise<{ rawBytes: number; packedBytes: number } | null> {
  const dir = path.dirname(file);
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(file, 'r');
  let committed = false;
  try {
    const rawBytes = fs.fstatSync(fd).size;
    const src = sourceOf(file, fd, new FileRef(file, fd));
    const out = await fs.promises.open(tmp, 'w', 0o600);
    try {
      const stored: Uint32Array[] = [];
      let crc = 0;
      const packed = async (from: number, to: number) => {
        // Stopped, or pruned meanwhile (then its bytes, maybe deleted text, must not live on here).
        if (stopping()) throw new StoppedError();
        if (!fs.existsSync(file)) return null;
        const raws = await Promise.all(
          src.chunks.slice(from, to).map(async (c) => {
            const buf = new Uint8Array(PAGED_CHUNK);
            await readLoc(c.loc, buf, c.index); // checked against its CRC: a damaged file is not packed
            return buf.subarray(0, c.loc.len);
          }),
        );
        for (const r of raws) crc = crc32(r, crc);
        return packChunks(raws);
      };
      const end = await writePackedChunks(out, src.base, src.chunks.length, BATCH, packed, stored);
      if (end === null) return null;
      if (stopping()) throw new StoppedError();
      await src.frame(out, stored, end, crc);
      faultPoint('pack:before-sync');
      await out.sync();
    } finally {
      await out.close();
    }
    // Read back from disk, as a start would read it, before it takes the raw file's place.
    const pfd = fs.openSync(tmp, 'r');
    let placed: [number, ChunkLoc][];
    try {
      const pref = new FileRef(tmp, pfd);
      placed = src.readBack(pfd, pref);
      if (placed.length !== src.chunks.length) throw new Error('the packed file lists another number of chunks');
      const buf = new Uint8Array(PAGED_CHUNK);
      for (let k = 0; k < placed.length; k++) {
        if (k % BATCH === 0 && stopping()) throw new StoppedError();
        const [i, loc] = placed[k];
        if (i !== src.chunks[k].index || loc.crc !== src.chunks[k].loc.crc) throw new Error(`chunk ${i} does not read back as written`);
        await readLoc(loc, buf, i);
      }
    } finally {
      fs.closeSync(pfd);
    }
    if (stopping()) throw new StoppedError();
    faultPoint('pack:verified');
    // The check and the rename in one tick: a prune (synchronous too) cannot fall between them.
    if (!fs.existsSync(file)) return null;
    fs.renameSync(tmp, file);
    committed = true;
    const ref = FileRef.open(file);
    onPacked(
      file,
      placed.map(([i, loc]) => [i, { ...loc, ref }]),
    );
    ref.closeIfUnused();
    faultPoint('pack:renamed');
    await syncDir(dir);
    return { rawBytes, packedBytes: fs.statSync(file).size };
  } finally {
    fs.closeSync(fd);
    if (!committed) fs.rmSync(tmp, { force: true });
  }
}
