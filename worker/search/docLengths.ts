// Each row's tokens per column (what FTS4 keeps in its docsize table) in memory, so a BM25 part is
// computed from matchinfo 'y' alone: FTS4 answers matchinfo 'l' by looking the row's docsize up,
// and without it ranking a match costs 0.65-0.71x at 100k records (bench/rank-cost.mjs). Ranking a
// word's matches the first time it is searched is most of keyword search's tail there.
//
// The parts are the same numbers either way (bm25.ts computes both with one expression, and the
// averages are FTS4's own, from its stat row: columnAverages), so lists made either way are added
// up together (termLists.ts, topK.ts). Built once, by the worker from start (service.ts; the keyword
// warm-up's process builds its own, listWarmer.ts), then extended with the rows added since by
// docid: records are added and deleted, never edited, and ids only grow (rowFacts.ts says the
// same). 2 bytes a row and column: 1.4 MB for 100k observations.
import type { Store } from '../store/store';
import { untilWrite, writeCount } from '../store/untilWrite';
import { byTable } from './byTable';
import type { KindTable } from './records';

type Db = Pick<Store, 'all'>;

export interface DocLengths {
  /** Rows up to this docid are known. */
  maxId: number;
  /** Columns of the full-text table. */
  cols: number;
  /** Tokens in column j of row id at id * cols + j; LONG when they do not fit (then in `long`). */
  len: Uint16Array;
  long: Map<number, number>;
}

const LONG = 0xffff;
/** docsize rows read per step of a build. */
const STEP_ROWS = 5000;
const tables = byTable<DocLengths>();

/** Column j of row id's tokens (0 for a row not known). */
export function lengthOf(d: DocLengths, at: number): number {
  const n = d.len[at] ?? 0;
  return n === LONG ? (d.long.get(at) ?? LONG) : n;
}

/**
 * The table's lengths, brought up to date with the rows added since (a rowid range of its docsize
 * table: one seek when nothing was added); undefined until the warm-up built them.
 */
export function docLengths(store: Db, k: KindTable): DocLengths | undefined {
  const d = tables.of(store).get(k.fts);
  if (!d) return d;
  // Caught up already at this write count: no row can have been added since (a word's first
  // ranking asks for the lengths once or twice a search).
  const writes = writeCount(store);
  if (writes !== undefined && caughtUp.get(d) === writes) return d;
  add(d, store.all<SizeRow>(`SELECT docid AS id, size FROM ${k.fts}_docsize WHERE docid > ? ORDER BY docid`, [d.maxId]));
  if (writes !== undefined) caughtUp.set(d, writes);
  return d;
}

/** The store's write count when each table's lengths were last caught up (lengths taken over from the warm-up have none). */
const caughtUp = new WeakMap<DocLengths, number>();

/**
 * The average tokens per column as matchinfo 'a' gives them now (FTS4's stat row: the row count,
 * then each column's total; the average rounded to an integer the way FTS4 does), or undefined
 * when the table is empty.
 */
export function columnAverages(store: Db, k: KindTable, cols: number): Uint32Array | undefined {
  return untilWrite(store, `averages\u0000${k.fts}\u0000${cols}`, () => readAverages(store, k, cols));
}

/** FTS4's stat row as its first `count` varints, or undefined when the table has none yet. */
function statRow(store: Db, k: KindTable, count: number): number[] | undefined {
  const v = store.all<{ value: Uint8Array }>(`SELECT value FROM ${k.fts}_stat WHERE id = 0`)[0]?.value;
  return v instanceof Uint8Array ? varints(v, count) : undefined;
}

function readAverages(store: Db, k: KindTable, cols: number): Uint32Array | undefined {
  const a = statRow(store, k, cols + 1);
  const rows = a?.[0];
  if (!a || !rows || a.length < cols + 1) return undefined;
  const avg = new Uint32Array(cols);
  // FTS4: (u32)(((u32)(nToken & 0xffffffff) + nDoc / 2) / nDoc), in 64-bit integers.
  for (let j = 0; j < cols; j++) avg[j] = Math.floor(((a[j + 1] % 2 ** 32) + Math.floor(rows / 2)) / rows);
  return avg;
}

/**
 * Rows in the full-text table (FTS4's stat row keeps the count: what matchinfo 'n' reads), or
 * undefined when it has none yet. count(*) on the content table walks an index: milliseconds at 100k.
 */
export function ftsRowCount(store: Db, k: KindTable): number | undefined {
  return statRow(store, k, 1)?.[0];
}

/** Lengths being read, per store and table: every build under way reads on from where any left off. */
const partial = byTable<DocLengths>();

/**
 * Reads the table's lengths a page of docsize rows at a time and keeps them; the lengths kept
 * already, when there are. Builds of one table under way at once (the start-up fill's, a search
 * meeting a common word before the fill got there: termLists.ts) share their progress.
 */
export function* buildDocLengths(store: Db, k: KindTable, cols: number, step = STEP_ROWS): Generator<void, DocLengths> {
  const building = partial.of(store);
  let d = building.get(k.fts);
  if (!d) building.set(k.fts, (d = { maxId: 0, cols, len: new Uint16Array(0), long: new Map() }));
  for (;;) {
    const kept = tables.of(store).get(k.fts);
    if (kept) return kept;
    const page = store.all<SizeRow>(`SELECT docid AS id, size FROM ${k.fts}_docsize WHERE docid > ? ORDER BY docid LIMIT ?`, [d.maxId, step]);
    add(d, page);
    if (page.length < step) break;
    yield;
  }
  building.delete(k.fts);
  tables.of(store).set(k.fts, d);
  return d;
}

interface SizeRow {
  id: number;
  size: Uint8Array;
}

function add(d: DocLengths, rows: SizeRow[]): void {
  if (rows.length === 0) return;
  const top = rows[rows.length - 1].id;
  if ((top + 1) * d.cols > d.len.length) {
    const len = new Uint16Array(Math.max((top + 1) * d.cols, Math.ceil(d.len.length * 1.5), 1024 * d.cols));
    len.set(d.len);
    d.len = len;
  }
  for (const r of rows) {
    const n = varints(r.size, d.cols);
    for (let j = 0; j < d.cols; j++) {
      const at = r.id * d.cols + j;
      const v = n[j] ?? 0;
      if (v >= LONG) d.long.set(at, v);
      d.len[at] = Math.min(v, LONG);
    }
    d.maxId = Math.max(d.maxId, r.id);
  }
}

/** FTS3/4 varints (7 bits a byte, least significant first), at most `count` of them. */
function varints(b: Uint8Array, count: number): number[] {
  const out: number[] = [];
  let v = 0;
  let shift = 0;
  for (let i = 0; i < b.length && out.length < count; i++) {
    v += (b[i] & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b[i] & 0x80) === 0) {
      out.push(v);
      v = 0;
      shift = 0;
    }
  }
  return out;
}
