// The chunk map of the page cache: the newest usable full snapshot, then every delta
// after it in gen order, each overriding the chunks it lists. Only headers and CRC lists are read
// at start (a large snapshot is not read through: each chunk's CRC is checked when PagedBytes reads
// it); a small chain is read whole and checked now, where falling back is still free.
//
// A delta is taken onto the chain only when it builds on a state the chain holds: its prevGen (the
// checkpoint its writer's clean chunks came from) is at most the chain's head, so it lists every
// chunk changed between the head and its own gen. A delta that is damaged or does not fit is left
// out (and, if damaged, moved aside by the caller): the journals from the head on replay what it held
// (prune keeps every segment from the older of the two newest full snapshots, store.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deltaLoc, deltaName, readDeltaHeader } from './delta';
import { sizeOf } from './journal';
import { type ChunkLoc, type ChunkSource, FileRef, fileLocs, PAGED_CHUNK, readLocSync, wholeFileCrcs } from './pagedFile';
import { type ChunkPlace, chunkCount, chunkPlaces, snapshotHeaderOf, snapshotName } from './snapshot';

/** A chain at most this large (bytes in its files) is read whole and checked at open. */
export const VERIFY_AT_OPEN_BYTES = 16 << 20;

export interface Chain extends ChunkSource {
  snapshotGen: number;
  /** The deltas taken onto the chain, in order. */
  deltas: number[];
}

export interface ChainProblems {
  /** One line per delta left out, and why. */
  notes: string[];
  /** Deltas found damaged (the caller moves them aside). */
  damaged: string[];
}

/**
 * Opens snapshot `snapGen` and lays `deltaGens` (ascending, all after it) over it. Throws when the
 * snapshot itself is unusable.
 */
export function openChain(dir: string, snapGen: number, deltaGens: number[], problems: ChainProblems, verifyAtOpenBytes = VERIFY_AT_OPEN_BYTES): Chain {
  const snapFile = path.join(dir, snapshotName(snapGen));
  const snapRef = FileRef.open(snapFile);
  const refs: FileRef[] = [snapRef];
  let locs: (ChunkLoc | undefined)[] = [];
  try {
    // Through the descriptor the chunks are read from: the name may be replaced by a packed copy meanwhile.
    const fd = snapRef.descriptor;
    const h = snapshotHeaderOf(fd);
    const places: ChunkPlace[] | null = chunkPlaces(fd, h);
    const deltaFiles = deltaGens.map((g) => path.join(dir, deltaName(g)));
    const total = fs.statSync(snapFile).size + deltaFiles.reduce((n, f) => n + sizeOf(f), 0);
    // A packed snapshot's chunks are inflated to be checked (about 5x the time of reading and a CRC:
    // 90-420 ms for the 10k history's 5.3 MB under load), so a packed chain is read whole at open
    // only up to a quarter of the limit; a larger one is checked chunk by chunk as it is read.
    const verifyAll = total <= (h.version >= 3 ? verifyAtOpenBytes / 4 : verifyAtOpenBytes);
    if (places && h.version >= 3) {
      // Packed: each chunk is inflated and checked when read (now, for a small chain).
      locs = places.map((p) => (snapRef.hold(), { ref: snapRef, ...p }));
      if (verifyAll) {
        const buf = new Uint8Array(PAGED_CHUNK);
        locs.forEach((l, i) => readLocSync(l as ChunkLoc, buf, i));
      }
    } else {
      let crcs: Uint32Array | null = places && Uint32Array.from(places, (p) => p.crc);
      // A v1 snapshot has no chunk table: read it whole once to check it and take one.
      if (!crcs || verifyAll) {
        const whole = wholeFileCrcs(snapFile, h, fd);
        if (crcs && crcs.some((c, i) => c !== whole[i])) throw new Error('checksum mismatch'); // of the chunk table
        crcs = whole;
      }
      locs = fileLocs(snapRef, h.base, h.length, crcs);
    }
    let length = h.length;
    let head = snapGen;
    const taken: number[] = [];
    for (let k = 0; k < deltaGens.length; k++) {
      const gen = deltaGens[k];
      const file = deltaFiles[k];
      let ref: FileRef | undefined;
      try {
        const dref = FileRef.open(file);
        ref = dref;
        const info = readDeltaHeader(dref.descriptor);
        if (info.gen !== gen) throw new Error(`its header says gen ${info.gen}`);
        if (info.prevGen > head) {
          problems.notes.push(`${deltaName(gen)} builds on gen ${info.prevGen}, which the chain from ${snapshotName(snapGen)} does not hold (head ${head}); left out, the journals replay what it held`);
          dref.closeIfUnused();
          continue;
        }
        const placed: [number, ChunkLoc][] = info.entries.map((e) => [e.index, deltaLoc(dref, e)]);
        if (verifyAll) {
          const buf = new Uint8Array(PAGED_CHUNK);
          for (const [i, loc] of placed) readLocSync(loc, buf, i);
        }
        refs.push(dref);
        for (const [i, loc] of placed) {
          dref.hold();
          locs[i]?.ref.release();
          locs[i] = loc;
        }
        length = info.length;
        const n = chunkCount(length);
        for (let i = n; i < locs.length; i++) locs[i]?.ref.release();
        locs.length = Math.min(locs.length, n);
        head = gen;
        taken.push(gen);
      } catch (e) {
        ref?.closeIfUnused();
        problems.notes.push(`${deltaName(gen)} unusable (${(e as Error).message}); left out, the journals replay what it held`);
        problems.damaged.push(file);
      }
    }
    for (const r of refs) r.closeIfUnused();
    return { length, locs, headGen: head, snapshotGen: snapGen, deltas: taken };
  } catch (e) {
    for (const l of locs) l?.ref.release();
    for (const r of refs) r.closeIfUnused();
    throw e;
  }
}
