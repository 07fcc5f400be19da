// Vectors live in their own append-only files, not in SQLite (so no snapshot or checkpoint carries
// them): one file per project, model and generation under <dataDir>/vector-data/; SQLite keeps
// which records have a vector of which model and where (vectors.file_gen, vectors.file_offset).
//
// An entry: u32 crc32 of the rest | u8 kind | u8 version | u16 dims | u32 record id | the vector as
// blob.ts encodes it. An entry is read only at an offset SQLite names, and served only when its
// checksum, kind, id and size all match, so a torn tail, a damaged or missing file, or a stale
// offset never serves a wrong vector; what fails is reported and embedded again (semantic.ts).
// Only the indexer's loop writes these files (indexer.ts).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';

export type VectorKind = 'observation' | 'summary';

export interface FileEntry {
  kind: VectorKind;
  id: number;
  /** encodeVector()'s bytes: f32 scale then dims int8 values. */
  blob: Uint8Array;
}

export interface Located {
  gen: number;
  offset: number;
}

export interface WantedEntry {
  kind: VectorKind;
  id: number;
  dims: number;
  offset: number;
}

const HEADER = 12;
const VERSION = 1;
const KIND_CODE: Record<VectorKind, number> = { observation: 0, summary: 1 };
/** Reads of nearby entries are merged into one read of at most this many bytes. */
const MAX_RUN = 1 << 20;
const MAX_GAP = 64 << 10;

export function entrySize(dims: number): number {
  return HEADER + 4 + dims;
}

/**
 * A project name's part of a vector file's name. Project names come from folder names and hook
 * payloads, so they are untrusted: the name keeps only [A-Za-z0-9._-], never starts with a dot,
 * and ends with a hash of the exact name so that distinct names that sanitise alike (or differ
 * only in case) never share a file. An empty project is "no-project" (it never ends in a 12-digit
 * hash, so it matches no real one).
 */
export function projectFolderName(project: string): string {
  if (project.length === 0) return 'no-project';
  const slug = project
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 40);
  return `${slug}-${hash12(project)}`;
}

function hash12(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex').slice(0, 12);
}

function encodeEntry(e: FileEntry): Buffer {
  const dims = e.blob.byteLength - 4;
  if (dims <= 0 || dims > 0xffff) throw new Error(`vector file: bad vector of ${e.blob.byteLength} bytes`);
  const out = Buffer.alloc(HEADER + e.blob.byteLength);
  out.writeUInt8(KIND_CODE[e.kind], 4);
  out.writeUInt8(VERSION, 5);
  out.writeUInt16LE(dims, 6);
  out.writeUInt32LE(e.id, 8);
  out.set(e.blob, HEADER);
  out.writeUInt32LE(crc32(out.subarray(4)), 0);
  return out;
}

/** The vector bytes of the entry at `at` in buf when it is the one wanted and intact; else undefined. */
function decodeEntry(buf: Uint8Array, at: number, want: Omit<WantedEntry, 'offset'>): Uint8Array | undefined {
  const size = entrySize(want.dims);
  if (at < 0 || at + size > buf.byteLength) return undefined;
  // Header fields read byte by byte: no view object per entry (a scan load reads 100k of them).
  const id = (buf[at + 8] | (buf[at + 9] << 8) | (buf[at + 10] << 16) | (buf[at + 11] << 24)) >>> 0;
  if (buf[at + 4] !== KIND_CODE[want.kind] || buf[at + 5] !== VERSION || (buf[at + 6] | (buf[at + 7] << 8)) !== want.dims || id !== want.id) return undefined;
  const crc = (buf[at] | (buf[at + 1] << 8) | (buf[at + 2] << 16) | (buf[at + 3] << 24)) >>> 0;
  if (crc32(buf.subarray(at + 4, at + size)) !== crc) return undefined;
  // A plain Uint8Array view (a Buffer's slice() would be another view, not the copy callers expect).
  return new Uint8Array(buf.buffer, buf.byteOffset + at + HEADER, size - HEADER);
}

export class VectorFiles {
  /** Generation new entries go to, per project and model (from the files on disk, then kept). */
  private readonly current = new Map<string, number>();
  /** Per file, the gaps ("from:to") already wiped since start (wipeGaps). */
  private readonly wiped = new Map<string, Set<string>>();

  constructor(readonly dir: string) {}

  fileName(model: string, project: string, gen: number): string {
    return `${projectFolderName(project)}.${hash12(model)}.${gen}.vec`;
  }

  private filePath(model: string, project: string, gen: number): string {
    return path.join(this.dir, this.fileName(model, project, gen));
  }

  /** The generation appends go to: the newest file on disk for this project and model, or 1. */
  currentGen(model: string, project: string): number {
    const key = `${model}\u0000${project}`;
    let gen = this.current.get(key);
    if (gen === undefined) {
      const prefix = `${projectFolderName(project)}.${hash12(model)}.`;
      gen = 1;
      for (const f of this.list()) {
        if (!f.startsWith(prefix)) continue;
        const g = Number(f.slice(prefix.length, -'.vec'.length));
        if (Number.isSafeInteger(g) && g > gen) gen = g;
      }
      this.current.set(key, gen);
    }
    return gen;
  }

  /** New entries of this project and model go to a fresh file from now on (the old one is swept once unused). */
  retire(model: string, project: string): void {
    this.current.set(`${model}\u0000${project}`, this.currentGen(model, project) + 1);
  }

  list(): string[] {
    try {
      return fs.readdirSync(this.dir).filter((f) => f.endsWith('.vec'));
    } catch {
      return [];
    }
  }

  /** Appends entries and syncs them to disk; resolves with where each one is. */
  async append(model: string, project: string, entries: FileEntry[]): Promise<Located[]> {
    if (entries.length === 0) return [];
    const gen = this.currentGen(model, project);
    return this.write(this.filePath(model, project, gen), 'a', gen, entries);
  }

  /** Writes the entries, synced, at the end of `file` ('a') or as its whole content ('w'); where each one is. */
  private async write(file: string, flags: 'a' | 'w', gen: number, entries: FileEntry[]): Promise<Located[]> {
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const bytes = Buffer.concat(entries.map(encodeEntry));
    const fh = await fs.promises.open(file, flags, 0o600);
    let at = 0;
    try {
      // Appends start at the end as it is on disk: past any torn tail a crash left, which no row names.
      if (flags === 'a') at = (await fh.stat()).size;
      await fh.write(bytes, 0, bytes.length);
      await fh.datasync();
    } finally {
      await fh.close();
    }
    return entries.map((e) => {
      const loc = { gen, offset: at };
      at += HEADER + e.blob.byteLength;
      return loc;
    });
  }

  /**
   * Reads the wanted entries of one file, nearby ones in one read. Calls back with each entry's
   * vector bytes (valid during the call only), or undefined when it is missing or fails its check.
   */
  async readMany(model: string, project: string, gen: number, wanted: WantedEntry[], each: (w: WantedEntry, blob: Uint8Array | undefined) => void): Promise<void> {
    if (wanted.length === 0) return;
    const sorted = [...wanted].sort((a, b) => a.offset - b.offset);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(this.filePath(model, project, gen), 'r');
    } catch {
      for (const w of sorted) each(w, undefined);
      return;
    }
    try {
      let buf = Buffer.alloc(0);
      for (let i = 0; i < sorted.length; ) {
        const start = sorted[i].offset;
        let end = start + entrySize(sorted[i].dims);
        let j = i;
        while (j + 1 < sorted.length) {
          const next = sorted[j + 1];
          const nextEnd = next.offset + entrySize(next.dims);
          if (next.offset - end > MAX_GAP || nextEnd - start > MAX_RUN) break;
          end = Math.max(end, nextEnd);
          j++;
        }
        if (buf.length < end - start) buf = Buffer.alloc(Math.max(end - start, Math.min(MAX_RUN, buf.length * 2)));
        const { bytesRead } = await fh.read(buf, 0, end - start, start);
        const got = buf.subarray(0, bytesRead);
        for (let k = i; k <= j; k++) each(sorted[k], decodeEntry(got, sorted[k].offset - start, sorted[k]));
        i = j + 1;
      }
    } finally {
      await fh.close();
    }
  }

  /** Writes a new generation holding only these entries; resolves with their new places. */
  async rewrite(model: string, project: string, entries: FileEntry[]): Promise<Located[]> {
    this.retire(model, project);
    const gen = this.currentGen(model, project);
    const file = this.filePath(model, project, gen);
    const locs = await this.write(`${file}.tmp`, 'w', gen, entries);
    await fs.promises.rename(`${file}.tmp`, file);
    return locs;
  }

  /**
   * Overwrites with zeros every byte of the file that no live entry covers: the entries of deleted
   * records (vector and record id), and any torn bytes a crash left. Reads go by offset only, so
   * nothing needs the gaps. Ranges wiped before (since start) are not written again. Resolves
   * with the bytes written.
   */
  async wipeGaps(model: string, project: string, gen: number, live: { offset: number; dims: number }[]): Promise<number> {
    const file = this.filePath(model, project, gen);
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(file, 'r+');
    } catch {
      return 0;
    }
    try {
      const size = (await fh.stat()).size;
      const done = this.wiped.get(file) ?? new Set<string>();
      this.wiped.set(file, done);
      const gaps: [number, number][] = [];
      let at = 0;
      for (const e of [...live].sort((a, b) => a.offset - b.offset)) {
        if (e.offset > at) gaps.push([at, e.offset]);
        at = Math.max(at, e.offset + entrySize(e.dims));
      }
      if (size > at) gaps.push([at, size]);
      let written = 0;
      for (const [from, to] of gaps) {
        if (done.has(`${from}:${to}`)) continue;
        const zeros = Buffer.alloc(Math.min(to - from, MAX_RUN));
        for (let p = from; p < to; p += zeros.length) {
          const n = Math.min(zeros.length, to - p);
          await fh.write(zeros, 0, n, p);
          written += n;
        }
        done.add(`${from}:${to}`);
      }
      if (written > 0) await fh.datasync();
      return written;
    } finally {
      await fh.close();
    }
  }

  /** Bytes in a file (0 when it is missing). */
  size(model: string, project: string, gen: number): number {
    try {
      return fs.statSync(this.filePath(model, project, gen)).size;
    } catch {
      return 0;
    }
  }

  /** Deletes every file (and leftover temporary) whose name is not in `used`; resolves with how many. */
  async sweep(used: Set<string>): Promise<number> {
    let n = 0;
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch {
      return 0;
    }
    for (const f of names) {
      if (!f.endsWith('.vec') && !f.endsWith('.vec.tmp')) continue;
      if (used.has(f)) continue;
      await fs.promises.rm(path.join(this.dir, f), { force: true });
      n++;
    }
    return n;
  }
}
