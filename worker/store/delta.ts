// Delta checkpoints: the page cache's chunks written since the previous checkpoint, so a
// checkpoint writes what changed instead of the whole database. delta-<gen>.db plus the files it
// builds on (the newest full snapshot and the deltas after it, chain.ts) hold exactly the database
// before journal segment <gen>.
//
// Layout: "CMEMDLT1" | u64 db length | u64 gen | u64 prevGen | u32 chunk size | u32 count |
// u32 crc32 of header + list | u32 zero | list: count x (u32 chunk index, u32 crc32 of its bytes) |
// the chunks' bytes, PAGED_CHUNK each, in list order. prevGen: the checkpoint whose state the
// writer's clean chunks held, so the delta is every chunk changed since then (chain.ts uses it to
// refuse a delta that does not fit the chain). Written like a snapshot: temp, fsync, rename, dir fsync.
// Packed ("CMEMDLT3": a delta taken while the worker runs is written so, a start's catch-up raw and
// packed by packChain.ts later; packChain.ts also merges packed deltas into one): the same header, list
// entries of u32 chunk index, u32 crc32 of its raw bytes, then per PACK_SUB sub-block of the chunk u32
// bytes stored (less than PACK_SUB: raw-deflated) and u32 crc32 of its raw bytes; then the chunks as
// stored (each its sub-blocks in order), in list order. "CMEMDLT2" (each chunk raw-deflated whole, list
// entries of u32 index, u32 crc32, u32 bytes stored), written before sub-blocks, is still read, and
// packed again in sub-blocks by packChain.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { listGenFiles, writeAtomically } from './journal';
import { type ChunkLoc, FileRef, PAGED_CHUNK, type PackedChunk, packChunks, readLoc, readSubs, SUBS_ENTRY, writeSubs } from './pagedFile';

const MAGIC = Buffer.from('CMEMDLT1', 'ascii');
const MAGIC_WHOLE = Buffer.from('CMEMDLT2', 'ascii');
const MAGIC_PACKED = Buffer.from('CMEMDLT3', 'ascii');
/** Bytes of a chunk's entry in the list: raw, packed whole (CMEMDLT2), packed in sub-blocks. */
const WIDTH = { raw: 8, whole: 12, packed: 8 + SUBS_ENTRY };
export const DELTA_HEADER = 8 + 8 + 8 + 8 + 4 + 4 + 4 + 4;
/** A count past this is corruption (2^20 chunks of 64 KiB = 64 GiB). */
const MAX_COUNT = 1 << 20;

export interface DeltaEntry {
  index: number;
  crc: number;
  /** Where the chunk's bytes are in the file. */
  offset: number;
  /** Packed: its bytes are stored in this many bytes at `offset` (in sub-blocks when `subs` is set: pagedFile.ts ChunkLoc). */
  packed?: number;
  subs?: Uint32Array;
}

export interface DeltaInfo {
  gen: number;
  prevGen: number;
  length: number;
  entries: DeltaEntry[];
  /** The file's size. */
  bytes: number;
  /** A packed delta (CMEMDLT3: in sub-blocks); a CMEMDLT2 one (packed whole) is not, and is packed again. */
  packed: boolean;
  /** Written by this process: the CRC of each chunk's bytes as stored, to check the file against when read back. */
  storedCrcs?: number[];
}

/** A checkpoint cut short by a stop: nothing of it is on disk, and the journal holds every write it had. */
export class CheckpointStopped extends Error {
  constructor() {
    super('stopped: the checkpoint is left to the next start');
  }
}

export function deltaName(gen: number): string {
  return `delta-${String(gen).padStart(10, '0')}.db`;
}

export function listDeltas(dir: string): number[] {
  return listGenFiles(dir, /^delta-(\d+)\.db$/);
}

/** The header and list of a delta, with each chunk's place in the file; with `subs` on every chunk, of a packed one. */
function encodeHead(gen: number, prevGen: number, length: number, chunks: { index: number; crc: number; subs?: Uint32Array }[], packed = false): Buffer {
  const width = packed ? WIDTH.packed : WIDTH.raw;
  const head = Buffer.alloc(DELTA_HEADER + width * chunks.length);
  (packed ? MAGIC_PACKED : MAGIC).copy(head, 0);
  head.writeBigUInt64LE(BigInt(length), 8);
  head.writeBigUInt64LE(BigInt(gen), 16);
  head.writeBigUInt64LE(BigInt(prevGen), 24);
  head.writeUInt32LE(PAGED_CHUNK, 32);
  head.writeUInt32LE(chunks.length, 36);
  chunks.forEach((c, k) => {
    head.writeUInt32LE(c.index, DELTA_HEADER + width * k);
    head.writeUInt32LE(c.crc, DELTA_HEADER + width * k + 4);
    if (packed) writeSubs(head, DELTA_HEADER + width * k + 8, c.subs as Uint32Array);
  });
  head.writeUInt32LE(crc32(Buffer.concat([head.subarray(0, 40), head.subarray(DELTA_HEADER)])), 40);
  return head;
}

/** Where a packed delta of `count` chunks has its first chunk (after its header and list). */
export const packedDeltaBase = (count: number): number => DELTA_HEADER + WIDTH.packed * count;

/** The header and list of a packed delta whose chunks were written in list order from packedDeltaBase on, with these sub-blocks. */
export function packedDeltaHead(info: DeltaInfo, subs: Uint32Array[]): Buffer {
  return encodeHead(
    info.gen,
    info.prevGen,
    info.length,
    info.entries.map((e, k) => ({ index: e.index, crc: e.crc, subs: subs[k] })),
    true,
  );
}

/**
 * Chunks deflated at once (in parallel on the thread pool) when a delta is written packed: a stop
 * waits for at most one such piece (2 MiB raw, 128 sub-blocks each deflated on its own: 64 chunks
 * took 98-133 ms in sub-blocks against 51-72 ms whole, load 6-9). Each piece waits for a turn of an
 * event loop an import keeps busy, so fewer, larger pieces write a bulk delta sooner.
 */
const PACK_BATCH = 32;

/**
 * Writes delta `gen`: `chunks` (each PAGED_CHUNK bytes) as they were when journal segment `gen`
 * began; `packed`: each chunk raw-deflated on the thread pool on the way (CMEMDLT3, in sub-blocks). Returns what
 * a reader of the header would find.
 */
export async function writeDelta(
  dir: string,
  gen: number,
  prevGen: number,
  length: number,
  chunks: { index: number; data: Uint8Array }[],
  stopping: () => boolean = () => false,
  packed = false,
): Promise<DeltaInfo> {
  const sorted = [...chunks].sort((a, b) => a.index - b.index);
  const listed = sorted.map((c) => {
    if (c.data.length !== PAGED_CHUNK) throw new Error(`delta chunk ${c.index} is ${c.data.length} bytes`);
    return { index: c.index, crc: crc32(c.data) };
  });
  const file = path.join(dir, deltaName(gen));
  if (packed) {
    const stored: Uint32Array[] = [];
    const storedCrcs: number[] = [];
    await writeAtomically(file, async (fh) => {
      const chunksOf = async (from: number, to: number) => {
        // A stop leaves it unwritten (the temp file removed): the journal still holds every write.
        if (stopping()) throw new CheckpointStopped();
        return packChunks(sorted.slice(from, to).map((c) => c.data));
      };
      await writePackedChunks(fh, packedDeltaBase(sorted.length), sorted.length, PACK_BATCH, chunksOf, stored, storedCrcs);
      if (stopping()) throw new CheckpointStopped();
      await writeParts(fh, [encodeHead(gen, prevGen, length, listed.map((c, k) => ({ ...c, subs: stored[k] })), true)], 0);
    });
    const entries: DeltaEntry[] = [];
    let at = packedDeltaBase(sorted.length);
    listed.forEach((c, k) => {
      const bytes = storedBytes(stored[k]);
      entries.push({ ...c, offset: at, packed: bytes, subs: stored[k] });
      at += bytes;
    });
    return { gen, prevGen, length, bytes: at, entries, packed: true, storedCrcs };
  }
  const head = encodeHead(gen, prevGen, length, listed);
  await writeAtomically(file, async (fh) => {
    const parts: Uint8Array[] = [head, ...sorted.map((c) => c.data)];
    let pos = 0;
    // A few large writes (writev), not one per chunk.
    for (let k = 0; k < parts.length; k += 128) {
      // A stop leaves it unwritten (the temp file removed): the journal still holds every write.
      if (stopping()) throw new CheckpointStopped();
      const group = parts.slice(k, k + 128);
      await writeParts(fh, group, pos);
      pos += group.reduce((n, p) => n + p.length, 0);
    }
  });
  const base = head.length;
  return { gen, prevGen, length, bytes: base + sorted.length * PAGED_CHUNK, entries: listed.map((c, k) => ({ ...c, offset: base + k * PAGED_CHUNK })), packed: false };
}

/** Writes `parts` one after the other from `at` (a few large writes: writev). */
export async function writeParts(fh: fs.promises.FileHandle, parts: Uint8Array[], at: number): Promise<void> {
  const want = parts.reduce((n, p) => n + p.length, 0);
  const done = (await fh.writev(parts, at)).bytesWritten;
  if (done < want) {
    const rest = Buffer.concat(parts).subarray(done);
    for (let w = 0; w < rest.length; ) w += (await fh.write(rest, w, rest.length - w, at + done + w)).bytesWritten;
  }
}

/** A packed chunk's bytes stored: the sum of its sub-blocks'. */
function storedBytes(subs: Uint32Array): number {
  let n = 0;
  for (let k = 0; k < subs.length; k += 2) n += subs[k];
  return n;
}

/**
 * Writes `count` packed chunks from offset `at` on, in list order, `batch` at a time (a packed
 * delta's, a merge's, a packed snapshot's): `parts(from, to)` gives chunks from..to-1 as stored
 * (null: give up, nothing more is written). Appends each chunk's sub-blocks to `stored` and, when
 * given, the CRC of its stored bytes to `storedCrcs`. The offset after the last chunk, or null.
 */
export async function writePackedChunks(
  fh: fs.promises.FileHandle,
  at: number,
  count: number,
  batch: number,
  parts: (from: number, to: number) => Promise<PackedChunk[] | null>,
  stored: Uint32Array[],
  storedCrcs?: number[],
): Promise<number | null> {
  for (let k = 0; k < count; k += batch) {
    const group = await parts(k, Math.min(count, k + batch));
    if (!group) return null;
    await writeParts(
      fh,
      group.map((p) => p.bytes),
      at,
    );
    for (const p of group) {
      stored.push(p.subs);
      storedCrcs?.push(crc32(p.bytes));
      at += p.bytes.length;
    }
  }
  return at;
}

/** Reads and checks a delta's header and list (not its chunks: those are checked when read). */
export function readDeltaHeader(fd: number): DeltaInfo {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(DELTA_HEADER);
  if (size < DELTA_HEADER || fs.readSync(fd, head, 0, DELTA_HEADER, 0) !== DELTA_HEADER) throw new Error('not a delta (bad header)');
  const magic = head.subarray(0, 8);
  const form = magic.equals(MAGIC_PACKED) ? 'packed' : magic.equals(MAGIC_WHOLE) ? 'whole' : magic.equals(MAGIC) ? 'raw' : undefined;
  if (!form) throw new Error('not a delta (bad header)');
  const packed = form !== 'raw';
  if (head.readUInt32LE(32) !== PAGED_CHUNK) throw new Error(`chunk size ${head.readUInt32LE(32)} is not ${PAGED_CHUNK}`);
  const count = head.readUInt32LE(36);
  if (count > MAX_COUNT) throw new Error('not a delta (bad header)');
  const width = WIDTH[form];
  const base = DELTA_HEADER + width * count;
  // A packed delta's size is known once its list is read (below).
  if (packed ? size < base : size !== base + count * PAGED_CHUNK) throw new Error(`truncated or padded: expected ${packed ? `at least ${base}` : base + count * PAGED_CHUNK} bytes, found ${size}`);
  const list = Buffer.alloc(width * count);
  if (count > 0 && fs.readSync(fd, list, 0, list.length, DELTA_HEADER) !== list.length) throw new Error('truncated chunk list');
  if (crc32(Buffer.concat([head.subarray(0, 40), list])) !== head.readUInt32LE(40)) throw new Error('checksum mismatch (header)');
  const entries: DeltaEntry[] = [];
  let last = -1;
  let at = base;
  for (let k = 0; k < count; k++) {
    const index = list.readUInt32LE(width * k);
    if (index <= last) throw new Error('chunk list out of order');
    last = index;
    const crc = list.readUInt32LE(width * k + 4);
    if (form === 'packed') {
      const { subs, stored } = readSubs(list, width * k + 8, PAGED_CHUNK, `chunk ${index}`);
      entries.push({ index, crc, offset: at, packed: stored, subs });
      at += stored;
      continue;
    }
    const stored = form === 'whole' ? list.readUInt32LE(width * k + 8) : PAGED_CHUNK;
    if (stored === 0 || stored > PAGED_CHUNK) throw new Error(`chunk ${index} stored in ${stored} bytes (not a delta)`);
    entries.push({ index, crc, offset: at, packed: stored < PAGED_CHUNK ? stored : undefined });
    at += stored;
  }
  if (at !== size) throw new Error(`truncated or padded: expected ${at} bytes, found ${size}`);
  return { gen: Number(head.readBigUInt64LE(16)), prevGen: Number(head.readBigUInt64LE(24)), length: Number(head.readBigUInt64LE(8)), entries, bytes: size, packed: form === 'packed' };
}

/** The bytes a delta's chunks hold (as written, before packing); 0 when it cannot be read. */
export function deltaRawBytes(file: string): number {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(DELTA_HEADER);
      if (fs.readSync(fd, head, 0, DELTA_HEADER, 0) !== DELTA_HEADER) return 0;
      return head.readUInt32LE(36) * PAGED_CHUNK;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/** Where a delta entry's chunk is, for the page cache. */
export function deltaLoc(ref: FileRef, e: DeltaEntry): ChunkLoc {
  return { ref, offset: e.offset, len: PAGED_CHUNK, crc: e.crc, packed: e.packed, subs: e.subs };
}

/**
 * Reads a delta back whole (header, list, every chunk's CRC) on the thread pool, PACK_BATCH chunks
 * at a time (one read, then inflated in parallel): while an import keeps the event loop busy, each
 * await waits behind it. `storedCrcs` (the file was just written by this process): each chunk's
 * bytes are checked against the CRC of the bytes written instead of inflated (the same check a raw
 * chunk gets: the disk holds what was written). Throws with the reason it is unusable, or
 * CheckpointStopped when `stopping` ends it before the next chunks.
 */
export async function verifyDelta(file: string, stopping: () => boolean = () => false, storedCrcs?: number[]): Promise<DeltaInfo> {
  const fd = fs.openSync(file, 'r');
  try {
    const info = readDeltaHeader(fd);
    const ref = new FileRef(file, fd);
    for (let k = 0; k < info.entries.length; k += PACK_BATCH) {
      if (stopping()) throw new CheckpointStopped();
      const batch = info.entries.slice(k, k + PACK_BATCH);
      const from = batch[0].offset;
      const last = batch[batch.length - 1];
      const bytes = Buffer.allocUnsafe(last.offset + (last.packed ?? PAGED_CHUNK) - from);
      await ref.read(bytes, bytes.length, from);
      await Promise.all(
        batch.map(async (e, j) => {
          const stored = bytes.subarray(e.offset - from, e.offset - from + (e.packed ?? PAGED_CHUNK));
          if (e.packed !== undefined && storedCrcs) {
            if (crc32(stored) !== storedCrcs[k + j]) throw new Error(`checksum mismatch (chunk ${e.index})`);
            return;
          }
          if (e.packed === undefined) {
            if (crc32(stored) !== e.crc) throw new Error(`checksum mismatch (chunk ${e.index})`);
            return;
          }
          // Inflated (each sub-block on the thread pool) from the bytes read, and checked.
          const one = new FileRef(file, undefined);
          await readLoc({ ...deltaLoc(one, e), offset: 0 }, new Uint8Array(PAGED_CHUNK), e.index, stored).catch((err: Error) => {
            throw new Error(`checksum mismatch (chunk ${e.index}: ${err.message})`);
          });
        }),
      );
    }
    return info;
  } finally {
    fs.closeSync(fd);
  }
}
