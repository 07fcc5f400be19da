// Write-ahead journal for the in-memory sql.js database.
//
// Each committed transaction is one record: [magic u32][length u32][crc32 u32][payload].
// Records are appended by a group committer: everything queued while the previous
// fsync was in flight is written and fsynced together, then every waiter is released.
// Segments are numbered: journal-<gen>.log; snapshot-<gen>.db holds every segment < gen.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';
import { faultPoint } from './faultPoint';

export const RECORD_MAGIC = 0x434d4a31; // "CMJ1"
const HEADER = 12;
/** A length past this is corruption, not a record. */
const MAX_RECORD = 512 * 1024 * 1024;

export function segmentName(gen: number): string {
  return `journal-${String(gen).padStart(10, '0')}.log`;
}

/** Every segment's gen, as a .log or compressed (coldJournal.ts: journal-<gen>.logz), or both. */
export function listSegments(dir: string): number[] {
  return [...new Set(listGenFiles(dir, /^journal-(\d+)\.logz?$/))];
}

/** The generation numbers of the files in dir whose names match `name` (its group 1), ascending. */
export function listGenFiles(dir: string, name: RegExp): number[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((n) => name.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

export function frame(payload: Buffer): Buffer {
  const head = Buffer.allocUnsafe(HEADER);
  head.writeUInt32LE(RECORD_MAGIC, 0);
  head.writeUInt32LE(payload.length, 4);
  head.writeUInt32LE(crc32(payload), 8);
  return Buffer.concat([head, payload]);
}

export interface SegmentRead {
  records: Buffer[];
  /** Human-readable descriptions of what could not be read. */
  problems: string[];
  /** Bytes that were skipped as damaged. */
  skippedBytes: number;
  /** Damaged stretches with intact records after them (never a crash's doing). */
  damagedStretches: number;
  /** The dropped end of the file, if any; torn: it looks like a write cut short by a crash. */
  tail?: { offset: number; bytes: number; torn: boolean };
}

/**
 * Reads every intact record; skips damaged stretches by searching for the next valid frame.
 * `bytes`: the segment's bytes already read (inflated from its compressed form), named by `file`.
 */
export function readSegment(file: string, bytes?: Buffer): SegmentRead {
  const buf = bytes ?? fs.readFileSync(file);
  const records: Buffer[] = [];
  const problems: string[] = [];
  let skippedBytes = 0;
  let damagedStretches = 0;
  let tail: SegmentRead['tail'];
  let pos = 0;
  while (pos < buf.length) {
    const valid = validAt(buf, pos);
    if (valid > 0) {
      records.push(buf.subarray(pos + HEADER, pos + HEADER + valid));
      pos += HEADER + valid;
      continue;
    }
    // Damaged or torn: find the next frame that checks out.
    let next = pos + 1;
    while (next < buf.length) {
      next = buf.indexOf(MAGIC_BYTES, next);
      if (next < 0) {
        next = buf.length;
        break;
      }
      if (validAt(buf, next) > 0) break;
      next += 1;
    }
    const lost = next - pos;
    skippedBytes += lost;
    if (next >= buf.length) tail = { offset: pos, bytes: lost, torn: looksTorn(buf.subarray(pos)) };
    else damagedStretches += 1;
    problems.push(
      next >= buf.length
        ? `${path.basename(file)}: dropped a torn or damaged tail of ${lost} bytes at offset ${pos}`
        : `${path.basename(file)}: skipped ${lost} damaged bytes at offset ${pos}`,
    );
    pos = next;
  }
  return { records, problems, skippedBytes, damagedStretches, tail };
}

/**
 * Whether a dropped tail is what a crash leaves: the start of a frame whose write was cut short
 * (a prefix of the magic, or a header whose length runs past the end), or zeros (a file extended
 * but not written). Anything else there was written whole and damaged afterwards.
 */
function looksTorn(t: Buffer): boolean {
  if (t.every((b) => b === 0)) return true;
  const m = Math.min(4, t.length);
  if (!t.subarray(0, m).equals(MAGIC_BYTES.subarray(0, m))) return false;
  if (t.length < 8) return true;
  const len = t.readUInt32LE(4);
  return len > 0 && len <= MAX_RECORD && HEADER + len > t.length;
}

const MAGIC_BYTES = (() => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(RECORD_MAGIC, 0);
  return b;
})();

/** Length of the payload of a valid record at pos, or 0. */
function validAt(buf: Buffer, pos: number): number {
  if (pos + HEADER > buf.length) return 0;
  if (buf.readUInt32LE(pos) !== RECORD_MAGIC) return 0;
  const len = buf.readUInt32LE(pos + 4);
  if (len === 0 || len > MAX_RECORD || pos + HEADER + len > buf.length) return 0;
  const crc = buf.readUInt32LE(pos + 8);
  return crc32(buf.subarray(pos + HEADER, pos + HEADER + len)) === crc ? len : 0;
}

type Append = { kind: 'record'; framed: Buffer; resolve: () => void; reject: (e: Error) => void };
type Pending = Append | { kind: 'rotate'; resolve: (gen: number) => void; reject: (e: Error) => void };

/** A record written to the segment and waiting for an fdatasync that covers it. */
interface Unsynced {
  /** Offset just past the record in the segment. */
  end: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

/**
 * fdatasyncs in flight at once. A batch written while one is running starts its own at once
 * instead of waiting for it to return: under load this takes a whole fsync off each acknowledgement.
 */
const MAX_SYNCS = 2;

/** Recent fdatasync durations: what the disk alone adds to an acknowledgement (shown in /api/stats). */
export class SyncTimes {
  private readonly ms = new Float64Array(8192);
  /** Syncs recorded since start (the window holds the last `ms.length`). */
  count = 0;

  add(ms: number): void {
    this.ms[this.count++ % this.ms.length] = ms;
  }

  summary(): { count: number; window: number; p50Ms: number; p99Ms: number; maxMs: number } {
    const recent = this.ms.slice(0, Math.min(this.count, this.ms.length)).sort();
    const at = (q: number) => (recent.length === 0 ? 0 : Math.round(recent[Math.min(recent.length - 1, Math.floor(recent.length * q))] * 100) / 100);
    return { count: this.count, window: recent.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
  }
}

export interface JournalEvents {
  /** Called after each batch of records is durable. */
  durable?(): void;
  /** Called after a rotation: every record before it is durable in segment `gen - 1`. */
  rotated?(gen: number): void;
}

/**
 * Appends are written in commit order on the event loop (a small write into the page cache, so the
 * file order is the commit order without a lock) and made durable by fdatasyncs on the thread pool;
 * a record's promise resolves once an fdatasync that started after its write has returned.
 */
export class JournalWriter {
  private fd: number | undefined;
  private queue: Pending[] = [];
  private scheduled = false;
  private rotating = false;
  private closed = false;
  private unsynced: Unsynced[] = [];
  private syncs = 0;
  private syncWanted = false;
  /** Bytes in the current segment (written, durable or about to be). */
  segmentBytes = 0;
  readonly syncTimes = new SyncTimes();
  /** Whether the directory entry of the current segment is known to be on disk. */
  private dirSynced = false;
  /** Set when a write failed: the file may hold a partial record, so nothing more is appended to it. */
  failed: Error | undefined;

  private constructor(
    private readonly dir: string,
    public gen: number,
    private readonly events: JournalEvents,
  ) {}

  static async open(dir: string, gen: number, events: JournalEvents = {}): Promise<JournalWriter> {
    const w = new JournalWriter(dir, gen, events);
    await w.openSegment(gen);
    return w;
  }

  private async openSegment(gen: number): Promise<void> {
    const fd = await new Promise<number>((resolve, reject) =>
      fs.open(path.join(this.dir, segmentName(gen)), 'a', 0o600, (e, fd) => (e ? reject(e) : resolve(fd))),
    );
    this.fd = fd;
    this.segmentBytes = fs.fstatSync(fd).size;
    // The new file's directory entry is synced with the first batch written to it (below), not
    // here: start-up and rotation need not wait for a directory fsync (0.4 s at start on a busy disk).
    this.dirSynced = false;
  }

  /** Resolves once the record is on disk (fsynced). */
  append(payload: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ kind: 'record', framed: frame(payload), resolve, reject });
      this.schedule();
    });
  }

  /** Starts a new segment after everything queued so far; resolves with the new gen. */
  rotate(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ kind: 'rotate', resolve, reject });
      this.schedule();
    });
  }

  get pendingCount(): number {
    return this.queue.length + this.unsynced.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets a synchronous burst of appends join one write.
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  /** Writes queued records in order; a rotation waits until everything before it is durable. */
  private drain(): void {
    while (this.queue.length > 0 && !this.rotating) {
      const head = this.queue[0];
      if (head.kind === 'rotate') {
        if (this.unsynced.length > 0 || this.syncs > 0) return; // resumed when the last sync returns
        this.queue.shift();
        this.rotating = true;
        this.switchSegment().then(
          () => {
            this.rotating = false;
            head.resolve(this.gen);
            this.events.rotated?.(this.gen);
            this.drain();
          },
          (e: Error) => {
            this.rotating = false;
            head.reject(e);
            this.drain();
          },
        );
        return;
      }
      const batch: Append[] = [];
      while (this.queue.length > 0 && this.queue[0].kind === 'record') batch.push(this.queue.shift() as Append);
      this.writeBatch(batch);
    }
  }

  private async switchSegment(): Promise<void> {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.gen += 1;
    await this.openSegment(this.gen);
    this.failed = undefined;
  }

  private writeBatch(batch: Append[]): void {
    if (this.failed || this.fd === undefined) {
      const why = this.failed ? `journal unavailable: ${this.failed.message}` : 'journal not open';
      for (const p of batch) p.reject(new Error(why));
      return;
    }
    const data = batch.length === 1 ? batch[0].framed : Buffer.concat(batch.map((p) => p.framed));
    try {
      let off = 0;
      while (off < data.length) off += fs.writeSync(this.fd, data, off, data.length - off);
    } catch (e) {
      this.failed = e as Error;
      // Whole records of this batch may have reached the file before the error: cut them off, so a
      // write that was refused is not replayed later (the store reloads from the files after this).
      try {
        fs.ftruncateSync(this.fd, this.segmentBytes);
      } catch {
        /* a torn end is dropped by recovery anyway */
      }
      for (const p of batch) p.reject(e as Error);
      return;
    }
    let end = this.segmentBytes;
    for (const p of batch) {
      end += p.framed.length;
      this.unsynced.push({ end, resolve: p.resolve, reject: p.reject });
    }
    this.segmentBytes = end;
    this.startSync();
  }

  private startSync(): void {
    if (this.syncs >= MAX_SYNCS) {
      this.syncWanted = true;
      return;
    }
    const fd = this.fd as number;
    const upTo = this.segmentBytes;
    const firstOfSegment = !this.dirSynced;
    this.syncs += 1;
    const started = performance.now();
    fs.fdatasync(fd, (err) => {
      this.syncTimes.add(performance.now() - started);
      // Before the first acknowledgement from this segment: a crash must not lose the file itself.
      const dirDone = err || !firstOfSegment ? Promise.resolve() : syncDir(this.dir).then(() => void (this.dirSynced = true));
      void dirDone.then(() => this.synced(upTo, err));
    });
  }

  private synced(upTo: number, err: NodeJS.ErrnoException | null): void {
    this.syncs -= 1;
    if (err) {
      // What the failed sync covered is in doubt, and so is everything written after it.
      this.failed = err;
      for (const u of this.unsynced.splice(0)) u.reject(err);
    } else {
      let n = 0;
      while (n < this.unsynced.length && this.unsynced[n].end <= upTo) n++;
      const done = this.unsynced.splice(0, n);
      if (done.length > 0) this.events.durable?.();
      for (const u of done) u.resolve();
    }
    // Records written before a later write failed are whole: they still get their sync.
    if (this.syncWanted && this.unsynced.length > 0) {
      this.syncWanted = false;
      this.startSync();
    }
    if (this.syncs === 0) this.drain(); // a rotation may be waiting for this
  }

  /** Waits for queued records, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      const check = () => (this.queue.length === 0 && this.unsynced.length === 0 && this.syncs === 0 && !this.rotating && !this.scheduled ? resolve() : setTimeout(check, 2));
      check();
    });
    this.closed = true;
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * Writes `final` whole or not at all: `write` fills a temp file beside it, which is fsynced, renamed
 * over `final` and the directory fsynced. A failed write (disk full) leaves no half file behind, and
 * whatever `final` was stays untouched. Snapshots and deltas are written this way. Its fault points
 * (faultPoint.ts) are `<faultPrefix>:before-sync` and `<faultPrefix>:renamed`.
 */
export async function writeAtomically(final: string, write: (fh: fs.promises.FileHandle) => Promise<void>, faultPrefix = 'write'): Promise<void> {
  const tmp = `${final}.tmp-${process.pid}`;
  const fh = await fs.promises.open(tmp, 'w', 0o600);
  let ok = false;
  try {
    await write(fh);
    faultPoint(`${faultPrefix}:before-sync`);
    await fh.sync();
    ok = true;
  } finally {
    await fh.close();
    if (!ok) await fs.promises.unlink(tmp).catch(() => undefined);
  }
  await fs.promises.rename(tmp, final);
  faultPoint(`${faultPrefix}:renamed`);
  await syncDir(path.dirname(final));
}

export async function syncDir(dir: string): Promise<void> {
  try {
    const h = await fs.promises.open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    /* some filesystems refuse directory fsync; rename is still atomic */
  }
}

/** syncDir for code that must not yield (start-up recovery). */
export function syncDirSync(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* some filesystems refuse directory fsync; rename is still atomic */
  }
}

/** A file's size, 0 when it is not there. */
export function sizeOf(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}
