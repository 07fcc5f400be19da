// A snapshot's database bytes, read from disk as SQLite asks for them instead of all at start-up.
//
// sql.js keeps its database file in Emscripten's in-memory file system (MEMFS). Handing it a
// 209 MB snapshot as a plain Uint8Array costs two fresh copies (our read, then MEMFS's own
// `slice`), and on this machine touching fresh memory costs about 6 ms per MB: seconds of start-up.
// LazyFileBytes is a Uint8Array of the file's length whose pages stay untouched (zero pages from
// the allocator) until something reads them: every way MEMFS reaches a file's contents goes
// through `subarray`, `set` or `slice` (read, in-place write, growth, truncate; checked against
// sql.js 1.17's MEMFS), and those load the 1 MiB chunks they cover from the snapshot's file
// descriptor first. MEMFS's `slice(0, length)` on handing over returns the object itself, so MEMFS
// owns it without a copy. Writes land in memory only (the snapshot file is never written: a
// snapshot is immutable once renamed into place, and we hold its descriptor, so a prune or a newer
// snapshot's rename cannot change what we read).
//
// The whole file's CRC is verified before this object is made (snapshot.ts), so every byte loaded
// later is a byte that was verified. A background pass loads the rest in small steps after start,
// then closes the descriptor. If this code ran against a MEMFS that copied instead (a newer
// sql.js), it would still be correct: it would just load everything up front.
import * as fs from 'node:fs';

export const CHUNK = 1 << 20;

const closeOnCollect = new FinalizationRegistry<{ fd: number }>((h) => closeQuiet(h));

export class LazyFileBytes extends Uint8Array {
  // subarray/slice/map on this object make plain Uint8Arrays (views that MEMFS then reads).
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  private handle: { fd: number } | undefined;
  private readonly fileBase: number;
  private loaded: Uint8Array;
  private remaining: number;
  private nextBackground = 0;
  private background: NodeJS.Timeout | undefined;

  /** fd: an open snapshot; base: where the database bytes start in it; length: how many. Takes ownership of fd. */
  constructor(fd: number, base: number, length: number) {
    super(length);
    this.handle = { fd };
    this.fileBase = base;
    const chunks = Math.ceil(length / CHUNK);
    this.loaded = new Uint8Array(chunks);
    this.remaining = chunks;
    if (chunks === 0) this.release();
    else closeOnCollect.register(this, this.handle, this);
  }

  /** Chunks (of CHUNK bytes) not read from disk yet. */
  get pendingChunks(): number {
    return this.remaining;
  }

  /** Reads every chunk not read yet (e.g. before handing the bytes to code that does not go through MEMFS). */
  loadAll(): void {
    this.ensure(0, this.length);
  }

  /**
   * Loads the rest in the background, one chunk per macrotask, starting after delayMs, so the
   * descriptor can be closed and later queries never wait on the disk. Timers are unref'd.
   */
  loadInBackground(delayMs: number): void {
    if (this.remaining === 0 || this.background) return;
    const step = () => {
      this.background = undefined;
      try {
        while (this.nextBackground < this.loaded.length && this.loaded[this.nextBackground]) this.nextBackground++;
        if (this.nextBackground >= this.loaded.length) return;
        this.loadChunk(this.nextBackground);
      } catch {
        return; // the next reader gets the error where it can answer for it
      }
      if (this.remaining > 0) this.background = setTimeout(step, 0).unref();
    };
    this.background = setTimeout(step, delayMs).unref();
  }

  override subarray(begin?: number, end?: number): Uint8Array<ArrayBuffer> {
    const [b, e] = this.range(begin, end);
    this.ensure(b, e);
    return super.subarray(b, e);
  }

  override set(source: ArrayLike<number>, offset = 0): void {
    // A write into a chunk not read yet would later be overwritten by reading it: read it first.
    this.ensure(offset, offset + source.length);
    super.set(source, offset);
  }

  override slice(begin?: number, end?: number): Uint8Array<ArrayBuffer> {
    const [b, e] = this.range(begin, end);
    // MEMFS's hand-over copy (`contents = buffer.slice(0, length)`): let it own this object instead.
    if (b === 0 && e === this.length) return this;
    this.ensure(b, e);
    return super.slice(b, e);
  }

  private range(begin = 0, end = this.length): [number, number] {
    const n = this.length;
    const b = begin < 0 ? Math.max(n + begin, 0) : Math.min(begin, n);
    const e = end < 0 ? Math.max(n + end, 0) : Math.min(end, n);
    return [b, Math.max(b, e)];
  }

  private ensure(start: number, end: number): void {
    if (this.remaining === 0 || end <= start) return;
    const last = Math.floor((end - 1) / CHUNK);
    for (let c = Math.floor(start / CHUNK); c <= last; c++) if (!this.loaded[c]) this.loadChunk(c);
  }

  private loadChunk(c: number): void {
    const h = this.handle;
    if (!h) throw new Error('snapshot file already closed');
    const from = c * CHUNK;
    const view = new Uint8Array(this.buffer, this.byteOffset + from, Math.min(this.length, from + CHUNK) - from);
    let off = 0;
    while (off < view.length) {
      const n = fs.readSync(h.fd, view, off, view.length - off, this.fileBase + from + off);
      if (n === 0) throw new Error(`snapshot file ended at ${this.fileBase + from + off} bytes while being read`);
      off += n;
    }
    this.loaded[c] = 1;
    if (--this.remaining === 0) this.release();
  }

  private release(): void {
    if (this.background) clearTimeout(this.background);
    this.background = undefined;
    const h = this.handle;
    this.handle = undefined;
    if (h) {
      closeOnCollect.unregister(this);
      closeQuiet(h);
    }
  }
}

function closeQuiet(h: { fd: number }): void {
  try {
    fs.closeSync(h.fd);
  } catch {
    /* already closed */
  }
}
