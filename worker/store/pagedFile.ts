// A bounded page cache for the database file sql.js sees (issue 19, item 1). Opt-in and off by
// default (CLAUDE_MEM_PAGE_CACHE_MB, store.ts -> recovery.ts): dirty chunks are only released by a
// restart until checkpoints write them (item 2). bench/pagecache-probe.mjs measures it.
//
// sql.js keeps its file in Emscripten's MEMFS, which does not export FS, but it reaches a file's
// bytes only through `node.contents`: reads call `contents.subarray(b, e)` and copy out of it at
// once, writes call `contents.set(src, pos)`, growth compares `contents.length` (the capacity)
// with the new size, and the hand-over in `new SQL.Database(data)` keeps `data.slice(0, length)`
// (checked against sql.js 1.17's MEMFS: read, write, expandFileStorage, getFileDataAsTypedArray,
// mmap; FS_fileDataToTypedArray passes anything with a `subarray` through). So a plain object with
// those four members can stand in for the Uint8Array: PagedBytes serves the file in CHUNK pieces,
// reads clean chunks from the (immutable, verified) snapshot on demand, keeps chunks SQLite wrote
// ("dirty") until a checkpoint takes them, and drops the least recently used clean chunks once the
// cache holds more than `budgetBytes`. Dropped chunks are garbage, so the memory really goes back
// (an ArrayBuffer cannot give pages back: LazyFileBytes can only grow to the whole file).
//
// Every chunk read from disk is checked against a CRC taken when the snapshot was verified at
// open (the open pass reads every byte anyway), so a file damaged while the worker runs is
// reported (an I/O error for that statement), never served.
//
// Limits found: a truncate (VACUUM, auto_vacuum) makes MEMFS copy the whole file into a new
// Uint8Array (resizeFileStorage), which still works but loads everything; mmap is never used by
// SQLite here (mmap_size is 0).
import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';

export const PAGED_CHUNK = 64 << 10;
/** What MEMFS sees as the capacity after hand-over: growth never reallocates (and never copies). */
const CAPACITY = 2 ** 40;

interface Chunk {
  data: Uint8Array;
  dirty: boolean;
}

export interface PagedStats {
  size: number;
  cachedBytes: number;
  dirtyBytes: number;
  reads: number;
  evictions: number;
}

export class PagedBytes {
  private readonly chunks = new Map<number, Chunk>();
  private handedOver = false;
  private size: number;
  private cached = 0;
  private dirty = 0;
  private reads = 0;
  private evictions = 0;

  /**
   * fd: an open snapshot (owned); base: where the database bytes start in it; length: how many;
   * crcs: the CRC-32 of each PAGED_CHUNK of those bytes, taken when the file was verified.
   */
  constructor(
    private readonly fd: number,
    private readonly base: number,
    private readonly baseLength: number,
    private readonly crcs: Uint32Array,
    private readonly budgetBytes: number,
  ) {
    this.size = baseLength;
  }

  /** The file's length until MEMFS owns this object, then a capacity it never has to grow past. */
  get length(): number {
    return this.handedOver ? CAPACITY : this.size;
  }

  get stats(): PagedStats {
    return { size: this.size, cachedBytes: this.cached, dirtyBytes: this.dirty, reads: this.reads, evictions: this.evictions };
  }

  /** Chunk indexes written since open (or since the last markClean): what a checkpoint must write. */
  dirtyChunks(): number[] {
    return [...this.chunks.entries()].filter(([, c]) => c.dirty).map(([i]) => i);
  }

  subarray(begin = 0, end = this.size): Uint8Array {
    const [b, e] = this.range(begin, end);
    if (e === b) return new Uint8Array(0);
    const first = Math.floor(b / PAGED_CHUNK);
    if (first === Math.floor((e - 1) / PAGED_CHUNK)) {
      const c = this.chunk(first, true);
      const off = b - first * PAGED_CHUNK;
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
      // A write over a whole chunk need not read it first.
      const c = this.chunk(i, !(off === 0 && n === PAGED_CHUNK));
      c.data.set(view.subarray(pos - offset, pos - offset + n), off);
      if (!c.dirty) {
        c.dirty = true;
        this.dirty += PAGED_CHUNK;
      }
      pos += n;
    }
    this.size = Math.max(this.size, end);
  }

  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
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
      out.set(this.chunk(i, true).data.subarray(off, off + n), pos - b);
      pos += n;
    }
    return out;
  }

  /** Chunk i, most recently used now; read from the snapshot (and checked) when not cached and `fill`. */
  private chunk(i: number, fill: boolean): Chunk {
    let c = this.chunks.get(i);
    if (c) {
      this.chunks.delete(i);
      this.chunks.set(i, c);
      return c;
    }
    // At the budget, the least recently used clean chunk gives up its buffer: no allocation churn
    // (freed buffers stay in the allocator's arenas, so RSS would not come down anyway).
    const reused = this.cached + PAGED_CHUNK > this.budgetBytes ? this.evictOne() : undefined;
    c = { data: reused ?? new Uint8Array(PAGED_CHUNK), dirty: false };
    if (reused) reused.fill(0);
    else this.cached += PAGED_CHUNK;
    try {
      if (fill) this.load(i, c.data);
    } catch (e) {
      this.cached -= PAGED_CHUNK; // the buffer is dropped with the failed chunk
      throw e;
    }
    this.chunks.set(i, c);
    return c;
  }

  private load(i: number, into: Uint8Array): void {
    const from = i * PAGED_CHUNK;
    const len = Math.min(this.baseLength - from, PAGED_CHUNK);
    if (len <= 0) return; // past the snapshot: bytes SQLite has not written yet read as zeros
    let off = 0;
    while (off < len) {
      const n = fs.readSync(this.fd, into, off, len - off, this.base + from + off);
      if (n === 0) throw new Error(`snapshot ended at ${this.base + from + off} bytes while being read`);
      off += n;
    }
    this.reads++;
    if (crc32(into.subarray(0, len)) !== this.crcs[i]) throw new Error(`snapshot chunk ${i} changed on disk since it was verified`);
  }

  /** Drops the least recently used clean chunk and returns its buffer; undefined when every chunk is dirty. */
  private evictOne(): Uint8Array | undefined {
    for (const [i, c] of this.chunks) {
      if (c.dirty) continue;
      this.chunks.delete(i);
      this.evictions++;
      return c.data;
    }
    return undefined;
  }
}

/**
 * Verifies a snapshot's database bytes (length, whole-file CRC as today) and takes a CRC per
 * PAGED_CHUNK on the same pass; returns a PagedBytes over it, or throws with the reason.
 */
export function openPagedSnapshot(file: string, budgetBytes: number, header: { base: number; length: number; crc: number }): PagedBytes {
  const fd = fs.openSync(file, 'r');
  let owned = false;
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
    owned = true;
    return new PagedBytes(fd, base, length, crcs, budgetBytes);
  } finally {
    if (!owned) fs.closeSync(fd);
  }
}
