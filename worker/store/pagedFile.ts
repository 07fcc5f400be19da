// A bounded page cache for the database file sql.js sees. Used when
// CLAUDE_MEM_PAGE_CACHE_MB / StoreOptions.pageCacheBytes is set (store.ts -> recovery.ts);
// bench/pagecache-probe.mjs measures it.
//
// sql.js keeps its file in Emscripten's MEMFS, which does not export FS, but it reaches a file's
// bytes only through `node.contents`: reads call `contents.subarray(b, e)` and copy out of it at
// once, writes call `contents.set(src, pos)`, growth compares `contents.length` (the capacity)
// with the new size, and the hand-over in `new SQL.Database(data)` keeps `data.slice(0, length)`
// (checked against sql.js 1.17's MEMFS: read, write, expandFileStorage, getFileDataAsTypedArray,
// mmap; FS_fileDataToTypedArray passes anything with a `subarray` through). So a plain object with
// those four members can stand in for the Uint8Array: PagedBytes serves the file in CHUNK pieces,
// reads clean chunks on demand from where the files on disk hold them (a chunk map built from the
// newest full snapshot and the deltas after it, chain.ts), keeps chunks SQLite wrote ("dirty")
// until a checkpoint has written them (store.ts: capture, then settle once the file reads back),
// and drops the least recently used clean chunks once the cache holds more than `budgetBytes`.
// Dropped chunks are garbage, so the memory really goes back (an ArrayBuffer cannot give pages
// back: LazyFileBytes can only grow to the whole file).
//
// Every chunk read from disk is checked against the CRC its file lists for it, so a file damaged
// while the worker runs is reported (an I/O error for that statement, and onDamage), never served.
//
// Limits found: a truncate (VACUUM, auto_vacuum) makes MEMFS copy the whole file into a new
// Uint8Array (resizeFileStorage): from then on writes would not reach this object and a delta
// would miss them, so nothing here may truncate the database file (the store never runs VACUUM and
// keeps auto_vacuum off). mmap is never used by SQLite here (mmap_size is 0).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateRaw, inflateRaw, inflateRawSync } from 'node:zlib';

export const PAGED_CHUNK = 64 << 10;
/**
 * How a page cache budget is shared: half goes to SQLite's own page cache (in sql.js's heap, 4 KiB
 * pages), half to the chunks here (the dirty ones, and clean ones read lately). The pages a search
 * reads again (index interiors, docsize, common words' doclists) are scattered: kept as pages they
 * fit in a few MiB, kept as the 64 KiB chunks around them they filled a 64 MiB cache at 100k
 * records. Measured with bench/scale: 8 + 8 MiB answers as fast as 64 MiB of chunks alone.
 */
export function splitPageCache(budgetBytes: number): { sqliteBytes: number; chunkBytes: number } {
  const sqliteBytes = Math.floor(budgetBytes / 2);
  return { sqliteBytes, chunkBytes: budgetBytes - sqliteBytes };
}

/** What MEMFS sees as the capacity after hand-over: growth never reallocates (and never copies). */
const CAPACITY = 2 ** 40;

/** An open, immutable file chunks are read from; closed once no chunk points into it. */
export class FileRef {
  private refs = 0;
  constructor(
    readonly file: string,
    private fd: number | undefined,
  ) {}

  static open(file: string): FileRef {
    return new FileRef(file, fs.openSync(file, 'r'));
  }

  hold(): void {
    this.refs++;
  }

  release(): void {
    if (--this.refs <= 0) this.close();
  }

  /** Closes the file when nothing holds it (a file every chunk of which was overridden). */
  closeIfUnused(): void {
    if (this.refs <= 0) this.close();
  }

  get open(): boolean {
    return this.fd !== undefined;
  }

  /** The open descriptor: a header read through it is the same file the chunks are read from, even if the name was replaced since (packChain.ts). */
  get descriptor(): number {
    if (this.fd === undefined) throw new Error(`${path.basename(this.file)} already closed`);
    return this.fd;
  }

  readSync(into: Uint8Array, len: number, pos: number): void {
    const fd = this.fd;
    if (fd === undefined) throw new Error(`${path.basename(this.file)} already closed`);
    for (let off = 0; off < len; ) {
      const n = fs.readSync(fd, into, off, len - off, pos + off);
      if (n === 0) throw new Error(`${path.basename(this.file)} ended at ${pos + off} bytes while being read`);
      off += n;
    }
  }

  async read(into: Uint8Array, len: number, pos: number): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) throw new Error(`${path.basename(this.file)} already closed`);
    for (let off = 0; off < len; ) {
      const n = await new Promise<number>((resolve, reject) => fs.read(fd, into, off, len - off, pos + off, (e, got) => (e ? reject(e) : resolve(got))));
      if (n === 0) throw new Error(`${path.basename(this.file)} ended at ${pos + off} bytes while being read`);
      off += n;
    }
  }

  private close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* already closed */
      }
    }
  }
}

/**
 * Where a chunk's bytes are on disk: `len` bytes at `offset` in `ref` (the rest of the chunk reads
 * as zeros), and their CRC. `packed`: the file holds them deflated in this many bytes instead
 * (a packed snapshot or delta, packChain.ts): with `subs`, as PACK_SUB sub-blocks each raw-deflated on
 * its own (or raw when that is no smaller), one after the other, `subs` listing for each its bytes
 * stored and the CRC of its raw bytes, so a read inflates and checks only the sub-block it needs;
 * without (files packed before sub-blocks, still read), as one raw-deflated stream. `crc` is of the
 * raw bytes in every form.
 */
export interface ChunkLoc {
  ref: FileRef;
  offset: number;
  len: number;
  crc: number;
  packed?: number;
  subs?: Uint32Array;
}

/**
 * A packed chunk is stored in sub-blocks of this size, each raw-deflated on its own: a page cache miss
 * inflates 16 KiB instead of 64. On the 100k history's chunks at level 1 the sub-blocks take 0.449 of
 * the raw bytes against 0.432 for whole chunks, and inflating one costs about a fifth of a chunk.
 */
export const PACK_SUB = 16 << 10;
export const SUBS = PAGED_CHUNK / PACK_SUB;
/** A packed chunk's sub-blocks in a file's chunk list: per sub-block u32 bytes stored, u32 crc32 of its raw bytes. */
export const SUBS_ENTRY = 8 * SUBS;

/** A chunk as a packed file stores it: its sub-blocks one after the other, and for each [bytes stored, CRC of its raw bytes]. */
export interface PackedChunk {
  bytes: Uint8Array;
  subs: Uint32Array;
}

const inflateAsync = promisify(inflateRaw);
const deflateAsync = promisify(deflateRaw);
/** Level 1, as for cold snapshots: the 64 KiB chunks of the 10k history deflate to 0.43 of their size. */
const PACK_LEVEL = 1;

/** Bytes of sub-block s of a chunk of `len` bytes (0 past its end). */
const subLen = (len: number, s: number): number => Math.max(0, Math.min(PACK_SUB, len - s * PACK_SUB));

/**
 * Each chunk as a packed file stores it (packChain.ts, a packed snapshot or delta): its sub-blocks
 * raw-deflated on the thread pool, in parallel, each kept raw when deflating does not make it smaller.
 */
export async function packChunks(raws: Uint8Array[]): Promise<PackedChunk[]> {
  const parts = raws.map((r) => Array.from({ length: SUBS }, (_, s) => r.subarray(s * PACK_SUB, s * PACK_SUB + subLen(r.length, s))));
  const deflated = await Promise.all(parts.flat().map((p) => (p.length > 0 ? deflateAsync(p, { level: PACK_LEVEL }) : Buffer.alloc(0))));
  return parts.map((ps, k) => {
    const subs = new Uint32Array(2 * SUBS);
    const stored = ps.map((p, s) => {
      const d = deflated[k * SUBS + s];
      const b = d.length < p.length ? d : p;
      subs[2 * s] = b.length;
      subs[2 * s + 1] = p.length > 0 ? crc32(p) : 0;
      return b;
    });
    return { bytes: Buffer.concat(stored), subs };
  });
}

/** Writes a packed chunk's sub-blocks (PackedChunk.subs) into a file's chunk list at `at`. */
export function writeSubs(into: Buffer, at: number, subs: Uint32Array): void {
  for (let k = 0; k < 2 * SUBS; k++) into.writeUInt32LE(subs[k], at + 4 * k);
}

/** Reads a packed chunk's sub-blocks from a file's chunk list, checked against the chunk's length; with their total bytes stored. */
export function readSubs(from: Buffer, at: number, len: number, what: string): { subs: Uint32Array; stored: number } {
  const subs = new Uint32Array(2 * SUBS);
  let stored = 0;
  for (let s = 0; s < SUBS; s++) {
    const n = from.readUInt32LE(at + 8 * s);
    const want = subLen(len, s);
    if (n > want || (n === 0) !== (want === 0)) throw new Error(`${what} sub-block ${s} stored in ${n} bytes (not a packed file)`);
    subs[2 * s] = n;
    subs[2 * s + 1] = from.readUInt32LE(at + 8 * s + 4);
    stored += n;
  }
  return { subs, stored };
}

/** The database as the files hold it: its length and where each chunk is (undefined: zeros). */
export interface ChunkSource {
  length: number;
  locs: (ChunkLoc | undefined)[];
  /** The checkpoint (journal gen) whose state these chunks hold. */
  headGen: number;
}

const damaged = (file: string, index: number, why = 'changed on disk since it was written'): Error => new Error(`${path.basename(file)} chunk ${index} ${why}`);

/** Reads a chunk from its file into `into` (PAGED_CHUNK bytes, zero-filled past loc.len) and checks its CRC. */
export function readLocSync(loc: ChunkLoc, into: Uint8Array, index: number): void {
  if (loc.packed === undefined) loc.ref.readSync(into, loc.len, loc.offset);
  else {
    const stored = Buffer.allocUnsafe(loc.packed);
    loc.ref.readSync(stored, loc.packed, loc.offset);
    unpack(loc, stored, into, index, inflateSync);
  }
  if (crc32(into.subarray(0, loc.len)) !== loc.crc) throw damaged(loc.ref.file, index);
}

/** readLocSync on the thread pool (each sub-block inflated in parallel); `stored`: the packed chunk's bytes, already read. */
export async function readLoc(loc: ChunkLoc, into: Uint8Array, index: number, given?: Uint8Array): Promise<void> {
  if (loc.packed === undefined) await loc.ref.read(into, loc.len, loc.offset);
  else {
    const stored = given ?? Buffer.allocUnsafe(loc.packed);
    if (!given) await loc.ref.read(stored, loc.packed, loc.offset);
    // Each sub-block inflated on the thread pool, in parallel.
    const streams = loc.subs ? Array.from({ length: SUBS }, (_, s) => subSpan(loc, s)).map((p) => stored.subarray(p.at, p.at + p.stored)) : [stored];
    const lens = loc.subs ? streams.map((_, s) => subLen(loc.len, s)) : [loc.len];
    const raws = await Promise.all(streams.map((b, k) => (b.length > 0 && b.length < lens[k] ? inflateAsync(b, { maxOutputLength: lens[k] }).catch(() => undefined) : b)));
    unpack(loc, stored, into, index, (_b, _max, s) => raws[s]);
  }
  if (crc32(into.subarray(0, loc.len)) !== loc.crc) throw damaged(loc.ref.file, index);
}

/** Where sub-block s of a packed chunk is in its stored bytes. */
function subSpan(loc: { subs?: Uint32Array }, s: number): { at: number; stored: number } {
  const subs = loc.subs as Uint32Array;
  let at = 0;
  for (let k = 0; k < s; k++) at += subs[2 * k];
  return { at, stored: subs[2 * s] };
}

type Inflate = (b: Uint8Array, max: number, s: number) => Uint8Array | undefined;
// Output room for the whole block at once (zlib's default is 16 KiB pieces): a 16 KiB sub-block was
// inflated into one piece, then a second was allocated to find the stream's end; a chunk packed
// whole took five pieces and their concatenation.
const inflateSync: Inflate = (b, max) => inflateRawSync(b, { maxOutputLength: max, chunkSize: max + 1 });
/** A sub-block's stored bytes while it is read and inflated (synchronously: one at a time), not a new buffer per page cache miss. */
const storedScratch = Buffer.allocUnsafe(PACK_SUB);

/**
 * A packed chunk's raw bytes into `into` from its stored bytes: each sub-block inflated (`inflate`,
 * given the sub-block's index) and checked against its CRC. A stream that does not inflate to its
 * length is a damaged chunk.
 */
export function unpack(loc: Omit<ChunkLoc, 'ref'> & { ref?: FileRef }, stored: Uint8Array, into: Uint8Array, index: number, inflate: Inflate): void {
  const file = loc.ref?.file ?? 'snapshot';
  if (!loc.subs) return unpackSub(file, index, -1, stored, loc.len, undefined, into, inflate);
  for (let s = 0, at = 0; s < SUBS; s++) {
    const n = loc.subs[2 * s];
    if (n > 0) unpackSub(file, index, s, stored.subarray(at, at + n), subLen(loc.len, s), loc.subs[2 * s + 1], into, inflate);
    at += n;
  }
}

/** Sub-block s (-1: a chunk stored as one stream) inflated from `b` (raw when not shorter than `len`) into its place in `into`, checked against `crc`. */
function unpackSub(file: string, index: number, s: number, b: Uint8Array, len: number, crc: number | undefined, into: Uint8Array, inflate: Inflate): void {
  let raw: Uint8Array | undefined = b;
  if (b.length < len) {
    try {
      raw = inflate(b, len, Math.max(s, 0));
    } catch {
      raw = undefined;
    }
  }
  const what = s < 0 ? '' : `sub-block ${s} `;
  if (!raw || raw.length !== len) throw damaged(file, index, `${what}does not inflate (changed on disk since it was written)`);
  into.set(raw, Math.max(s, 0) * PACK_SUB);
  if (crc !== undefined && crc32(raw) !== crc) throw damaged(file, index, `${what}changed on disk since it was written`);
}

/** Reads sub-block s of a packed chunk into its place in `into` (zero-filled past loc.len) and checks it against its CRC. */
function readSubSync(loc: ChunkLoc, s: number, into: Uint8Array, index: number): void {
  const { at, stored } = subSpan(loc, s);
  const len = subLen(loc.len, s);
  if (len < PACK_SUB) into.fill(0, s * PACK_SUB + len, (s + 1) * PACK_SUB);
  if (len === 0) return;
  const b = storedScratch.subarray(0, stored);
  loc.ref.readSync(b, stored, loc.offset + at);
  unpackSub(loc.ref.file, index, s, b, len, (loc.subs as Uint32Array)[2 * s + 1], into, inflateSync);
}

interface Chunk {
  data: Uint8Array;
  /** The write clock when SQLite last wrote it (PagedBytes.clock). */
  version: number;
  /** `data` is also a checkpoint's capture: the next write copies it first (copy on write). */
  shared: boolean;
  /** Which PACK_SUB sub-blocks of `data` hold the chunk's bytes (bit s: sub-block s); a dirty chunk has all. */
  present: number;
}

const ALL = (1 << SUBS) - 1;
/** The sub-blocks bytes from..to-1 of a chunk lie in, as bits. */
const subsOf = (from: number, to: number): number => (from >= to ? 0 : ((1 << (Math.floor((to - 1) / PACK_SUB) + 1)) - 1) & ~((1 << Math.floor(from / PACK_SUB)) - 1));

/** The dirty chunks copied at a checkpoint's journal rotation (store.ts), and where the clean ones were. */
export interface Capture {
  clock: number;
  length: number;
  headGen: number;
  dirty: { index: number; data: Uint8Array }[];
  /** For a full snapshot: where every chunk not in `dirty` is (undefined: zeros). */
  locs?: (ChunkLoc | undefined)[];
}

export interface PagedStats {
  size: number;
  cachedBytes: number;
  dirtyBytes: number;
  /** Reads from disk: a whole chunk, or one sub-block of a chunk packed in sub-blocks. */
  reads: number;
  evictions: number;
  /** The checkpoint the clean chunks come from. */
  headGen: number;
}

export class PagedBytes {
  private readonly chunks = new Map<number, Chunk>();
  private readonly dirtySet = new Set<number>();
  private readonly locs: (ChunkLoc | undefined)[];
  private handedOver = false;
  private size: number;
  private cached = 0;
  private reads = 0;
  private evictions = 0;
  private clock = 0;
  private closed = false;
  /** The checkpoint whose state the clean chunks hold: the next delta is built on it (its prevGen). */
  headGen: number;
  /** Called when a chunk read from disk fails its CRC (the file is damaged). */
  onDamage: ((file: string, chunk: number) => void) | undefined;

  /** Takes over the source's file references (each loc's ref is held once per chunk). */
  constructor(
    source: ChunkSource,
    private readonly budgetBytes: number,
  ) {
    this.size = source.length;
    this.locs = source.locs;
    this.headGen = source.headGen;
  }

  /** The file's length until MEMFS owns this object, then a capacity it never has to grow past. */
  get length(): number {
    return this.handedOver ? CAPACITY : this.size;
  }

  get stats(): PagedStats {
    return { size: this.size, cachedBytes: this.cached, dirtyBytes: this.dirtyBytes, reads: this.reads, evictions: this.evictions, headGen: this.headGen };
  }

  /** Bytes of chunks SQLite wrote since the last checkpoint that covers them. */
  get dirtyBytes(): number {
    return this.dirtySet.size * PAGED_CHUNK;
  }

  /** Chunk indexes written since open (or since the checkpoint that took them): what a checkpoint must write. */
  dirtyChunks(): number[] {
    return [...this.dirtySet].sort((a, b) => a - b);
  }

  /**
   * Every dirty chunk as it is now (a checkpoint calls this in the tick its journal rotation is
   * queued, so the capture is exactly the database before the new segment); `full` also lists where
   * every other chunk is, for a full snapshot streamed from the files. Nothing is copied here: a
   * captured chunk is copied when SQLite next writes it (set), so the event loop does not wait for
   * a copy of every dirty byte.
   */
  capture(full: boolean): Capture {
    const dirty: Capture['dirty'] = [];
    for (const i of this.dirtySet) {
      const c = this.chunks.get(i) as Chunk;
      c.shared = true;
      dirty.push({ index: i, data: c.data });
    }
    // A full capture holds the files its chunks are in until releaseCapture: a packed copy put in
    // their place meanwhile (repoint) must not close them under the merge.
    const locs = full ? this.locs.slice(0, Math.ceil(this.size / PAGED_CHUNK)) : undefined;
    for (const l of locs ?? []) l?.ref.hold();
    return { clock: this.clock, length: this.size, headGen: this.headGen, dirty, locs };
  }

  /** Lets go of the files a full capture held. */
  releaseCapture(cap: Capture): void {
    for (const l of cap.locs ?? []) l?.ref.release();
    cap.locs = undefined;
  }

  /**
   * `file` was replaced by a packed copy of the same bytes (packChain.ts): every chunk still read
   * from the old file is read from `placed` instead (chunks a later checkpoint holds stay where
   * they are), so the old file's descriptor closes and its blocks leave the disk.
   */
  repoint(file: string, placed: Iterable<[number, ChunkLoc]>): number {
    if (this.closed) return 0;
    let moved = 0;
    for (const [i, loc] of placed) {
      const old = this.locs[i];
      if (!old || old.ref === loc.ref || path.resolve(old.ref.file) !== path.resolve(file)) continue;
      loc.ref.hold();
      this.locs[i] = loc;
      old.ref.release();
      moved++;
    }
    return moved;
  }

  /**
   * A checkpoint taken by `capture` is on disk and read back as `gen`: each placed chunk is now read
   * from its new place, and is clean unless SQLite wrote it again after the capture.
   */
  settle(gen: number, placed: Iterable<[number, ChunkLoc]>, clock: number): void {
    if (this.closed) return; // the store closed meanwhile: nothing reads from here any more
    for (const [i, loc] of placed) {
      loc.ref.hold();
      const old = this.locs[i];
      this.locs[i] = loc;
      old?.ref.release();
      const c = this.chunks.get(i);
      if (!c) continue;
      c.shared = false; // the checkpoint is done with the captured bytes
      if (this.dirtySet.has(i) && c.version <= clock) this.dirtySet.delete(i);
    }
    this.headGen = gen;
    this.trim();
  }

  subarray(begin = 0, end = this.size): Uint8Array {
    const [b, e] = this.range(begin, end);
    if (e === b) return new Uint8Array(0);
    const first = Math.floor(b / PAGED_CHUNK);
    if (first === Math.floor((e - 1) / PAGED_CHUNK)) {
      const off = b - first * PAGED_CHUNK;
      const c = this.chunk(first, subsOf(off, off + (e - b)));
      return c.data.subarray(off, off + (e - b));
    }
    return this.copy(b, e);
  }

  slice(begin = 0, end = this.size): Uint8Array | PagedBytes {
    const [b, e] = this.range(begin, end);
    // MEMFS's hand-over (`contents = data.slice(0, length)`): it owns this object from now on.
    if (!this.handedOver && b === 0 && e === this.size) {
      this.handedOver = true;
      return this;
    }
    return this.copy(b, e);
  }

  set(src: ArrayLike<number>, offset = 0): void {
    const end = offset + src.length;
    const view = src instanceof Uint8Array ? src : Uint8Array.from(src);
    for (let pos = offset; pos < end; ) {
      const i = Math.floor(pos / PAGED_CHUNK);
      const off = pos - i * PAGED_CHUNK;
      const n = Math.min(PAGED_CHUNK - off, end - pos);
      // A write over a whole chunk need not read it first; a dirty chunk is written whole, so any other reads it all.
      const c = this.chunk(i, n === PAGED_CHUNK ? 0 : ALL);
      if (c.shared) {
        c.data = c.data.slice(); // the capture keeps the bytes it took
        c.shared = false;
      }
      c.data.set(view.subarray(pos - offset, pos - offset + n), off);
      c.present = ALL;
      c.version = ++this.clock;
      this.dirtySet.add(i);
      pos += n;
    }
    this.size = Math.max(this.size, end);
  }

  /** Lets go of every file (the database on top must be closed first). */
  close(): void {
    this.closed = true;
    for (let i = 0; i < this.locs.length; i++) {
      this.locs[i]?.ref.release();
      this.locs[i] = undefined;
    }
  }

  private range(begin: number, end: number): [number, number] {
    const n = this.size;
    const b = begin < 0 ? Math.max(n + begin, 0) : Math.min(begin, n);
    const e = end < 0 ? Math.max(n + end, 0) : Math.min(end, n);
    return [b, Math.max(b, e)];
  }

  private copy(b: number, e: number): Uint8Array {
    const out = new Uint8Array(e - b);
    for (let pos = b; pos < e; ) {
      const i = Math.floor(pos / PAGED_CHUNK);
      const off = pos - i * PAGED_CHUNK;
      const n = Math.min(PAGED_CHUNK - off, e - pos);
      out.set(this.chunk(i, subsOf(off, off + n)).data.subarray(off, off + n), pos - b);
      pos += n;
    }
    return out;
  }

  /** Chunk i, most recently used now, with the sub-blocks `need` (bits) read from its file (and checked) where missing. */
  private chunk(i: number, need: number): Chunk {
    let c = this.chunks.get(i);
    if (c) {
      this.chunks.delete(i);
      this.chunks.set(i, c);
      if (need & ~c.present) this.load(i, c, need);
      return c;
    }
    // At the budget, the least recently used clean chunk gives up its buffer: no allocation per
    // miss. Its old bytes are never served: only the sub-blocks marked present are.
    const reused = this.cached + PAGED_CHUNK > this.budgetBytes ? this.evictOne() : undefined;
    c = { data: reused ?? new Uint8Array(PAGED_CHUNK), version: 0, shared: false, present: 0 };
    if (!reused) this.cached += PAGED_CHUNK;
    try {
      if (need) this.load(i, c, need);
    } catch (e) {
      this.cached -= PAGED_CHUNK; // the buffer is dropped with the failed chunk
      throw e;
    }
    this.chunks.set(i, c);
    return c;
  }

  /**
   * Reads the missing sub-blocks of `need` into chunk i: only those of a chunk packed in sub-blocks, the
   * whole chunk from a raw file or one packed whole (its CRC covers all of it).
   */
  private load(i: number, c: Chunk, need: number): void {
    const loc = this.locs[i];
    if (!loc) {
      // In no file: bytes SQLite has not written yet read as zeros.
      c.data.fill(0);
      c.present = ALL;
      return;
    }
    try {
      if (loc.subs) {
        for (let s = 0; s < SUBS; s++) {
          if (!(need & ~c.present & (1 << s))) continue;
          readSubSync(loc, s, c.data, i);
          c.present |= 1 << s;
          this.reads++;
        }
        return;
      }
      if (loc.len < PAGED_CHUNK) c.data.fill(0, loc.len);
      readLocSync(loc, c.data, i);
      c.present = ALL;
      this.reads++;
    } catch (e) {
      // A whole chunk read over the sub-blocks held may have left damaged bytes there: none is served.
      if (!loc.subs) c.present = 0;
      this.onDamage?.(loc.ref.file, i);
      throw e;
    }
  }

  /**
   * Drops least recently used clean chunks until the cache is within its budget again. Dirty chunks
   * are kept whatever the budget, so a burst of writes (an import, the index merges after it) can
   * grow the cache far past it; once a checkpoint has them on disk they go, and their buffers with
   * them (64 KiB buffers are mapped on their own with the worker's malloc settings, so RSS comes down).
   */
  private trim(): void {
    for (const i of this.chunks.keys()) {
      if (this.cached <= this.budgetBytes) return;
      if (this.dirtySet.has(i)) continue;
      this.chunks.delete(i);
      this.cached -= PAGED_CHUNK;
      this.evictions++;
    }
  }

  /** Drops the least recently used clean chunk and returns its buffer; undefined when every chunk is dirty. */
  private evictOne(): Uint8Array | undefined {
    for (const [i, c] of this.chunks) {
      if (this.dirtySet.has(i)) continue;
      this.chunks.delete(i);
      this.evictions++;
      return c.data;
    }
    return undefined;
  }
}

/** The chunk locations of `length` database bytes at `base` in one file, with their CRCs. */
export function fileLocs(ref: FileRef, base: number, length: number, crcs: Uint32Array): (ChunkLoc | undefined)[] {
  const locs: (ChunkLoc | undefined)[] = [];
  for (let i = 0; i * PAGED_CHUNK < length; i++) {
    ref.hold();
    locs.push({ ref, offset: base + i * PAGED_CHUNK, len: Math.min(PAGED_CHUNK, length - i * PAGED_CHUNK), crc: crcs[i] });
  }
  return locs;
}

/**
 * Verifies a snapshot's database bytes (length, whole-file CRC) and takes a CRC per PAGED_CHUNK on
 * the same pass; returns a PagedBytes over it, or throws with the reason. (The store opens through
 * chain.ts instead, which reads a v2 snapshot's chunk table and does not read the bytes at start.)
 */
export function openPagedSnapshot(file: string, budgetBytes: number, header: { base: number; length: number; crc: number }): PagedBytes {
  const crcs = wholeFileCrcs(file, header);
  const ref = FileRef.open(file);
  return new PagedBytes({ length: header.length, locs: fileLocs(ref, header.base, header.length, crcs), headGen: 0 }, budgetBytes);
}

/** Reads `length` bytes at `base` once: checks the whole CRC and returns one CRC per PAGED_CHUNK. */
export function wholeFileCrcs(file: string, header: { base: number; length: number; crc: number }, openFd?: number): Uint32Array {
  const fd = openFd ?? fs.openSync(file, 'r');
  try {
    const { base, length, crc: expected } = header;
    const crcs = new Uint32Array(Math.ceil(length / PAGED_CHUNK));
    const buf = Buffer.allocUnsafe(Math.min(Math.max(length, 1), 64 * PAGED_CHUNK));
    let crc = 0;
    for (let off = 0; off < length; ) {
      const want = Math.min(buf.length, length - off);
      let got = 0;
      while (got < want) {
        const n = fs.readSync(fd, buf, got, want - got, base + off + got);
        if (n === 0) throw new Error(`truncated while reading at ${base + off + got} bytes`);
        got += n;
      }
      const piece = buf.subarray(0, want);
      crc = crc32(piece, crc);
      for (let p = 0; p < want; p += PAGED_CHUNK) crcs[(off + p) / PAGED_CHUNK] = crc32(piece.subarray(p, Math.min(want, p + PAGED_CHUNK)));
      off += want;
    }
    if (crc !== expected) throw new Error('checksum mismatch');
    return crcs;
  } finally {
    if (openFd === undefined) fs.closeSync(fd);
  }
}
