// Snapshots: the whole database as bytes, written atomically (temp file, fsync, rename, dir fsync).
// File layout (v2): "CMEMSNP2" | u64 length | u32 crc32 of the bytes | u32 crc32 of the chunk table |
// sqlite bytes | chunk table: u32 crc32 of each PAGED_CHUNK of the bytes. The table lets the page
// cache open a large snapshot without reading it (each chunk is checked when it is read, chain.ts).
// Packed (v4, packChain.ts rewrites a v2 or v3 snapshot so once the worker is idle): "CMEMSNP4" |
// the same three fields | each PAGED_CHUNK of the bytes as PACK_SUB sub-blocks (pagedFile.ts), each
// raw-deflated on its own (or raw, when that is no smaller), one after the other | chunk table: per
// chunk u32 crc32 of its raw bytes, then per sub-block u32 bytes stored (less than the sub-block's length:
// deflated; 0 past the database's end) and u32 crc32 of its raw bytes. The page cache inflates and
// checks only the sub-block it reads. v3 ("CMEMSNP3", written before sub-blocks: each chunk raw-deflated
// whole, the table per chunk u32 crc32, u32 bytes stored) and v1 ("CMEMSNP1", no table, the fourth
// field zero) are still read. A snapshot that fails its length
// or hash check is never loaded and never deleted by us (it is moved aside).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import { CheckpointStopped } from './delta';
import { listGenFiles, writeAtomically } from './journal';
import { LazyFileBytes } from './lazyFile';
import { type ChunkLoc, FileRef, PAGED_CHUNK, packChunks, readLoc, readLocSync, readSubs, SUBS_ENTRY, unpack, writeSubs } from './pagedFile';

const MAGIC_V1 = Buffer.from('CMEMSNP1', 'ascii');
const MAGIC_V2 = Buffer.from('CMEMSNP2', 'ascii');
const MAGIC_V3 = Buffer.from('CMEMSNP3', 'ascii');
const MAGIC_V4 = Buffer.from('CMEMSNP4', 'ascii');
/** Bytes of a chunk's entry in the table of a v2, v3, v4 snapshot. */
const TABLE_WIDTH: Record<number, number> = { 2: 4, 3: 8, 4: 4 + SUBS_ENTRY };
export const SNAPSHOT_HEADER = 8 + 8 + 4 + 4;
const HEADER = SNAPSHOT_HEADER;
/** Read size of the start-up check: small enough to stay in the CPU's cache between read and CRC. */
const VERIFY_CHUNK = 4 << 20;
/** Write size: a multiple of PAGED_CHUNK. */
const WRITE_PIECE = 8 << 20;

export interface SnapshotHeader {
  version: 1 | 2 | 3 | 4;
  /** Where the database bytes start in the file. */
  base: number;
  length: number;
  crc: number;
  /** Where the chunk table starts (v2), and its CRC. */
  tableOffset: number;
  tableCrc: number;
}

export function snapshotName(gen: number): string {
  return `snapshot-${String(gen).padStart(10, '0')}.db`;
}

/** The gens of the full snapshots in dir, as .db or compressed .dbz (coldSnapshot.ts) or both, ascending. */
export function listSnapshots(dir: string): number[] {
  return [...new Set(listGenFiles(dir, /^snapshot-(\d+)\.dbz?$/))];
}

export const chunkCount = (length: number): number => Math.ceil(length / PAGED_CHUNK);

export async function writeSnapshot(dir: string, gen: number, bytes: Uint8Array): Promise<string> {
  async function* pieces(): AsyncGenerator<Uint8Array> {
    for (let off = 0; off < bytes.length; off += WRITE_PIECE) yield bytes.subarray(off, Math.min(bytes.length, off + WRITE_PIECE));
  }
  return writeSnapshotFrom(dir, gen, bytes.length, pieces());
}

/**
 * Writes snapshot `gen` from pieces that add up to `length` bytes, each a multiple of PAGED_CHUNK
 * long but the last: the CRCs are taken on the way, so a caller can stream the database from
 * other files (store.ts flattens the page cache's chain this way) without holding it whole.
 */
export async function writeSnapshotFrom(
  dir: string,
  gen: number,
  length: number,
  pieces: AsyncIterable<Uint8Array>,
  packed: { stopping: () => boolean } | undefined = undefined,
): Promise<string> {
  const table = Buffer.alloc(4 * chunkCount(length));
  const final = path.join(dir, snapshotName(gen));
  if (packed) {
    await writeAtomically(final, (fh) => writePacked(fh, length, pieces, packed.stopping));
    return final;
  }
  await writeAtomically(final, async (fh) => {
    let off = 0;
    let crc = 0;
    for await (const piece of pieces) {
      if (off % PAGED_CHUNK !== 0 || off + piece.length > length) throw new Error('snapshot pieces do not line up with the chunks');
      crc = crc32(piece, crc);
      for (let p = 0; p < piece.length; p += PAGED_CHUNK) table.writeUInt32LE(crc32(piece.subarray(p, Math.min(piece.length, p + PAGED_CHUNK))), 4 * ((off + p) / PAGED_CHUNK));
      for (let w = 0; w < piece.length; ) w += (await fh.write(piece, w, piece.length - w, HEADER + off + w)).bytesWritten;
      off += piece.length;
    }
    if (off !== length) throw new Error(`snapshot pieces add up to ${off} bytes, expected ${length}`);
    await fh.write(table, 0, table.length, HEADER + length);
    const head = Buffer.alloc(HEADER);
    MAGIC_V2.copy(head, 0);
    head.writeBigUInt64LE(BigInt(length), 8);
    head.writeUInt32LE(crc, 16);
    head.writeUInt32LE(crc32(table), 20);
    await fh.write(head, 0, HEADER, 0);
  });
  return final;
}

/** Chunks deflated at once while a packed snapshot is written: a stop waits for at most these (256 KiB). */
const PACK_GROUP = 4;

/**
 * A packed (v4) snapshot from pieces as writeSnapshotFrom takes them: each chunk deflated on the
 * thread pool on the way; `stopping` ends it before the next group of chunks (CheckpointStopped).
 */
async function writePacked(fh: fs.promises.FileHandle, length: number, pieces: AsyncIterable<Uint8Array>, stopping: () => boolean): Promise<void> {
  const chunks: { crc: number; subs: Uint32Array }[] = [];
  let off = 0;
  let at = HEADER;
  let crc = 0;
  for await (const piece of pieces) {
    if (off % PAGED_CHUNK !== 0 || off + piece.length > length) throw new Error('snapshot pieces do not line up with the chunks');
    crc = crc32(piece, crc);
    for (let g = 0; g < piece.length; g += PACK_GROUP * PAGED_CHUNK) {
      if (stopping()) throw new CheckpointStopped();
      const raws: Uint8Array[] = [];
      for (let p = g; p < Math.min(piece.length, g + PACK_GROUP * PAGED_CHUNK); p += PAGED_CHUNK) raws.push(piece.subarray(p, Math.min(piece.length, p + PAGED_CHUNK)));
      const packed = await packChunks(raws);
      const stored = packed.map((p) => p.bytes);
      raws.forEach((r, i) => chunks.push({ crc: crc32(r), subs: packed[i].subs }));
      const want = stored.reduce((n, b) => n + b.length, 0);
      const done = (await fh.writev(stored, at)).bytesWritten;
      if (done < want) {
        const rest = Buffer.concat(stored).subarray(done);
        for (let w = 0; w < rest.length; ) w += (await fh.write(rest, w, rest.length - w, at + done + w)).bytesWritten;
      }
      at += want;
    }
    off += piece.length;
  }
  if (off !== length) throw new Error(`snapshot pieces add up to ${off} bytes, expected ${length}`);
  const { head, table } = packedSnapshotFrame(length, crc, chunks);
  await fh.write(table, 0, table.length, at);
  await fh.write(head, 0, HEADER, 0);
}

/** Parses a header against the file's size; throws with the reason the file is not a whole snapshot. */
function parseHeader(head: Buffer, size: number): SnapshotHeader {
  const magic = head.subarray(0, 8);
  const version = magic.equals(MAGIC_V2) ? 2 : magic.equals(MAGIC_V4) ? 4 : magic.equals(MAGIC_V3) ? 3 : magic.equals(MAGIC_V1) ? 1 : 0;
  if (size < HEADER || version === 0) throw new Error('not a snapshot (bad header)');
  const length = Number(head.readBigUInt64LE(8));
  if (version >= 3) {
    // The table is at the end; whether the chunks before it add up is checked with the table (chunkPlaces).
    const tableOffset = size - TABLE_WIDTH[version] * chunkCount(length);
    if (tableOffset < HEADER || length > PAGED_CHUNK * (size - HEADER)) throw new Error(`truncated or padded: ${size} bytes cannot hold ${length} packed`);
    return { version, base: HEADER, length, crc: head.readUInt32LE(16), tableOffset, tableCrc: head.readUInt32LE(20) };
  }
  const expected = HEADER + length + (version === 2 ? 4 * chunkCount(length) : 0);
  if (size !== expected) throw new Error(`truncated or padded: expected ${expected} bytes, found ${size}`);
  return { version, base: HEADER, length, crc: head.readUInt32LE(16), tableOffset: HEADER + length, tableCrc: head.readUInt32LE(20) };
}

/** Where each PAGED_CHUNK of the database is in a v2, v3 or v4 snapshot file, with its CRC (and how it is stored when packed). */
export type ChunkPlace = Omit<ChunkLoc, 'ref'>;

/** The places of a v2, v3 or v4 snapshot's chunks from its table (already checked against its CRC). */
function placesOf(h: SnapshotHeader, table: Buffer): ChunkPlace[] {
  const out: ChunkPlace[] = [];
  let at = h.base;
  for (let i = 0; i * PAGED_CHUNK < h.length; i++) {
    const len = Math.min(PAGED_CHUNK, h.length - i * PAGED_CHUNK);
    if (h.version === 2) {
      out.push({ offset: h.base + i * PAGED_CHUNK, len, crc: table.readUInt32LE(4 * i) });
      continue;
    }
    if (h.version === 4) {
      const w = TABLE_WIDTH[4];
      const { subs, stored } = readSubs(table, w * i + 4, len, `chunk ${i}`);
      out.push({ offset: at, len, crc: table.readUInt32LE(w * i), packed: stored, subs });
      at += stored;
      continue;
    }
    const stored = table.readUInt32LE(8 * i + 4);
    if (stored === 0 || stored > len) throw new Error(`chunk ${i} stored in ${stored} bytes (not a packed snapshot)`);
    out.push({ offset: at, len, crc: table.readUInt32LE(8 * i), packed: stored < len ? stored : undefined });
    at += stored;
  }
  if (h.version >= 3 && at !== h.tableOffset) throw new Error(`truncated or padded: the chunks end at ${at} bytes, the table starts at ${h.tableOffset}`);
  return out;
}

/** The chunk places of a v2, v3 or v4 snapshot, its table checked against its CRC; null for v1 (no table). */
export function chunkPlaces(fd: number, h: SnapshotHeader): ChunkPlace[] | null {
  if (h.version === 1) return null;
  const table = Buffer.alloc(TABLE_WIDTH[h.version] * chunkCount(h.length));
  if (table.length > 0 && fs.readSync(fd, table, 0, table.length, h.tableOffset) !== table.length) throw new Error('truncated chunk table');
  if (crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
  return placesOf(h, table);
}

/**
 * The header and table of a packed (v4) snapshot of `length` bytes whose chunks were written in
 * order from SNAPSHOT_HEADER on, each with the CRC of its raw bytes and its sub-blocks there.
 */
export function packedSnapshotFrame(length: number, crc: number, chunks: { crc: number; subs: Uint32Array }[]): { head: Buffer; table: Buffer } {
  const w = TABLE_WIDTH[4];
  const table = Buffer.alloc(w * chunks.length);
  chunks.forEach((c, i) => {
    table.writeUInt32LE(c.crc, w * i);
    writeSubs(table, w * i + 4, c.subs);
  });
  const head = Buffer.alloc(HEADER);
  MAGIC_V4.copy(head, 0);
  head.writeBigUInt64LE(BigInt(length), 8);
  head.writeUInt32LE(crc, 16);
  head.writeUInt32LE(crc32(table), 20);
  return { head, table };
}

/** Every byte of a packed (v3, v4) snapshot, each chunk inflated and checked, then the whole CRC. */
function unpackSync(fd: number, file: string, h: SnapshotHeader): Uint8Array {
  const places = chunkPlaces(fd, h) as ChunkPlace[];
  const ref = new FileRef(file, fd);
  const out = new Uint8Array(h.length);
  const one = new Uint8Array(PAGED_CHUNK);
  let crc = 0;
  places.forEach((p, i) => {
    readLocSync({ ref, ...p }, one, i);
    out.set(one.subarray(0, p.len), i * PAGED_CHUNK);
    crc = crc32(one.subarray(0, p.len), crc);
  });
  if (crc !== h.crc) throw new Error('checksum mismatch');
  return out;
}

function readHeaderSync(fd: number): SnapshotHeader {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(HEADER);
  if (size < HEADER || fs.readSync(fd, head, 0, HEADER, 0) !== HEADER) throw new Error('not a snapshot (bad header)');
  return parseHeader(head, size);
}

/** The CRC of each chunk (v2, v3, v4), the table checked against its CRC; null for a v1 snapshot (which has none). */
export function readChunkTable(fd: number, h: SnapshotHeader): Uint32Array | null {
  const places = chunkPlaces(fd, h);
  return places && Uint32Array.from(places, (p) => p.crc);
}

/**
 * Verifies a snapshot (header, length, CRC of every byte, and the chunk table's CRC) and returns its
 * database bytes as a LazyFileBytes, which reads them from the file again as SQLite asks for them
 * (lazyFile.ts); or throws with the reason the file is unusable. The check streams the file through
 * one small buffer: at 209 MB, reading it whole into fresh memory and copying it into sql.js cost
 * seconds on this machine (fresh pages cost about 6 ms per MB to touch here), this pass under one.
 */
export function openSnapshot(file: string): LazyFileBytes | Uint8Array {
  const fd = fs.openSync(file, 'r');
  let owned = false;
  try {
    const h = readHeaderSync(fd);
    // Packed: inflated whole now (only a store without the page cache opens a snapshot this way).
    if (h.version >= 3) return unpackSync(fd, file, h);
    const len = h.length;
    const buf = Buffer.allocUnsafe(Math.min(len, VERIFY_CHUNK) || 1);
    let crc = 0;
    for (let off = 0; off < len; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, len - off), HEADER + off);
      if (n === 0) throw new Error(`truncated while reading at ${HEADER + off} bytes`);
      crc = crc32(buf.subarray(0, n), crc);
      off += n;
    }
    if (crc !== h.crc) throw new Error('checksum mismatch');
    readChunkTable(fd, h);
    owned = true;
    return new LazyFileBytes(fd, HEADER, len);
  } finally {
    if (!owned) fs.closeSync(fd);
  }
}

/** The database bytes inside a whole snapshot file held in memory, checked like openSnapshot checks a file. */
export function snapshotBytesOf(file: Buffer): Uint8Array {
  const h = parseHeader(file.subarray(0, HEADER), file.length);
  if (h.version >= 3) {
    const table = file.subarray(h.tableOffset);
    if (crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
    const out = new Uint8Array(h.length);
    const one = new Uint8Array(PAGED_CHUNK);
    placesOf(h, table).forEach((p, i) => {
      let raw: Uint8Array = file.subarray(p.offset, p.offset + (p.packed ?? p.len));
      if (p.packed !== undefined) {
        try {
          unpack(p, raw, one, i, (b, max) => inflateRawSync(b, { maxOutputLength: max }));
        } catch (e) {
          throw new Error(`checksum mismatch (${(e as Error).message})`);
        }
        raw = one.subarray(0, p.len);
      }
      if (raw.length !== p.len || crc32(raw) !== p.crc) throw new Error(`checksum mismatch (chunk ${i})`);
      out.set(raw, i * PAGED_CHUNK);
    });
    if (crc32(out) !== h.crc) throw new Error('checksum mismatch');
    return out;
  }
  const bytes = file.subarray(h.base, h.base + h.length);
  if (crc32(bytes) !== h.crc) throw new Error('checksum mismatch');
  if (h.version === 2 && crc32(file.subarray(h.tableOffset)) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
  return bytes;
}

/** Returns the database bytes, all in memory, or throws with the reason the file is unusable. */
export function readSnapshot(file: string): Uint8Array {
  const bytes = openSnapshot(file);
  if (bytes instanceof LazyFileBytes) bytes.loadAll();
  return bytes;
}

/**
 * Reads a snapshot back from disk and checks it the way start-up will (header, length, CRC of every
 * byte, every chunk against the table), in chunks on the thread pool so the event loop stays free.
 * Throws with the reason it is unusable.
 */
export async function verifySnapshot(file: string, stopping: () => boolean = () => false): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER);
    if (size < HEADER || (await fh.read(head, 0, HEADER, 0)).bytesRead !== HEADER) throw new Error('not a snapshot (bad header)');
    const h = parseHeader(head, size);
    const len = h.length;
    if (h.version >= 3) return await verifyPacked(fh, file, h, stopping);
    const table = Buffer.alloc(h.version === 2 ? 4 * chunkCount(len) : 0);
    if (table.length > 0 && (await fh.read(table, 0, table.length, h.tableOffset)).bytesRead !== table.length) throw new Error('truncated chunk table');
    if (h.version === 2 && crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
    const buf = Buffer.allocUnsafe(Math.min(len, VERIFY_CHUNK) || 1);
    let crc = 0;
    for (let off = 0; off < len; ) {
      if (stopping()) throw new CheckpointStopped();
      const want = Math.min(buf.length, len - off);
      let got = 0;
      while (got < want) {
        const { bytesRead } = await fh.read(buf, got, want - got, HEADER + off + got);
        if (bytesRead === 0) throw new Error(`truncated while reading at ${HEADER + off + got} bytes`);
        got += bytesRead;
      }
      const piece = buf.subarray(0, want);
      crc = crc32(piece, crc);
      if (h.version === 2) {
        for (let p = 0; p < want; p += PAGED_CHUNK) {
          const i = (off + p) / PAGED_CHUNK;
          if (crc32(piece.subarray(p, Math.min(want, p + PAGED_CHUNK))) !== table.readUInt32LE(4 * i)) throw new Error(`checksum mismatch (chunk ${i})`);
        }
      }
      off += want;
    }
    if (crc !== h.crc) throw new Error('checksum mismatch');
  } finally {
    await fh.close();
  }
}

/** verifySnapshot of a packed (v3, v4) snapshot: its table, then every chunk inflated (on the thread pool) and checked. */
async function verifyPacked(fh: fs.promises.FileHandle, file: string, h: SnapshotHeader, stopping: () => boolean): Promise<void> {
  const table = Buffer.alloc(TABLE_WIDTH[h.version] * chunkCount(h.length));
  if (table.length > 0 && (await fh.read(table, 0, table.length, h.tableOffset)).bytesRead !== table.length) throw new Error('truncated chunk table');
  if (crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
  const ref = new FileRef(file, fh.fd);
  const one = new Uint8Array(PAGED_CHUNK);
  let crc = 0;
  const places = placesOf(h, table);
  for (let i = 0; i < places.length; i++) {
    if (i % 16 === 0 && stopping()) throw new CheckpointStopped();
    try {
      await readLoc({ ref, ...places[i] }, one, i);
    } catch (e) {
      throw new Error(`checksum mismatch (chunk ${i}: ${(e as Error).message})`);
    }
    crc = crc32(one.subarray(0, places[i].len), crc);
  }
  if (crc !== h.crc) throw new Error('checksum mismatch');
}

/** A snapshot's header, checked against the file's size (the bytes are not verified here). */
export function snapshotHeader(file: string): SnapshotHeader {
  const fd = fs.openSync(file, 'r');
  try {
    return readHeaderSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function snapshotHeaderOf(fd: number): SnapshotHeader {
  return readHeaderSync(fd);
}
