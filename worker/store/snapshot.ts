// Snapshots: the whole database as bytes, written atomically (temp file, fsync, rename, dir fsync).
// File layout: "CMEMSNP1" | u64 length | u32 crc32 | u32 zero | sqlite bytes. A snapshot that fails
// its length or hash check is never loaded and never deleted by us (it is moved aside).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { syncDir } from './journal';
import { LazyFileBytes } from './lazyFile';

const MAGIC = Buffer.from('CMEMSNP1', 'ascii');
const HEADER = 8 + 8 + 4 + 4;
/** Read size of the start-up check: small enough to stay in the CPU's cache between read and CRC. */
const VERIFY_CHUNK = 4 << 20;

export function snapshotName(gen: number): string {
  return `snapshot-${String(gen).padStart(10, '0')}.db`;
}

export function listSnapshots(dir: string): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => /^snapshot-(\d+)\.db$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export async function writeSnapshot(dir: string, gen: number, bytes: Uint8Array): Promise<string> {
  const head = Buffer.alloc(HEADER);
  MAGIC.copy(head, 0);
  head.writeBigUInt64LE(BigInt(bytes.length), 8);
  head.writeUInt32LE(crc32(bytes), 16);
  const final = path.join(dir, snapshotName(gen));
  const tmp = `${final}.tmp-${process.pid}`;
  const fh = await fs.promises.open(tmp, 'w', 0o600);
  let ok = false;
  try {
    await fh.write(head, 0, head.length, 0);
    let off = 0;
    while (off < bytes.length) {
      const { bytesWritten } = await fh.write(bytes, off, Math.min(bytes.length - off, 8 << 20), HEADER + off);
      off += bytesWritten;
    }
    await fh.sync();
    ok = true;
  } finally {
    await fh.close();
    // A failed write (disk full) leaves no half file behind; the previous snapshot is untouched.
    if (!ok) await fs.promises.unlink(tmp).catch(() => undefined);
  }
  await fs.promises.rename(tmp, final);
  await syncDir(dir);
  return final;
}

/**
 * Verifies a snapshot (header, length, CRC of every byte) and returns its database bytes as a
 * LazyFileBytes, which reads them from the file again as SQLite asks for them (lazyFile.ts); or
 * throws with the reason the file is unusable. The check streams the file through one small
 * buffer: at 209 MB, reading it whole into fresh memory and copying it into sql.js cost seconds
 * on this machine (fresh pages cost about 6 ms per MB to touch here), this pass under one.
 */
export function openSnapshot(file: string): LazyFileBytes {
  const fd = fs.openSync(file, 'r');
  let owned = false;
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(HEADER);
    if (size < HEADER || fs.readSync(fd, head, 0, HEADER, 0) !== HEADER || !head.subarray(0, 8).equals(MAGIC)) throw new Error('not a snapshot (bad header)');
    const len = Number(head.readBigUInt64LE(8));
    if (size !== HEADER + len) throw new Error(`truncated or padded: expected ${HEADER + len} bytes, found ${size}`);
    const buf = Buffer.allocUnsafe(Math.min(len, VERIFY_CHUNK) || 1);
    let crc = 0;
    for (let off = 0; off < len; ) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, len - off), HEADER + off);
      if (n === 0) throw new Error(`truncated while reading at ${HEADER + off} bytes`);
      crc = crc32(buf.subarray(0, n), crc);
      off += n;
    }
    if (crc !== head.readUInt32LE(16)) throw new Error('checksum mismatch');
    owned = true;
    return new LazyFileBytes(fd, HEADER, len);
  } finally {
    if (!owned) fs.closeSync(fd);
  }
}

/** Returns the database bytes, all in memory, or throws with the reason the file is unusable. */
export function readSnapshot(file: string): Uint8Array {
  const bytes = openSnapshot(file);
  bytes.loadAll();
  return bytes;
}

/**
 * Reads a snapshot back from disk and checks it the way start-up will (header, length, CRC of every
 * byte), in chunks on the thread pool so the event loop stays free. Throws with the reason it is unusable.
 */
export async function verifySnapshot(file: string): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER);
    if (size < HEADER || (await fh.read(head, 0, HEADER, 0)).bytesRead !== HEADER || !head.subarray(0, 8).equals(MAGIC)) throw new Error('not a snapshot (bad header)');
    const len = Number(head.readBigUInt64LE(8));
    if (size !== HEADER + len) throw new Error(`truncated or padded: expected ${HEADER + len} bytes, found ${size}`);
    const buf = Buffer.allocUnsafe(Math.min(len, VERIFY_CHUNK) || 1);
    let crc = 0;
    for (let off = 0; off < len; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, len - off), HEADER + off);
      if (bytesRead === 0) throw new Error(`truncated while reading at ${HEADER + off} bytes`);
      crc = crc32(buf.subarray(0, bytesRead), crc);
      off += bytesRead;
    }
    if (crc !== head.readUInt32LE(16)) throw new Error('checksum mismatch');
  } finally {
    await fh.close();
  }
}

/** Where a snapshot's database bytes are, and their CRC, from its header (not verified: openPagedSnapshot does that). */
export function snapshotHeader(file: string): { base: number; length: number; crc: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(HEADER);
    if (fs.readSync(fd, head, 0, HEADER, 0) !== HEADER || !head.subarray(0, 8).equals(MAGIC)) throw new Error('not a snapshot (bad header)');
    return { base: HEADER, length: Number(head.readBigUInt64LE(8)), crc: head.readUInt32LE(16) };
  } finally {
    fs.closeSync(fd);
  }
}
