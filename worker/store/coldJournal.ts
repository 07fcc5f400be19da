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

/**
 * Compresses every closed segment below the newest checkpoint that is still a .log (one at a time,
 * in the background, after a checkpoint's prune). `stopping` (a stop asked, or storage found
 * damaged) ends it before the next block: the .log stays and the next checkpoint compresses it.
 */
export async function freezeCoveredSegments(dir: string, stopping: () => boolean): Promise<{ gen: number; rawBytes: number; coldBytes: number }[]> {
  const done: { gen: number; rawBytes: number; coldBytes: number }[] = [];
  const covered = Math.max(0, ...listSnapshots(dir), ...listDeltas(dir));
  for (const gen of listSegments(dir)) {
    if (gen >= covered) break;
    if (stopping()) return done;
    const log = path.join(dir, segmentName(gen));
    // Empty (a rotation with nothing written after it) or already compressed.
    if (!fs.existsSync(log) || sizeOf(log) === 0) continue;
    try {
      done.push({ gen, ...(await packFile(log, path.join(dir, coldSegmentName(gen)), JOURNAL_MAGIC, stopping)) });
    } catch (e) {
      if (e instanceof StoppedError) return done;
      throw e;
    }
  }
  return done;
}
