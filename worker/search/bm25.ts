// BM25 from FTS4's matchinfo, registered as the SQL function cm_bm25(matchinfo(t, 'pcnaly'), table).
// Stock sql.js has FTS4 but not FTS5's bm25(). matchinfo's 'x' (global hit counts) would give
// document frequencies too, but FTS4 computes it by walking every phrase's whole doclist again on
// each statement: at 100k rows that doubled the cost of a query with a common word. So the caller
// looks document frequencies up once (cached, see keyword.ts) and passes them in bm25Idf before
// the statement; per row only 'y' (hits in this row) and 'l' (this row's lengths) are read.
//
// cm_bm25y(matchinfo(t, 'y'), docid, table) gives the same numbers without 'l': the row's lengths
// come from memory (docLengths.ts), which halves the cost of ranking a match (partSql picks it).
import type { Database } from 'sql.js';
import type { Store } from '../store/store';
import { columnAverages, docLengths, type DocLengths, lengthOf } from './docLengths';
import type { KindTable } from './records';

const K1 = 1.2;
// Length normalisation, mild (0.05, where the textbook value is 0.75): in a history the record
// that explains something is long and its look-alikes are one-line notes, so a row's length is
// evidence of substance, not of wordiness. Chosen on the development sets (docs/search.md).
const B = 0.05;

/** Column weights, in the FTS tables' column order (see schema.ts). */
export const FTS_WEIGHTS = {
  // title, subtitle, narrative, facts, concepts, files_read, files_modified
  o: [2, 1.5, 1, 1.5, 1.5, 0.4, 0.8],
  // request, investigated, learned, completed, next_steps, notes
  s: [1.5, 1, 1.2, 1.2, 0.8, 0.8],
  // text
  p: [1],
} as const;

export type FtsTable = keyof typeof FTS_WEIGHTS;

export function idf(rows: number, df: number): number {
  return Math.log(1 + (rows - df + 0.5) / (df + 0.5));
}

/**
 * matchinfo 'pcnaly' as 32-bit unsigned integers: p phrases, c columns, n rows, a[c] average
 * tokens per column, l[c] tokens in this row per column, y[p * c] hits of each phrase in each
 * column of this row. idfs: one per phrase, in query order.
 */
export function bm25(mi: Uint32Array, weights: readonly number[], idfs: ArrayLike<number>): number {
  const p = mi[0];
  const c = mi[1];
  const a = 3;
  const l = a + c;
  const y = l + c;
  if (mi.length < y + p * c) return 0;
  let score = 0;
  for (let i = 0; i < p; i++) {
    const w = idfs[i] ?? 0;
    for (let j = 0; j < c; j++) {
      const tf = mi[y + i * c + j];
      if (tf === 0) continue;
      score += term(weights[j] ?? 1, w, tf, mi[l + j], mi[a + j]);
    }
  }
  return score;
}

/** One phrase in one column: the one expression both ways of scoring use, so they agree exactly. */
function term(weight: number, idf: number, tf: number, len: number, avg: number): number {
  const norm = K1 * (1 - B + (B * len) / (avg || 1));
  return weight * idf * ((tf * (K1 + 1)) / (tf + norm));
}

/** bm25 from matchinfo 'y' (hits of each phrase in each column) and the row's lengths in memory. */
export function bm25y(y: Uint32Array, weights: readonly number[], idfs: ArrayLike<number>, d: DocLengths, id: number, avg: Uint32Array): number {
  const p = Math.floor(y.length / d.cols);
  let score = 0;
  for (let i = 0; i < p; i++) score = phraseY(y, i * d.cols, weights, idfs[i] ?? 0, d, id, avg, score);
  return score;
}

/**
 * One phrase's part of bm25y (its hits per column at y[at ..], idf w) added to `score` term by
 * term, in the order bm25 adds them, so every way of scoring gives the same bits.
 */
export function phraseY(y: Uint32Array, at: number, weights: readonly number[], w: number, d: DocLengths, id: number, avg: Uint32Array, score = 0): number {
  const c = d.cols;
  for (let j = 0; j < c; j++) {
    const tf = y[at + j];
    if (tf === 0) continue;
    score += term(weights[j] ?? 1, w, tf, lengthOf(d, id * c + j), avg[j]);
  }
  return score;
}

/** The idf of each phrase of the statement about to run (set by the caller, read per row). */
export const bm25Idf: { values: number[] } = { values: [] };

/** The lengths and averages cm_bm25y reads in the statement about to run (set by partSql). */
const bm25Rows: { lengths?: DocLengths; avg?: Uint32Array } = {};

/**
 * The SQL for a matching row's BM25 (with bm25Idf set): from matchinfo 'y' and the lengths in
 * memory once the warm-up read them (up to date with every row: docLengths), else from 'pcnaly'.
 * For a statement over k.fts (`docid` may need the table's name when another table is joined).
 */
export function partSql(store: Pick<Store, 'all'>, k: KindTable, docid = 'docid'): string {
  const d = docLengths(store, k);
  const avg = d && columnAverages(store, k, d.cols);
  if (!d || !avg) return `cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}')`;
  bm25Rows.lengths = d;
  bm25Rows.avg = avg;
  return `cm_bm25y(matchinfo(${k.fts}, 'y'), ${docid}, '${k.weights}')`;
}

function asU32(blob: unknown): Uint32Array | undefined {
  if (!(blob instanceof Uint8Array) || blob.byteLength % 4 !== 0) return undefined;
  const bytes = blob.byteOffset % 4 === 0 ? blob : blob.slice();
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** Registers cm_bm25 on a connection (registerSearchFunctions does it for a store). */
export function register(db: Database): void {
  db.create_function('cm_bm25', (blob: unknown, table: unknown) => {
    const mi = asU32(blob);
    const w = FTS_WEIGHTS[table as FtsTable];
    return mi && w ? bm25(mi, w, bm25Idf.values) : 0;
  });
  db.create_function('cm_bm25y', (blob: unknown, id: unknown, table: unknown) => {
    const y = asU32(blob);
    const w = FTS_WEIGHTS[table as FtsTable];
    const { lengths, avg } = bm25Rows;
    return y && w && lengths && avg ? bm25y(y, w, bm25Idf.values, lengths, Number(id), avg) : 0;
  });
}

const registered = new WeakSet<Store>();

/** Registers cm_bm25 on the store's connection, and again after every re-open. Idempotent. */
export function registerSearchFunctions(store: Store): void {
  if (registered.has(store)) return;
  registered.add(store);
  store.onReopen(register);
}
