// The exact BM25 top k of a query over every row that matches it, from the impact lists of its
// phrases (termLists.ts), for one record kind. A row's score is the sum over the query's phrases of
// weight x idf x part; the lists give each row's parts where they know them, and a phrase whose
// list is not complete bounds the parts it does not know by its floor. So every listed row has a
// lower bound (known parts) and an upper bound (plus the floors of the lists it is missing from),
// and a row in no list at all scores at most the sum of the floors. The top k is settled once
// the k-th best score reaches every bound left: rows whose bound still reaches it are scored
// exactly in SQL (only those), and when even that cannot settle it (filters that leave too few
// listed rows, or a deep k over several common words) every match is ranked (rankAll): rare, and
// with filters cheaper than longer lists, whose build would rank every match anyway.
import type { SearchKind } from '../../common/contract';
import type { Store } from '../store/store';
import { bm25Idf } from './bm25';
import type { RankedHit } from './keyword';
import type { SearchFilters } from './params';
import { filterSql, KINDS } from './records';
import { buildInSteps, LIST_SIZE, needsBuild, STEP_ROWS, termList, type TermList } from './termLists';

type Db = Pick<Store, 'all' | 'get'>;

export interface WeightedPhrase {
  p: string;
  /** Rows that match it. */
  df: number;
  /** Query weight x idf: the factor on this phrase's part. */
  c: number;
}

/** A ranked row (keyword.ts's RankedHit). */
export type TopHit = RankedHit;

/** More rows than this left to score exactly: ranking every match is cheaper. */
const MAX_EXACT = 20_000;
/** List entries read in the first attempt. */
const HEAD = 1024;
/** Rows checked for existence and filters at a time. */
const CHECK_BATCH = 256;

/**
 * listSize: rows a common phrase's list keeps (tests make it small). A common phrase without a
 * list gets one built a window at a time first, other work running between windows, so a search
 * never holds the worker for the whole ranking of a common word's matches.
 */
export async function exactTopK(store: Db, kind: SearchKind, phrases: WeightedPhrase[], f: SearchFilters, depth: number, rows: number, maxId: number, now: number, listSize = LIST_SIZE): Promise<TopHit[]> {
  const k = KINDS[kind];
  for (const x of phrases) {
    if (x.df > 2 * STEP_ROWS && needsBuild(store, k, x.p, listSize, rows, now)) {
      const steps = buildInSteps(store, k, x.p, x.df, listSize);
      while (!steps.next().done) await new Promise((r) => setImmediate(r));
    }
  }
  const upTo = Math.max(maxId, currentMaxId(store, kind));
  const lists = phrases.map((x) => termList(store, k, x.p, listSize, rows, upTo, now));
  // The head of each list settles most queries, and reading less of the lists costs less; then
  // the whole lists. Longer lists would cost a ranking of every match to build: rank them all then.
  for (const head of [Math.min(HEAD, listSize), Infinity]) {
    const settled = settle(store, kind, phrases, lists.map((l) => headOf(l, head)), f, depth);
    if (settled) return settled;
    if (lists.every((l) => l.ids.length <= head)) break;
  }
  return rankAll(store, kind, phrases, f, depth);
}

/** Rows may have been added while a list was built. */
function currentMaxId(store: Db, kind: SearchKind): number {
  return Number(store.get<{ m: number | null }>(`SELECT max(id) AS m FROM ${KINDS[kind].table}`)?.m ?? 0);
}

/** The first n entries of a list, with the part of the next one as its floor. */
function headOf(l: TermList, n: number): TermList {
  if (n >= l.ids.length) return l;
  return { ...l, ids: l.ids.subarray(0, n), parts: l.parts.subarray(0, n), floor: l.parts[n], complete: false };
}

interface Candidate {
  id: number;
  lb: number;
  /** Sum of the floors of the incomplete lists this row is in (its upper bound is lb + unseen - this). */
  seen: number;
  exact: boolean;
  epoch: number;
}

function settle(store: Db, kind: SearchKind, phrases: WeightedPhrase[], lists: TermList[], f: SearchFilters, depth: number): TopHit[] | undefined {
  const byId = new Map<number, Candidate>();
  let unseen = 0;
  lists.forEach((l, i) => {
    const c = phrases[i].c;
    const floor = l.complete ? 0 : c * l.floor;
    unseen += floor;
    for (let j = 0; j < l.ids.length; j++) {
      const id = l.ids[j];
      let x = byId.get(id);
      if (!x) byId.set(id, (x = { id, lb: 0, seen: 0, exact: false, epoch: 0 }));
      x.lb += c * l.parts[j];
      x.seen += floor;
    }
  });
  const ub = (x: Candidate) => (x.exact ? x.lb : x.lb + unseen - x.seen);
  // Existence and filters are checked best bound first, only until no unchecked row can reach the
  // k-th best: checking every listed row cost more than all the rest of a query.
  const queue = [...byId.values()].sort((a, b) => ub(b) - ub(a));
  let next = 0;
  let live: Candidate[] = [];
  const kth = () => (live.length >= depth ? live[depth - 1].lb : -Infinity);
  for (let round = 0; round < 6; round++) {
    live.sort(byLb);
    while (next < queue.length && !(kth() >= ub(queue[next]))) {
      const batch = queue.slice(next, next + Math.max(CHECK_BATCH, depth));
      next += batch.length;
      live.push(...existing(store, kind, batch, f));
      live.sort(byLb);
    }
    const theta = Math.max(kth(), 0);
    const open = live.filter((x) => !x.exact && ub(x) > theta);
    if (open.length === 0) {
      // Settled among the listed rows; a row in no list scores at most `unseen`.
      if (unseen > 0 && !(kth() >= unseen)) return undefined;
      const top = live.slice(0, depth).map((x) => ({ kind, id: x.id, score: x.lb, epoch: x.epoch }));
      return filterSql(kind, f).where.length === 0 ? withTimes(store, kind, top) : top;
    }
    if (open.length > MAX_EXACT) return undefined;
    const scored = exactScores(store, kind, phrases, open.map((x) => x.id));
    for (const x of open) {
      x.lb = scored.get(x.id) ?? -1;
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
 * The candidates that still exist and pass the filters, with their times. Without filters only
 * existence is asked, of the full-text index's small docsize table: a content row per candidate
 * meant a page-cache chunk per candidate (times are read for the rows returned: withTimes).
 */
function existing(store: Db, kind: SearchKind, batch: Candidate[], f: SearchFilters): Candidate[] {
  const k = KINDS[kind];
  const { where, params } = filterSql(kind, f);
  const byId = new Map(batch.map((x) => [x.id, x]));
  const ids = JSON.stringify([...byId.keys()]);
  const rows =
    where.length === 0
      ? store.all<{ id: number; epoch?: number }>(`SELECT j.value AS id FROM json_each(?) j CROSS JOIN ${k.fts}_docsize d ON d.docid = j.value`, [ids])
      : store.all<{ id: number; epoch: number }>(
          // CROSS JOIN keeps the ids as the outer loop (a filter's index would otherwise scan a whole project).
          `SELECT c.id AS id, c.created_at AS epoch FROM json_each(?) j CROSS JOIN ${k.table} c ON c.id = j.value WHERE ${where.join(' AND ')}`,
          [ids, ...params],
        );
  const out: Candidate[] = [];
  for (const r of rows) {
    const x = byId.get(r.id);
    if (x) {
      if (r.epoch !== undefined) x.epoch = r.epoch;
      out.push(x);
    }
  }
  return out;
}

/** The rows' times, for the rows returned when existence was asked of the index alone. */
function withTimes(store: Db, kind: SearchKind, hits: TopHit[]): TopHit[] {
  const k = KINDS[kind];
  const times = new Map(
    store
      .all<{ id: number; epoch: number }>(`SELECT c.id AS id, c.created_at AS epoch FROM json_each(?) j CROSS JOIN ${k.table} c ON c.id = j.value`, [JSON.stringify(hits.map((h) => h.id))])
      .map((r) => [r.id, r.epoch] as const),
  );
  return hits.filter((h) => times.has(h.id)).map((h) => ({ ...h, epoch: times.get(h.id) ?? 0 }));
}

/** Exact scores of these rows (absent: the row no longer matches). */
function exactScores(store: Db, kind: SearchKind, phrases: WeightedPhrase[], ids: number[]): Map<number, number> {
  const k = KINDS[kind];
  bm25Idf.values = phrases.map((x) => x.c);
  const rows = store.all<{ id: number; score: number }>(
    `SELECT docid AS id, cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}') AS score FROM ${k.fts}
     WHERE ${k.fts} MATCH ? AND docid IN (SELECT value FROM json_each(?))`,
    [phrases.map((x) => x.p).join(' OR '), JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.score]));
}

/** Every match ranked (filters applied first): exact, and as slow as the matches are many. */
export function rankAll(store: Db, kind: SearchKind, phrases: WeightedPhrase[], f: SearchFilters, depth: number): TopHit[] {
  const k = KINDS[kind];
  const { where, params } = filterSql(kind, f);
  bm25Idf.values = phrases.map((x) => x.c);
  const rows = store.all<{ id: number; epoch: number; score: number }>(
    `SELECT c.id AS id, c.created_at AS epoch, cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}') AS score
     FROM ${k.fts} CROSS JOIN ${k.table} c ON c.id = ${k.fts}.docid
     WHERE ${[`${k.fts} MATCH ?`, ...where].join(' AND ')}
     ORDER BY score DESC, c.id DESC LIMIT ?`,
    [phrases.map((x) => x.p).join(' OR '), ...params, depth],
  );
  return rows.map((r) => ({ kind, id: r.id, epoch: r.epoch, score: r.score }));
}
