// Cold snapshots: every full snapshot but the newest is kept only as a backup (it
// is read when the newest one is damaged), so it is kept compressed. The file `snapshot-<gen>.dbz`
// holds the whole `snapshot-<gen>.db` file (header, bytes, chunk table) in independent 1 MiB blocks:
//   "CMEMSNZ1" | u32 block size | u32 block count | u64 raw size | u32 crc32 of the index | u32 0 |
//   index: per block u32 compressed length, u32 crc32 of the raw block | blocks (raw deflate).
// Each block is compressed and checked on the thread pool (the event loop stays free) and each is
// checked against its own CRC when read, so a damaged cold snapshot is always found, never used.
// A start that needs it (the newest snapshot is damaged) thaws it back to the .db file first.
// Closed journal segments that only back up a checkpoint are kept in the same container
// (coldJournal.ts, magic "CMEMJNZ1").
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateRaw, inflateRaw, inflateRawSync } from 'node:zlib';
import { writeParts } from './delta';
import { sizeOf, syncDirSync, writeAtomically } from './journal';
import { faultPoint } from './faultPoint';
import { listSnapshots, snapshotHeader, snapshotName } from './snapshot';

const MAGIC: Buffer = Buffer.from('CMEMSNZ1', 'ascii');
/** The same container holding a closed journal segment (coldJournal.ts). */
export const JOURNAL_MAGIC: Buffer = Buffer.from('CMEMJNZ1', 'ascii');
const HEADER = 32;
const BLOCK = 1 << 20;
/** Blocks read, (de)compressed in parallel on the thread pool and written at once: a stop waits for at most one such group. */
const GROUP = 2;
/** Level 1: about a third of the size at a fraction of level 6's CPU (measured: docs/benchmarks.md). */
const LEVEL = 1;
/**
 * Snapshots smaller than this stay as they are: compressing them saves little, and a start that
 * falls back to one reads it directly. CLAUDE_MEM_COLD_SNAPSHOT_MIN_BYTES overrides it (tests: 0).
 */
export const COLD_MIN_BYTES = 1 << 20;

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

export function coldName(gen: number): string {
  return `${snapshotName(gen)}z`;
}

export function coldMinBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CLAUDE_MEM_COLD_SNAPSHOT_MIN_BYTES;
  const n = v === undefined || v.trim() === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : COLD_MIN_BYTES;
}

interface ColdIndex {
  rawSize: number;
  blocks: { offset: number; len: number; crc: number; rawLen: number }[];
}

function parseIndex(head: Buffer, index: Buffer | null, fileSize: number, magic = MAGIC): ColdIndex | number {
  const what = magic === MAGIC ? 'a cold snapshot' : 'a compressed journal';
  if (head.length < HEADER || !head.subarray(0, 8).equals(magic)) throw new Error(`not ${what} (bad header)`);
  const block = head.readUInt32LE(8);
  const count = head.readUInt32LE(12);
  const rawSize = Number(head.readBigUInt64LE(16));
  if (block !== BLOCK || count !== Math.ceil(rawSize / BLOCK)) throw new Error(`not ${what} (bad header)`);
  if (!index) return 8 * count;
  if (crc32(index) !== head.readUInt32LE(24)) throw new Error('checksum mismatch (index)');
  const blocks: ColdIndex['blocks'] = [];
  let offset = HEADER + 8 * count;
  for (let i = 0; i < count; i++) {
    const len = index.readUInt32LE(8 * i);
    blocks.push({ offset, len, crc: index.readUInt32LE(8 * i + 4), rawLen: Math.min(BLOCK, rawSize - i * BLOCK) });
    offset += len;
  }
  if (offset !== fileSize) throw new Error(`truncated or padded: expected ${offset} bytes, found ${fileSize}`);
  return { rawSize, blocks };
}

function readIndexSync(fd: number, magic = MAGIC): ColdIndex {
  const size = fs.fstatSync(fd).size;
  const head = Buffer.alloc(HEADER);
  fs.readSync(fd, head, 0, HEADER, 0);
  const indexBytes = parseIndex(head, null, size, magic) as number;
  const index = Buffer.alloc(indexBytes);
  if (fs.readSync(fd, index, 0, indexBytes, HEADER) !== indexBytes) throw new Error('truncated index');
  return parseIndex(head, index, size, magic) as ColdIndex;
}

function checkBlock(i: number, raw: Buffer, b: ColdIndex['blocks'][number]): void {
  if (raw.length !== b.rawLen || crc32(raw) !== b.crc) throw new Error(`checksum mismatch (block ${i})`);
}

/**
 * Compresses snapshot `gen` into its cold file, reads that back block by block, and only then
 * removes the .db: at every moment one verified copy of the snapshot is on disk.
 */
export async function freezeSnapshot(dir: string, gen: number, stopping: () => boolean = () => false): Promise<{ rawBytes: number; coldBytes: number }> {
  return packFile(path.join(dir, snapshotName(gen)), path.join(dir, coldName(gen)), MAGIC, stopping);
}

/**
 * Compresses `src` into `dest` (this module's container with `magic`), reads `dest` back block by
 * block, and only then removes `src`: at every moment one verified copy is on disk. `src` removed
 * meanwhile (pruned): `dest` goes too, and coldBytes is 0.
 */
export async function packFile(src: string, dest: string, magic: Buffer, stopping: () => boolean = () => false): Promise<{ rawBytes: number; coldBytes: number }> {
  const fh = await fs.promises.open(src, 'r');
  let rawSize: number;
  try {
    rawSize = (await fh.stat()).size;
    const count = Math.ceil(rawSize / BLOCK);
    const index = Buffer.alloc(8 * count);
    const fill = async (out: fs.promises.FileHandle): Promise<void> => {
      let at = HEADER + index.length;
      // GROUP blocks at a time: one read, their deflates in parallel, one write. Each await waits
      // for a turn of an event loop an import keeps busy, so fewer of them finish it sooner.
      for (let g = 0; g < count; g += GROUP) {
        if (stopping()) throw new StoppedError();
        const from = g * BLOCK;
        const want = Math.min(GROUP * BLOCK, rawSize - from);
        const buf = Buffer.allocUnsafe(want);
        let got = 0;
        while (got < want) {
          const { bytesRead } = await fh.read(buf, got, want - got, from + got);
          if (bytesRead === 0) throw new Error(`${path.basename(src)} ended at ${from + got} bytes while being compressed`);
          got += bytesRead;
        }
        const raws: Buffer[] = [];
        for (let o = 0; o < want; o += BLOCK) raws.push(buf.subarray(o, Math.min(o + BLOCK, want)));
        const packed = await Promise.all(raws.map((raw) => deflate(raw, { level: LEVEL })));
        raws.forEach((raw, j) => {
          index.writeUInt32LE(packed[j].length, 8 * (g + j));
          index.writeUInt32LE(crc32(raw), 8 * (g + j) + 4);
        });
        await writeParts(out, packed, at);
        at += packed.reduce((n, p) => n + p.length, 0);
      }
      // A stop asked meanwhile: no header, no fsync of the whole file (what a stop would wait for).
      if (stopping()) throw new StoppedError();
      const head = Buffer.alloc(HEADER);
      magic.copy(head, 0);
      head.writeUInt32LE(BLOCK, 8);
      head.writeUInt32LE(count, 12);
      head.writeBigUInt64LE(BigInt(rawSize), 16);
      head.writeUInt32LE(crc32(index), 24);
      await out.write(Buffer.concat([head, index]), 0, HEADER + index.length, 0);
    };
    // Its own fault points (cold-snapshot:before-sync, cold-journal:renamed, ...), not a checkpoint's.
    await writeAtomically(dest, fill, magic === MAGIC ? 'cold-snapshot' : 'cold-journal');
  } finally {
    await fh.close();
  }
  try {
    await verifyCold(dest, stopping, magic);
  } catch (e) {
    // Unread or unreadable, the compressed copy goes; the original stays (a stop: the next start compresses it again).
    await fs.promises.unlink(dest).catch(() => undefined);
    if (e instanceof StoppedError) throw e;
    throw new Error(`${path.basename(dest)} did not read back (${(e as Error).message}); kept ${path.basename(src)}`);
  }
  // Pruned meanwhile (a newer pair of snapshots, or a compaction of deleted text, made it obsolete):
  // its compressed copy must not outlive it.
  if (!fs.existsSync(src)) {
    await fs.promises.unlink(dest).catch(() => undefined);
    return { rawBytes: rawSize, coldBytes: 0 };
  }
  // Asked to stop (a stop, or storage found damaged: then no file may go): both copies stay.
  if (stopping()) throw new StoppedError();
  const coldBytes = (await fs.promises.stat(dest)).size;
  faultPoint(magic === MAGIC ? 'cold-snapshot:verified' : 'cold-journal:verified');
  await fs.promises.unlink(src).catch(() => undefined);
  return { rawBytes: rawSize, coldBytes };
}

/**
 * Reads a cold snapshot whole, inflating each block on the thread pool and checking its CRC;
 * `stopping` (a stop asked) ends it before the next block with a StoppedError.
 */
export async function verifyCold(file: string, stopping: () => boolean = () => false, magic = MAGIC): Promise<void> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(HEADER);
    await fh.read(head, 0, HEADER, 0);
    const indexBytes = parseIndex(head, null, size, magic) as number;
    const index = Buffer.alloc(indexBytes);
    if ((await fh.read(index, 0, indexBytes, HEADER)).bytesRead !== indexBytes) throw new Error('truncated index');
    const idx = parseIndex(head, index, size, magic) as ColdIndex;
    for (let g = 0; g < idx.blocks.length; g += GROUP) {
      if (stopping()) throw new StoppedError();
      const group = idx.blocks.slice(g, g + GROUP);
      const from = group[0].offset;
      const last = group[group.length - 1];
      const bytes = Buffer.alloc(last.offset + last.len - from);
      if ((await fh.read(bytes, 0, bytes.length, from)).bytesRead !== bytes.length) throw new Error(`truncated at block ${g}`);
      const raws = await Promise.all(group.map((b) => inflate(bytes.subarray(b.offset - from, b.offset - from + b.len))));
      raws.forEach((raw, j) => checkBlock(g + j, raw, group[j]));
    }
  } finally {
    await fh.close();
  }
}

/** Calls `each` with every block of a cold snapshot in order, inflated and checked (synchronous: start-up). */
function thawBlocks(file: string, each: (raw: Buffer, at: number) => void, magic = MAGIC): number {
  const fd = fs.openSync(file, 'r');
  try {
    const idx = readIndexSync(fd, magic);
    for (let i = 0; i < idx.blocks.length; i++) {
      const b = idx.blocks[i];
      const packed = Buffer.alloc(b.len);
      if (fs.readSync(fd, packed, 0, b.len, b.offset) !== b.len) throw new Error(`truncated at block ${i}`);
      let raw: Buffer;
      try {
        raw = inflateRawSync(packed);
      } catch {
        throw new Error(`block ${i} does not inflate`);
      }
      checkBlock(i, raw, b);
      each(raw, i * BLOCK);
    }
    return idx.rawSize;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes snapshot `gen` back from its cold file (temp, fsync, rename); throws with the reason it is unusable. */
export function thawSnapshot(dir: string, gen: number): string {
  const final = path.join(dir, snapshotName(gen));
  const tmp = `${final}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  let ok = false;
  try {
    thawBlocks(path.join(dir, coldName(gen)), (raw, at) => {
      for (let w = 0; w < raw.length; ) w += fs.writeSync(fd, raw, w, raw.length - w, at + w);
    });
    fs.fsyncSync(fd);
    ok = true;
  } finally {
    fs.closeSync(fd);
    if (!ok) fs.rmSync(tmp, { force: true });
  }
  fs.renameSync(tmp, final);
  syncDirSync(dir);
  return final;
}

/** The whole .db file of snapshot `gen`, inflated into memory (readers that must not write the data dir). */
export function thawToMemory(dir: string, gen: number): Buffer {
  return unpackToMemory(path.join(dir, coldName(gen)), MAGIC);
}

/** A whole file of this module's container with `magic`, inflated into memory, every block checked; throws with the reason it is unusable. */
export function unpackToMemory(file: string, magic: Buffer): Buffer {
  const parts: Buffer[] = [];
  const size = thawBlocks(file, (raw) => parts.push(raw), magic);
  const out = Buffer.concat(parts);
  if (out.length !== size) throw new Error(`inflated to ${out.length} bytes, expected ${size}`);
  return out;
}

/**
 * Compresses every full snapshot but the newest that is at least `minBytes` long (the newest is
 * the one starts read; the older are its backup). Called after a checkpoint's prune; one at a time.
 */
export async function freezeOlderSnapshots(dir: string, minBytes: number, stopping: () => boolean): Promise<{ gen: number; rawBytes: number; coldBytes: number; ms: number }[]> {
  const done: { gen: number; rawBytes: number; coldBytes: number; ms: number }[] = [];
  for (;;) {
    if (stopping()) return done;
    const snaps = listSnapshots(dir);
    // A packed snapshot (packChain.ts, once the newest) is compressed already.
    const gen = snaps.slice(0, -1).find((g) => sizeOf(path.join(dir, snapshotName(g))) >= Math.max(minBytes, 1) && !isPacked(path.join(dir, snapshotName(g))));
    if (gen === undefined) return done;
    const t0 = performance.now();
    let r;
    try {
      r = await freezeSnapshot(dir, gen, stopping);
    } catch (e) {
      if (e instanceof StoppedError) return done;
      throw e;
    }
    done.push({ gen, ...r, ms: Math.round(performance.now() - t0) });
  }
}

function isPacked(file: string): boolean {
  try {
    return snapshotHeader(file).version >= 3;
  } catch {
    return false;
  }
}

/** A stop cut a compression short: its temp file is gone, the original stays (the next start finishes it). */
export class StoppedError extends Error {}
