// Snapshots: the whole database as bytes, written atomically (temp file, fsync, rename, dir fsync).
// File layout: "CMEMSNP1" | u64 length | u32 crc32 | u32 zero | sqlite bytes. A snapshot that fails
// its length or hash check is never loaded and never deleted by us (it is moved aside).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { syncDir } from './journal';

const MAGIC = Buffer.from('CMEMSNP1', 'ascii');
const HEADER = 8 + 8 + 4 + 4;

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

/** Returns the database bytes, or throws with the reason the file is unusable. */
export function readSnapshot(file: string): Uint8Array {
  const buf = fs.readFileSync(file);
  if (buf.length < HEADER || !buf.subarray(0, 8).equals(MAGIC)) throw new Error('not a snapshot (bad header)');
  const len = Number(buf.readBigUInt64LE(8));
  if (buf.length !== HEADER + len) throw new Error(`truncated or padded: expected ${HEADER + len} bytes, found ${buf.length}`);
  const body = buf.subarray(HEADER);
  if (crc32(body) !== buf.readUInt32LE(16)) throw new Error('checksum mismatch');
  return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
}
