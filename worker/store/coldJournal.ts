// Compressed journal segments. A closed segment older than the newest checkpoint (a full snapshot
// or a delta) is not replayed by a start that finds that checkpoint intact: it is kept only so that
// a damaged checkpoint loses nothing (the fallback to the older snapshot replays it). So it is kept
// compressed, as `journal-<gen>.logz`: the cold snapshots' container (coldSnapshot.ts: independent
// 1 MiB raw-deflate blocks, each with the CRC of its raw bytes) around the segment's bytes, written
// and read back whole before the .log is removed. Recovery reads it inflated (readSegmentOf), with
// the same record checks as a .log; a .logz whose blocks do not check out is reported, never used.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JOURNAL_MAGIC, packFile, StoppedError, unpackToMemory } from './coldSnapshot';
import { listDeltas } from './delta';
import { listSegments, readSegment, type SegmentRead, segmentName, sizeOf } from './journal';
import { listSnapshots } from './snapshot';

export function coldSegmentName(gen: number): string {
  return `${segmentName(gen)}z`;
}

/** The records of segment `gen`: its .log, else (compressed, or compressed and removed meanwhile) its .logz. */
export function readSegmentOf(dir: string, gen: number): SegmentRead & { file: string } {
  const log = path.join(dir, segmentName(gen));
  const cold = path.join(dir, coldSegmentName(gen));
  if (fs.existsSync(log) || !fs.existsSync(cold)) {
    try {
      return { ...readSegment(log), file: log };
    } catch (e) {
      // Compressed and removed between the check and the read (another process's store): read the .logz.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync(cold)) throw e;
    }
  }
  let bytes: Buffer;
  try {
    bytes = unpackToMemory(cold, JOURNAL_MAGIC);
  } catch (e) {
    // Nothing of it can be trusted: the whole segment counts as a damaged stretch.
    const bytesOnDisk = sizeOf(cold);
    return {
      records: [],
      problems: [`${coldSegmentName(gen)}: unusable (${(e as Error).message})`],
      skippedBytes: bytesOnDisk,
      damagedStretches: 1,
      file: cold,
    };
  }
  return { ...readSegment(cold, bytes), file: cold };
}

/** Segments compressed at once: each takes several turns of an event loop an import keeps busy, so they overlap. */
const AT_ONCE = 2;

/**
 * Compresses every closed segment below the newest checkpoint that is still a .log and not in
 * `busy` (compressed by another run), AT_ONCE at a time, in the background, after a checkpoint's
 * prune. `stopping` (a stop asked, or storage found damaged) ends each before its next block: the
 * .log stays and the next checkpoint compresses it.
 */
export async function freezeCoveredSegments(
  dir: string,
  stopping: () => boolean,
  busy: Set<number> = new Set(),
): Promise<{ gen: number; rawBytes: number; coldBytes: number }[]> {
  const covered = Math.max(0, ...listSnapshots(dir), ...listDeltas(dir));
  // Empty (a rotation with nothing written after it) or already compressed: nothing to do.
  const gens = listSegments(dir).filter((gen) => gen < covered && !busy.has(gen) && fs.existsSync(path.join(dir, segmentName(gen))) && sizeOf(path.join(dir, segmentName(gen))) > 0);
  for (const gen of gens) busy.add(gen);
  const done: { gen: number; rawBytes: number; coldBytes: number }[] = [];
  try {
    for (let k = 0; k < gens.length; k += AT_ONCE) {
      if (stopping()) return done;
      // Settled, not all: a failure still waits for the others (a stop waits for this run).
      const runs = await Promise.allSettled(gens.slice(k, k + AT_ONCE).map(async (gen) => ({ gen, ...(await packFile(path.join(dir, segmentName(gen)), path.join(dir, coldSegmentName(gen)), JOURNAL_MAGIC, stopping)) })));
      for (const r of runs) if (r.status === 'fulfilled') done.push(r.value);
      const failed = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed && failed.reason instanceof StoppedError) return done;
      if (failed) throw failed.reason;
    }
    return done;
  } finally {
    for (const gen of gens) busy.delete(gen);
  }
}
