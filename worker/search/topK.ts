// The exact BM25 top k of a query over every row that matches it, from the impact lists of its
// phrases (termLists.ts), for one record kind. A row's score is the sum over the query's phrases of
// weight x idf x part. The lists are added up term at a time into an accumulator indexed by row id
// (a few tens of thousands of entries: a millisecond or two), so every listed row gets its known
// parts at once. A phrase below termLists.COMMON_SHARE has a complete list, so its part is known
// for every row; a common phrase's list is not complete and bounds the parts it does not hold by
// its floor. So every listed row has a lower bound (known parts) and an upper bound (plus the
// floors of the incomplete lists it is missing from), and a row in no list at all scores at most
// the sum of the floors. The top k is settled once the k-th best score reaches every bound left:
// rows whose bound still reaches it are scored exactly in SQL (only those), and when even that
// cannot settle it every match is ranked (rankAll): rare.
import type { SearchKind } from '../../common/contract';
import type { Store } from '../store/store';
import { bm25Idf, partSql } from './bm25';
import type { SearchHit } from './hit';
import type { SearchFilters } from './params';
import { existingIds, filterSql, KINDS } from './records';
import { factsCanFilter, passes, projectCode, rowFacts, type RowFacts } from './rowFacts';
import { buildInSteps, listSizeFor, needsBuild, selectAscending, STEP_ROWS, termList, type TermList } from './termLists';

type Db = Pick<Store, 'all' | 'get'>;

export interface WeightedPhrase {
  p: string;
  /** Rows that match it. */
  df: number;
  /** Query weight x idf: the factor on this phrase's part. */
  c: number;
}

/** A ranked row (keyword.ts's SearchHit). */

/** More rows than this left to score exactly: ranking every match is cheaper. */
const MAX_EXACT = 20_000;
/**
 * Candidates taken best bound first in the first attempt (then 8 times more). The pool asks for
 * 100 (searcher.ts PRIOR_POOL), and 256 settle all but about 1 in 100 of bench/scale's queries at
 * 100k; each candidate taken is an object, and the queue is sorted.
 */
const FIRST_TAKE = 256;
/** Rows checked for existence and filters at a time. */
const CHECK_BATCH = 256;

/**
 * listSize: rows every list keeps (tests make it small); by default a phrase's list holds all its
 * matches unless it is common (termLists.listSizeFor). A common phrase without a list gets one
 * built a window at a time first, other work running between windows, so a search never holds the
 * worker for the whole ranking of a common word's matches.
 */
export async function exactTopK(store: Db, kind: SearchKind, phrases: WeightedPhrase[], f: SearchFilters, depth: number, rows: number, maxId: number, now: number, listSize?: number): Promise<SearchHit[]> {
  const k = KINDS[kind];
  const sizes = phrases.map((x) => listSize ?? listSizeFor(x.df, rows));
  let waited = false;
  for (const [i, x] of phrases.entries()) {
    if (x.df > 2 * STEP_ROWS && needsBuild(store, k, x.p, sizes[i], rows, now)) {
      const steps = buildInSteps(store, k, x.p, x.df, rows, { size: sizes[i] });
      while (!steps.next().done) await new Promise((r) => setImmediate(r));
      waited = true;
    }
  }
  // Rows may have been added while other work ran between the build's steps; otherwise maxId is current.
  const upTo = waited ? Math.max(maxId, currentMaxId(store, kind)) : maxId;
  const lists = phrases.map((x, i) => termList(store, k, x.p, sizes[i], rows, upTo, now, x.df));
  // As many rows as the highest id (rows: the index's count now): every id up to it is a row, none
  // was ever deleted, and a candidate's existence needs no statement.
  const dense = !waited && rows === maxId;
  return fromLists(store, kind, phrases, lists, f, depth, upTo, dense) ?? rankAll(store, kind, phrases, f, depth);
}

/** The table's highest id now. */
function currentMaxId(store: Db, kind: SearchKind): number {
  return Number(store.get<{ m: number | null }>(`SELECT max(id) AS m FROM ${KINDS[kind].table}`)?.m ?? 0);
}

interface Candidate {
  id: number;
  /** Its known parts (its exact score once `exact`). */
  lb: number;
  /** Its upper bound until it is exact. */
  ub: number;
  exact: boolean;
  epoch: number;
}

/**
 * Per store, indexed by row id: reused from query to query (a row is reset when first met). A row's
 * three numbers sit side by side (ROW apart), so adding a list entry up touches one cache line
 * rather than one in each of three arrays: the lists' rows are scattered over the whole table.
 */
interface Accumulator {
  /** By row id, at ROW * id: the clock when the row was last met, its known parts, and the floors of the incomplete lists that hold it (their parts are known). */
  rows: Float64Array;
  clock: number;
  /** The rows met by this query (the first `n`), their bounds, and room to select among them: grown as needed, reused. */
  ids: Int32Array;
  ubs: Float64Array;
  scratch: Float64Array;
}
/** Numbers per row in Accumulator.rows: met clock, known parts, held floors. */
const ROW = 3;
const accumulators = new WeakMap<object, Accumulator>();

function accumulatorFor(store: Db, upTo: number): Accumulator {
  let a = accumulators.get(store);
  if (!a || a.rows.length <= ROW * upTo) {
    const n = Math.max(upTo + 1, Math.ceil((a ? a.rows.length / ROW : 0) * 1.5), 1024);
    a = { rows: new Float64Array(ROW * n), clock: 0, ids: a?.ids ?? new Int32Array(1024), ubs: a?.ubs ?? new Float64Array(1024), scratch: a?.scratch ?? new Float64Array(1024) };
    accumulators.set(store, a);
  }
  if (++a.clock === 0xffffffff) {
    for (let i = 0; i < a.rows.length; i += ROW) a.rows[i] = 0;
    a.clock = 1;
  }
  return a;
}

/** The top k from the lists, or undefined when they cannot settle it. */
function fromLists(store: Db, kind: SearchKind, phrases: WeightedPhrase[], lists: TermList[], f: SearchFilters, depth: number, upTo: number, dense: boolean): SearchHit[] | undefined {
  const a = accumulatorFor(store, upTo);
  // The rows met, in typed arrays reused from search to search: no array entry per match.
  const rows = a.rows;
  const clock = a.clock;
  // A project or date filter is checked here, in memory, so the best bounds are rows it keeps.
  const facts = factsCanFilter(f) ? rowFacts(store, KINDS[kind], upTo) : undefined;
  const code = facts && projectCode(facts, f.project);
  // The project is checked as the lists are added up, before a row's sums are touched: the rows'
  // project codes (2 bytes a row) stay in the processor's cache, the accumulator (24) does not.
  const project = facts && f.project !== undefined ? facts.project : undefined;
  let met = 0;
  let floors = 0;
  lists.forEach((l, i) => {
    const c = phrases[i].c;
    const floor = l.complete ? 0 : c * l.floor;
    floors += floor;
    if (a.ids.length < met + l.ids.length) grow(a, met + l.ids.length);
    for (let j = 0; j < l.ids.length; j++) {
      const id = l.ids[j];
      // Past the table's highest id: no such row here (a list handed over by the warm-up process
      // after this store lost a write it could not journal); a row of another project than the filter's.
      if (id > upTo || (project && project[id] !== code)) continue;
      const at = ROW * id;
      if (rows[at] !== clock) {
        rows[at] = clock;
        rows[at + 1] = 0;
        rows[at + 2] = 0;
        a.ids[met++] = id;
      }
      rows[at + 1] += c * l.parts[j];
      rows[at + 2] += floor;
    }
  });
  let n = 0;
  for (let i = 0; i < met; i++) {
    const id = a.ids[i];
    if (facts && !passes(facts, id, f, code)) continue;
    a.ids[n] = id;
    // Floors are summed in list order both times, so a row every incomplete list holds has 0 here.
    a.ubs[n++] = rows[ROW * id + 1] + (floors - rows[ROW * id + 2]);
  }
  const check = checker(store, kind, f, facts, dense);
  for (let take = FIRST_TAKE; ; take *= 8) {
    const { queue, rest } = best(a, n, take);
    // A row in no list has at most every incomplete list's floor.
    const settled = settle(store, kind, phrases, queue, Math.max(rest, floors), depth, check);
    if (settled || queue.length >= n) return settled;
  }
}

/** Room for `n` rows met in one query. */
function grow(a: Accumulator, n: number): void {
  const size = Math.max(n, Math.ceil(a.ids.length * 1.5));
  const ids = new Int32Array(size);
  ids.set(a.ids);
  a.ids = ids;
  a.ubs = new Float64Array(size);
  a.scratch = new Float64Array(size);
}

/** The `take` candidates (of the first n in a.ids) with the best bounds (ties kept together), best first, and the best bound left out. */
function best(a: Accumulator, n: number, take: number): { queue: Candidate[]; rest: number } {
  // The take-th best bound, by selection (a sort of every candidate's bound cost more than the rest of the step).
  let cut = -Infinity;
  if (n > take) {
    const sel = a.scratch.subarray(0, n);
    sel.set(a.ubs.subarray(0, n));
    cut = selectAscending(sel, n - take);
  }
  const queue: Candidate[] = [];
  let rest = -Infinity;
  for (let i = 0; i < n; i++) {
    const ub = a.ubs[i];
    if (ub < cut) {
      if (ub > rest) rest = ub;
      continue;
    }
    const id = a.ids[i];
    const lb = a.rows[ROW * id + 1];
    queue.push({ id, lb, ub, exact: ub === lb, epoch: 0 });
  }
  // Ties by id, highest first, as byLb breaks them once times are equal: tied rows are checked in the order the ranking keeps them.
  return { queue: queue.sort((x, y) => y.ub - x.ub || y.id - x.id), rest };
}

/**
 * The top k of the queue (best bound first), or undefined when a row outside it (bound `rest`)
 * could still be in it. Existence and filters are checked best bound first, only until no
 * unchecked row can reach the k-th best.
 */
function settle(store: Db, kind: SearchKind, phrases: WeightedPhrase[], queue: Candidate[], rest: number, depth: number, check: (batch: Candidate[]) => Candidate[]): SearchHit[] | undefined {
  let next = 0;
  let live: Candidate[] = [];
  const kth = () => (live.length >= depth ? live[depth - 1].lb : -Infinity);
  for (let round = 0; round < 6; round++) {
    live.sort(byLb);
    while (next < queue.length && !(kth() >= queue[next].ub)) {
      const batch = queue.slice(next, next + Math.max(CHECK_BATCH, depth));
      next += batch.length;
      live.push(...check(batch));
      live.sort(byLb);
    }
    const theta = Math.max(kth(), 0);
    const open = live.filter((x) => !x.exact && x.ub > theta);
    if (open.length === 0) {
      if (rest > 0 && !(kth() >= rest)) return undefined;
      return live.slice(0, depth).map((x) => ({ kind, id: x.id, score: x.lb, epoch: x.epoch }));
    }
    if (open.length > MAX_EXACT) return undefined;
    const scored = exactScores(store, kind, phrases, open.map((x) => x.id));
    for (const x of open) {
      x.lb = x.ub = scored.get(x.id) ?? -1;
      x.exact = true;
    }
    live = live.filter((x) => x.lb >= 0);
  }
  return undefined;
}

function byLb(a: Candidate, b: Candidate): number {
  return b.lb - a.lb || b.epoch - a.epoch || b.id - a.id;
}

/**
 * Which candidates still exist and pass the filters, with their times. Existence is asked of the
 * full-text index's small docsize table (unless the table is dense: no row was ever deleted); a project or date filter and the times come from the
 * in-memory row facts (rowFacts.ts). Reading a content row per candidate meant a page-cache chunk
 * per candidate at 100k; only the other filters (platform, types, concepts, file) still do.
 */
function checker(store: Db, kind: SearchKind, f: SearchFilters, facts: RowFacts | undefined, dense: boolean): (batch: Candidate[]) => Candidate[] {
  const k = KINDS[kind];
  if (!facts) return (batch) => filteredInSql(store, kind, batch, f);
  const code = projectCode(facts, f.project);
  return (batch) => {
    const pass = batch.filter((x) => passes(facts, x.id, f, code));
    if (pass.length === 0) return [];
    if (dense) {
      for (const x of pass) x.epoch = facts.epoch[x.id];
      return pass;
    }
    const alive = existingIds(store, k, pass.map((x) => x.id));
    const out = pass.filter((x) => alive.has(x.id));
    for (const x of out) x.epoch = facts.epoch[x.id];
    return out;
  };
}

function filteredInSql(store: Db, kind: SearchKind, batch: Candidate[], f: SearchFilters): Candidate[] {
  const k = KINDS[kind];
  const { where, params } = filterSql(kind, f);
  const byId = new Map(batch.map((x) => [x.id, x]));
  const rows = store.all<{ id: number; epoch: number }>(
    // CROSS JOIN keeps the ids as the outer loop (a filter's index would otherwise scan a whole project).
    `SELECT c.id AS id, c.created_at AS epoch FROM json_each(?) j CROSS JOIN ${k.table} c ON c.id = j.value${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`,
    [JSON.stringify([...byId.keys()]), ...params],
  );
  const out: Candidate[] = [];
  for (const r of rows) {
    const x = byId.get(r.id);
    if (x) {
      x.epoch = r.epoch;
      out.push(x);
    }
  }
  return out;
}

/** Exact scores of these rows (absent: the row no longer matches). */
function exactScores(store: Db, kind: SearchKind, phrases: WeightedPhrase[], ids: number[]): Map<number, number> {
  const k = KINDS[kind];
  bm25Idf.values = phrases.map((x) => x.c);
  const rows = store.all<{ id: number; score: number }>(
    `SELECT docid AS id, ${partSql(store, k)} AS score FROM ${k.fts}
     WHERE ${k.fts} MATCH ? AND docid IN (SELECT value FROM json_each(?))`,
    [phrases.map((x) => x.p).join(' OR '), JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.score]));
}

/** Every match ranked (filters applied first): exact, and as slow as the matches are many. */
export function rankAll(store: Db, kind: SearchKind, phrases: WeightedPhrase[], f: SearchFilters, depth: number): SearchHit[] {
  const k = KINDS[kind];
  const { where, params } = filterSql(kind, f);
  bm25Idf.values = phrases.map((x) => x.c);
  const rows = store.all<{ id: number; epoch: number; score: number }>(
    `SELECT c.id AS id, c.created_at AS epoch, ${partSql(store, k, `${k.fts}.docid`)} AS score
     FROM ${k.fts} CROSS JOIN ${k.table} c ON c.id = ${k.fts}.docid
     WHERE ${[`${k.fts} MATCH ?`, ...where].join(' AND ')}
     ORDER BY score DESC, c.id DESC LIMIT ?`,
    [phrases.map((x) => x.p).join(' OR '), ...params, depth],
  );
  return rows.map((r) => ({ kind, id: r.id, epoch: r.epoch, score: r.score }));
}
