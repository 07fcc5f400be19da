// Snapshots: the whole database as bytes, written atomically (temp file, fsync, rename, dir fsync).
// File layout (v2): "CMEMSNP2" | u64 length | u32 crc32 of the bytes | u32 crc32 of the chunk table |
// sqlite bytes | chunk table: u32 crc32 of each PAGED_CHUNK of the bytes. The table lets the page
// cache open a large snapshot without reading it (each chunk is checked when it is read, chain.ts).
// v1 ("CMEMSNP1", no table, the fourth field zero) is still read. A snapshot that fails its length
// or hash check is never loaded and never deleted by us (it is moved aside).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { listGenFiles, writeAtomically } from './journal';
import { LazyFileBytes } from './lazyFile';
import { PAGED_CHUNK } from './pagedFile';

const MAGIC_V1 = Buffer.from('CMEMSNP1', 'ascii');
const MAGIC_V2 = Buffer.from('CMEMSNP2', 'ascii');
const HEADER = 8 + 8 + 4 + 4;
/** Read size of the start-up check: small enough to stay in the CPU's cache between read and CRC. */
const VERIFY_CHUNK = 4 << 20;
/** Write size: a multiple of PAGED_CHUNK. */
const WRITE_PIECE = 8 << 20;

export interface SnapshotHeader {
  version: 1 | 2;
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
export async function writeSnapshotFrom(dir: string, gen: number, length: number, pieces: AsyncIterable<Uint8Array>): Promise<string> {
  const table = Buffer.alloc(4 * chunkCount(length));
  const final = path.join(dir, snapshotName(gen));
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

/** Parses a header against the file's size; throws with the reason the file is not a whole snapshot. */
function parseHeader(head: Buffer, size: number): SnapshotHeader {
  const magic = head.subarray(0, 8);
  const version = magic.equals(MAGIC_V2) ? 2 : magic.equals(MAGIC_V1) ? 1 : 0;
  if (size < HEADER || version === 0) throw new Error('not a snapshot (bad header)');
  const length = Number(head.readBigUInt64LE(8));
  const expected = HEADER + length + (version === 2 ? 4 * chunkCount(length) : 0);
  if (size !== expected) throw new Error(`truncated or padded: expected ${expected} bytes, found ${size}`);
  return { version, base: HEADER, length, crc: head.readUInt32LE(16), tableOffset: HEADER + length, tableCrc: head.readUInt32LE(20) };
}

function readHeaderSync(fd: number): SnapshotHeader {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(HEADER);
  if (size < HEADER || fs.readSync(fd, head, 0, HEADER, 0) !== HEADER) throw new Error('not a snapshot (bad header)');
  return parseHeader(head, size);
}

/** The v2 chunk table, checked against its CRC; null for a v1 snapshot (which has none). */
export function readChunkTable(fd: number, h: SnapshotHeader): Uint32Array | null {
  if (h.version === 1) return null;
  const table = Buffer.alloc(4 * chunkCount(h.length));
  if (table.length > 0 && fs.readSync(fd, table, 0, table.length, h.tableOffset) !== table.length) throw new Error('truncated chunk table');
  if (crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
  const out = new Uint32Array(table.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = table.readUInt32LE(4 * i);
  return out;
}

/**
 * Verifies a snapshot (header, length, CRC of every byte, and the chunk table's CRC) and returns its
 * database bytes as a LazyFileBytes, which reads them from the file again as SQLite asks for them
 * (lazyFile.ts); or throws with the reason the file is unusable. The check streams the file through
 * one small buffer: at 209 MB, reading it whole into fresh memory and copying it into sql.js cost
 * seconds on this machine (fresh pages cost about 6 ms per MB to touch here), this pass under one.
 */
export function openSnapshot(file: string): LazyFileBytes {
  const fd = fs.openSync(file, 'r');
  let owned = false;
  try {
    const h = readHeaderSync(fd);
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
  const bytes = file.subarray(h.base, h.base + h.length);
  if (crc32(bytes) !== h.crc) throw new Error('checksum mismatch');
  if (h.version === 2 && crc32(file.subarray(h.tableOffset)) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
  return bytes;
}

/** Returns the database bytes, all in memory, or throws with the reason the file is unusable. */
export function readSnapshot(file: string): Uint8Array {
  const bytes = openSnapshot(file);
  bytes.loadAll();
  return bytes;
}

/**
 * Reads a snapshot back from disk and checks it the way start-up will (header, length, CRC of every
 * byte, every chunk against the table), in chunks on the thread pool so the event loop stays free.
 * Throws with the reason it is unusable.
 */
export async function verifySnapshot(file: string): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER);
    if (size < HEADER || (await fh.read(head, 0, HEADER, 0)).bytesRead !== HEADER) throw new Error('not a snapshot (bad header)');
    const h = parseHeader(head, size);
    const len = h.length;
    const table = Buffer.alloc(h.version === 2 ? 4 * chunkCount(len) : 0);
    if (table.length > 0 && (await fh.read(table, 0, table.length, h.tableOffset)).bytesRead !== table.length) throw new Error('truncated chunk table');
    if (h.version === 2 && crc32(table) !== h.tableCrc) throw new Error('checksum mismatch'); // of the chunk table
    const buf = Buffer.allocUnsafe(Math.min(len, VERIFY_CHUNK) || 1);
    let crc = 0;
    for (let off = 0; off < len; ) {
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
