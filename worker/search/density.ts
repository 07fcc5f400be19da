// Local density of vector hits, for a hubness correction of the cosine (after CSLS, Conneau et al.
// 2018): a hit in a tight cluster of look-alikes is close to every question about its topic,
// whatever the question asks. The neighbours are taken within the query's own pool of best hits
// (one 200 x 200 matrix on the scan's SIMD kernel), not a store-wide neighbour graph: a record
// with look-alikes has them in the pool too. Figures: docs/search.md, "Hubness correction".
import { createArena, CHUNK_ROWS, type Int8Arena } from './int8dot';
import type { Int8Unit } from './vectors/blob';

const arenas = new Map<number, { arena: Int8Arena; chunk: number }>();

function arenaFor(dims: number): { arena: Int8Arena; chunk: number } {
  let a = arenas.get(dims);
  if (!a) {
    const arena = createArena(dims);
    a = { arena, chunk: arena.allocChunk() };
    arenas.set(dims, a);
  }
  return a;
}

/**
 * For each vector, the mean cosine to its k most similar others in the list (0 when it has none;
 * undefined entries are skipped and get 0). At most CHUNK_ROWS vectors are compared; the rest get 0.
 */
export function neighbourDensity(units: (Int8Unit | undefined)[], k: number): Float64Array {
  const out = new Float64Array(units.length);
  // Every vector of a pool comes from one scan, so they have one length.
  const rows = units.map((u, i) => ({ u, i })).filter((x): x is { u: Int8Unit; i: number } => x.u !== undefined).slice(0, CHUNK_ROWS);
  if (rows.length < 2 || k <= 0) return out;
  const { arena, chunk } = arenaFor(rows[0].u.q.length);
  const bytes = arena.bytes();
  bytes.fill(0, chunk, chunk + rows.length * arena.stride);
  rows.forEach((x, r) => bytes.set(x.u.q, chunk + r * arena.stride));
  const outBase = arena.outOffset >> 2;
  const sims = new Float64Array(rows.length - 1);
  for (let a = 0; a < rows.length; a++) {
    bytes.fill(0, arena.queryOffset, arena.queryOffset + arena.stride);
    bytes.set(rows[a].u.q, arena.queryOffset);
    arena.dots(chunk, rows.length);
    const dots = arena.ints();
    let n = 0;
    for (let b = 0; b < rows.length; b++) if (b !== a) sims[n++] = dots[outBase + b] * rows[b].u.scale;
    sims.sort();
    const take = Math.min(k, n);
    let sum = 0;
    for (let j = n - take; j < n; j++) sum += sims[j];
    out[rows[a].i] = (sum / take) * rows[a].u.scale;
  }
  return out;
}
