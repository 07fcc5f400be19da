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
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { listGenFiles, writeAtomically } from './journal';
import { PAGED_CHUNK } from './pagedFile';

const MAGIC = Buffer.from('CMEMDLT1', 'ascii');
export const DELTA_HEADER = 8 + 8 + 8 + 8 + 4 + 4 + 4 + 4;
/** A count past this is corruption (2^20 chunks of 64 KiB = 64 GiB). */
const MAX_COUNT = 1 << 20;

export interface DeltaEntry {
  index: number;
  crc: number;
  /** Where the chunk's bytes are in the file. */
  offset: number;
}

export interface DeltaInfo {
  gen: number;
  prevGen: number;
  length: number;
  entries: DeltaEntry[];
  /** The file's size. */
  bytes: number;
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

/** The header and list of a delta, with each chunk's place in the file. */
function encodeHead(gen: number, prevGen: number, length: number, chunks: { index: number; crc: number }[]): Buffer {
  const head = Buffer.alloc(DELTA_HEADER + 8 * chunks.length);
  MAGIC.copy(head, 0);
  head.writeBigUInt64LE(BigInt(length), 8);
  head.writeBigUInt64LE(BigInt(gen), 16);
  head.writeBigUInt64LE(BigInt(prevGen), 24);
  head.writeUInt32LE(PAGED_CHUNK, 32);
  head.writeUInt32LE(chunks.length, 36);
  chunks.forEach((c, k) => {
    head.writeUInt32LE(c.index, DELTA_HEADER + 8 * k);
    head.writeUInt32LE(c.crc, DELTA_HEADER + 8 * k + 4);
  });
  head.writeUInt32LE(crc32(Buffer.concat([head.subarray(0, 40), head.subarray(DELTA_HEADER)])), 40);
  return head;
}

/**
 * Writes delta `gen`: `chunks` (each PAGED_CHUNK bytes) as they were when journal segment `gen`
 * began. Returns what a reader of the header would find.
 */
export async function writeDelta(
  dir: string,
  gen: number,
  prevGen: number,
  length: number,
  chunks: { index: number; data: Uint8Array }[],
  stopping: () => boolean = () => false,
): Promise<DeltaInfo> {
  const sorted = [...chunks].sort((a, b) => a.index - b.index);
  const listed = sorted.map((c) => {
    if (c.data.length !== PAGED_CHUNK) throw new Error(`delta chunk ${c.index} is ${c.data.length} bytes`);
    return { index: c.index, crc: crc32(c.data) };
  });
  const head = encodeHead(gen, prevGen, length, listed);
  await writeAtomically(path.join(dir, deltaName(gen)), async (fh) => {
    const parts: Uint8Array[] = [head, ...sorted.map((c) => c.data)];
    let pos = 0;
    // A few large writes (writev), not one per chunk.
    for (let k = 0; k < parts.length; k += 128) {
      // A stop leaves it unwritten (the temp file removed): the journal still holds every write.
      if (stopping()) throw new CheckpointStopped();
      const group = parts.slice(k, k + 128);
      const want = group.reduce((n, p) => n + p.length, 0);
      let done = (await fh.writev(group, pos)).bytesWritten;
      if (done < want) {
        const rest = Buffer.concat(group).subarray(done);
        for (let w = 0; w < rest.length; ) w += (await fh.write(rest, w, rest.length - w, pos + done + w)).bytesWritten;
        done = want;
      }
      pos += want;
    }
  });
  const base = head.length;
  return { gen, prevGen, length, bytes: base + sorted.length * PAGED_CHUNK, entries: listed.map((c, k) => ({ ...c, offset: base + k * PAGED_CHUNK })) };
}

/** Reads and checks a delta's header and list (not its chunks: those are checked when read). */
export function readDeltaHeader(fd: number): DeltaInfo {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(DELTA_HEADER);
  if (size < DELTA_HEADER || fs.readSync(fd, head, 0, DELTA_HEADER, 0) !== DELTA_HEADER || !head.subarray(0, 8).equals(MAGIC)) throw new Error('not a delta (bad header)');
  if (head.readUInt32LE(32) !== PAGED_CHUNK) throw new Error(`chunk size ${head.readUInt32LE(32)} is not ${PAGED_CHUNK}`);
  const count = head.readUInt32LE(36);
  if (count > MAX_COUNT) throw new Error('not a delta (bad header)');
  const base = DELTA_HEADER + 8 * count;
  const expected = base + count * PAGED_CHUNK;
  if (size !== expected) throw new Error(`truncated or padded: expected ${expected} bytes, found ${size}`);
  const list = Buffer.alloc(8 * count);
  if (count > 0 && fs.readSync(fd, list, 0, list.length, DELTA_HEADER) !== list.length) throw new Error('truncated chunk list');
  if (crc32(Buffer.concat([head.subarray(0, 40), list])) !== head.readUInt32LE(40)) throw new Error('checksum mismatch (header)');
  const entries: DeltaEntry[] = [];
  let last = -1;
  for (let k = 0; k < count; k++) {
    const index = list.readUInt32LE(8 * k);
    if (index <= last) throw new Error('chunk list out of order');
    last = index;
    entries.push({ index, crc: list.readUInt32LE(8 * k + 4), offset: base + k * PAGED_CHUNK });
  }
  return { gen: Number(head.readBigUInt64LE(16)), prevGen: Number(head.readBigUInt64LE(24)), length: Number(head.readBigUInt64LE(8)), entries, bytes: size };
}

/** Reads a delta back whole (header, list, every chunk's CRC) on the thread pool. Throws with the reason it is unusable. */
export async function verifyDelta(file: string): Promise<DeltaInfo> {
  const fd = fs.openSync(file, 'r');
  try {
    const info = readDeltaHeader(fd);
    const buf = Buffer.allocUnsafe(PAGED_CHUNK);
    for (const e of info.entries) {
      const { bytesRead } = await new Promise<{ bytesRead: number }>((resolve, reject) =>
        fs.read(fd, buf, 0, PAGED_CHUNK, e.offset, (err, bytesRead) => (err ? reject(err) : resolve({ bytesRead }))),
      );
      if (bytesRead !== PAGED_CHUNK || crc32(buf) !== e.crc) throw new Error(`checksum mismatch (chunk ${e.index})`);
    }
    return info;
  } finally {
    fs.closeSync(fd);
  }
}
