// Checkpoints of a database served by the page cache: a delta of the chunks written
// since the last checkpoint, or a full snapshot merged from those chunks and the files the rest are
// in. Both capture in the tick the journal rotation is queued, so they hold exactly the database
// before the new segment, then write off the event loop's critical path; a chunk becomes clean (and
// evictable, read back from the new file) only once that file has been read back whole.
//
// A full snapshot is never rebuilt from the journals here (the replica's way, replica.ts): deltas are
// the live database's own bytes, and laid over a snapshot rebuilt by replay they would only be right
// if replay reproduced every byte of every page; merged from the same chunks, they always fit.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointStopped, deltaLoc, deltaName, deltaRawBytes, listDeltas, verifyDelta, writeDelta } from './delta';
import { sizeOf } from './journal';
import { type Capture, type ChunkLoc, FileRef, PAGED_CHUNK, type PagedBytes, readLoc } from './pagedFile';
import { type ChunkPlace, chunkCount, chunkPlaces, listSnapshots, snapshotHeader, snapshotHeaderOf, snapshotName, verifySnapshot, writeSnapshotFrom } from './snapshot';
import type { SnapshotResult } from './store';

/**
 * Below this database size a checkpoint is always a full snapshot: it writes no more than the bar
 * for a checkpoint (10 MB) and keeps the chain one file long. CLAUDE_MEM_DELTA_MIN_BYTES overrides
 * it (tests set 0 to take deltas of small databases).
 */
export const DELTA_MIN_BYTES = 8 << 20;

export function deltaMinBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CLAUDE_MEM_DELTA_MIN_BYTES;
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : DELTA_MIN_BYTES;
}

/** A full snapshot pays once the deltas since the newest one add up to more than this share of it. */
export const FULL_WHEN_DELTAS_OVER = 0.5;
/** ... or once there are this many of them (each is a file to open and a header to read at start). */
export const MAX_DELTAS = 64;
/** Chunks per write of a merged snapshot (2 MiB: its two CRC passes block the event loop about 1.5 ms). */
const MERGE_BATCH = 32;

export interface CheckpointDeps {
  dir: string;
  paged: PagedBytes;
  full: boolean;
  /** Queues the journal rotation; resolves with the new segment's gen once every record before it is durable. */
  rotate(): Promise<number>;
  /** Set when a journal write failed: the capture may then hold a write that is not on disk. */
  broken(): Error | undefined;
  moveToDamaged(file: string): void;
  /**
   * A stop asked for: the checkpoint ends at its next piece, its temp file removed, as a kill
   * there would leave it (the journal holds every write; the next start checkpoints again).
   */
  stopping(): boolean;
  /** A full snapshot is written packed (each chunk deflated on the way: snapshot.ts v4); never on the stop path. */
  packed?: boolean;
  /** A delta is written packed (delta.ts): while the worker runs, not for a start's catch-up (the start waits for it). */
  packedDelta?: boolean;
}

/** Whether the next checkpoint should be a full snapshot rather than a delta. */
export function fullCheckpointDue(dir: string, paged: PagedBytes, deltaMinBytes = DELTA_MIN_BYTES): boolean {
  const snaps = listSnapshots(dir);
  if (snaps.length === 0 || paged.stats.size <= deltaMinBytes) return true;
  const newest = snaps[snaps.length - 1];
  // A v1 snapshot (no chunk table) is read whole at every start: replace it at the first checkpoint.
  const file = path.join(dir, snapshotName(newest));
  const version = snapshotVersion(file);
  if (version < 2) return true;
  // Compared as written, before packing (packChain.ts), which shrinks both alike.
  const fullBytes = snapshotHeader(file).length;
  const deltas = listDeltas(dir).filter((g) => g > newest);
  const deltaBytes = deltas.reduce((n, g) => n + deltaRawBytes(path.join(dir, deltaName(g))), 0) + paged.stats.dirtyBytes;
  return deltas.length + 1 > MAX_DELTAS || deltaBytes > fullBytes * FULL_WHEN_DELTAS_OVER;
}

/**
 * Whether a delta can be taken now (a v2 snapshot to build on, a database past the delta floor):
 * the stop's checkpoint is then a delta even when a full snapshot would pay (the next idle
 * checkpoint takes that).
 */
export function deltaPossible(dir: string, paged: PagedBytes, deltaMinBytes = DELTA_MIN_BYTES): boolean {
  const snaps = listSnapshots(dir);
  return snaps.length > 0 && paged.stats.size > deltaMinBytes && snapshotVersion(path.join(dir, snapshotName(snaps[snaps.length - 1]))) >= 2;
}

export async function checkpoint(d: CheckpointDeps): Promise<SnapshotResult> {
  const t0 = performance.now();
  // Same tick: the rotation is queued behind every record written so far, and the capture is the
  // database those records made.
  const rotation = d.rotate();
  const tb = performance.now();
  const cap = d.paged.capture(d.full);
  const blockedMs = performance.now() - tb;
  let gen: number;
  try {
    gen = await rotation;
    const broken = d.broken();
    if (broken) throw new Error(`a journal write failed before the checkpoint: nothing written (${broken.message})`);
  } catch (e) {
    d.paged.releaseCapture(cap);
    throw e;
  }
  if (d.full) {
    let file: string;
    try {
      file = await writeSnapshotFrom(d.dir, gen, cap.length, merged(cap, d.stopping), d.packed ? { stopping: d.stopping } : undefined);
    } finally {
      d.paged.releaseCapture(cap);
    }
    // Written but not read back: nothing older is pruned (the state a kill here leaves).
    try {
      await verifySnapshot(file, d.stopping);
    } catch (e) {
      if (e instanceof CheckpointStopped) throw e;
      d.moveToDamaged(file);
      throw new Error(`snapshot ${snapshotName(gen)} did not read back (${(e as Error).message}); kept every older file`);
    }
    settleFull(d.paged, file, gen, cap);
    return { gen, bytes: sizeOf(file), blockedMs, totalMs: performance.now() - t0, via: 'merged' };
  }
  const info = await writeDelta(d.dir, gen, cap.headGen, cap.length, cap.dirty, d.stopping, d.packedDelta);
  const file = path.join(d.dir, deltaName(gen));
  try {
    await verifyDelta(file, d.stopping, info.storedCrcs);
  } catch (e) {
    if (e instanceof CheckpointStopped) throw e;
    d.moveToDamaged(file);
    throw new Error(`${deltaName(gen)} did not read back (${(e as Error).message}); its chunks stay in memory`);
  }
  const ref = FileRef.open(file);
  d.paged.settle(gen, info.entries.map((e): [number, ChunkLoc] => [e.index, deltaLoc(ref, e)]), cap.clock);
  ref.closeIfUnused();
  return { gen, bytes: info.bytes, blockedMs, totalMs: performance.now() - t0, via: 'delta' };
}

/** Every chunk of the captured database in order: the copies of dirty chunks, the rest read (and checked) from their files. */
async function* merged(cap: Capture, stopping: () => boolean): AsyncGenerator<Uint8Array> {
  const n = chunkCount(cap.length);
  const dirty = new Map(cap.dirty.map((c) => [c.index, c.data]));
  const batch = new Uint8Array(Math.min(n, MERGE_BATCH) * PAGED_CHUNK);
  const one = new Uint8Array(PAGED_CHUNK);
  for (let first = 0; first < n; first += MERGE_BATCH) {
    if (stopping()) throw new CheckpointStopped();
    const end = Math.min(n, first + MERGE_BATCH);
    const bytes = Math.min(cap.length, end * PAGED_CHUNK) - first * PAGED_CHUNK;
    for (let i = first; i < end; i++) {
      // Reading a packed file's chunks inflates them: a stop need not wait for the whole batch.
      if (i > first && (i - first) % 8 === 0 && stopping()) throw new CheckpointStopped();
      const into = batch.subarray((i - first) * PAGED_CHUNK, Math.min(bytes, (i - first + 1) * PAGED_CHUNK));
      const data = dirty.get(i);
      const loc = cap.locs?.[i];
      if (data) into.set(data.subarray(0, into.length));
      else if (loc) {
        one.fill(0);
        await readLoc(loc, one, i);
        into.set(one.subarray(0, into.length));
      } else into.fill(0);
    }
    // writeSnapshotFrom writes each piece before asking for the next: the batch buffer is reused.
    yield batch.subarray(0, bytes);
  }
}

/** Every chunk of the capture is now read from the new snapshot; chunks written since stay dirty. */
function settleFull(paged: PagedBytes, file: string, gen: number, cap: Capture): void {
  const ref = FileRef.open(file);
  const fd = fs.openSync(file, 'r');
  let places: ChunkPlace[] | null;
  try {
    places = chunkPlaces(fd, snapshotHeaderOf(fd));
  } finally {
    fs.closeSync(fd);
  }
  if (!places) throw new Error(`${snapshotName(gen)} has no chunk table`);
  paged.settle(
    gen,
    places.map((p, i): [number, ChunkLoc] => [i, { ref, ...p }]),
    cap.clock,
  );
  ref.closeIfUnused();
}

function snapshotVersion(file: string): number {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      return snapshotHeaderOf(fd).version;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return 0;
  }
}
