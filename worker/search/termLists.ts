// Impact lists: for one phrase of one full-text table, the rows it matches with the phrase's own
// BM25 part (the column-weighted, length-normalised term frequency; the idf is left out, so one
// list serves every query), best first. A rare phrase's list holds every row it matches
// ("complete"); a common phrase's holds the best `size` and a floor: no row outside the list has a
// larger part. keyword.ts adds the lists of a query's phrases up to find its exact top k without
// ranking every match of its common words (a threshold algorithm), which is what lets keyword
// search rank every match at 100k records instead of the newest 1,000 (issue 19, item 4).
//
// A list is built once by ranking the phrase's matches (2 µs a row at 100k: ~130 ms for a word in
// two thirds of the rows), then kept: rows added later are ranked and merged in when a query next
// uses it (ids only grow), and it is built again after LIST_TTL_MS or once the table grew by 5%
// (the average lengths BM25 normalises by drift as it grows). A row deleted since is still listed;
// the caller checks that its top rows exist. An edited row keeps its old part until the next
// rebuild: keyword.ts scores the rows it returns exactly, so only the choice can be off, and only
// for rows edited in the last LIST_TTL_MS.
import type { Store } from '../store/store';
import { bm25Idf } from './bm25';
import type { KindTable } from './records';

type Db = Pick<Store, 'all'>;

export interface TermList {
  /** Row ids, best part first. */
  ids: Int32Array;
  parts: Float64Array;
  /** The largest part a matching row outside the list can have (0 when complete). */
  floor: number;
  complete: boolean;
  /** Rows with a larger id were added after the list was made (or merged). */
  maxId: number;
  /** Table rows when built (rebuilt once the table grew by 5%). */
  rows: number;
  at: number;
}

/** Rows a common phrase's list keeps at first; keyword.ts asks for more when that cannot settle a query. */
export const LIST_SIZE = 2048;
const LIST_TTL_MS = 10 * 60_000;
/** Entries kept across all lists of a store (12 bytes each: 6 MB) before the least recently used lists go. */
const MAX_ENTRIES = 500_000;

interface Cache {
  lists: Map<string, TermList>;
  entries: number;
}
const caches = new WeakMap<object, Cache>();

/**
 * The phrase's list with at least `size` rows (or all of them), up to date with rows up to maxId.
 * rows: the table's row count now.
 */
export function termList(store: Db, k: KindTable, phrase: string, size: number, rows: number, maxId: number, now: number): TermList {
  let cache = caches.get(store);
  if (!cache) {
    cache = { lists: new Map(), entries: 0 };
    caches.set(store, cache);
  }
  const key = `${k.fts}\u0000${phrase}`;
  let list = cache.lists.get(key);
  const fresh = list && now - list.at < LIST_TTL_MS && rows <= list.rows * 1.05 + 10 && (list.complete || list.ids.length >= size);
  if (list && fresh) {
    if (maxId > list.maxId) list = merge(list, rank(store, k, phrase, list.maxId, undefined), size, maxId);
  } else {
    const ranked = rank(store, k, phrase, 0, size + 1);
    list = fromRanked(ranked, size, maxId, rows, now);
  }
  const old = cache.lists.get(key);
  if (old) cache.entries -= old.ids.length;
  cache.lists.delete(key);
  cache.lists.set(key, list);
  cache.entries += list.ids.length;
  for (const [name, l] of cache.lists) {
    if (cache.entries <= MAX_ENTRIES || name === key) break;
    cache.lists.delete(name);
    cache.entries -= l.ids.length;
  }
  return list;
}

interface Ranked {
  id: number;
  s: number;
}

/** The phrase's matches with id > after, by part (best first), at most `limit` of them. */
function rank(store: Db, k: KindTable, phrase: string, after: number, limit: number | undefined): Ranked[] {
  bm25Idf.values = [1];
  const part = `cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}')`;
  return store.all<Ranked>(
    `SELECT docid AS id, ${part} AS s FROM ${k.fts} WHERE ${k.fts} MATCH ?${after > 0 ? ' AND docid > ?' : ''} ORDER BY s DESC, docid DESC${limit ? ' LIMIT ?' : ''}`,
    [phrase, ...(after > 0 ? [after] : []), ...(limit ? [limit] : [])],
  );
}

/** A list from rows ranked best first: the first `size`, and the next one's part as the floor. */
function fromRanked(ranked: Ranked[], size: number, maxId: number, rows: number, at: number): TermList {
  const n = Math.min(size, ranked.length);
  const ids = new Int32Array(n);
  const parts = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = ranked[i].id;
    parts[i] = ranked[i].s;
  }
  const complete = ranked.length <= size;
  return { ids, parts, floor: complete ? 0 : ranked[size].s, complete, maxId, rows, at };
}

/** The list with rows added since merged in (kept to `size` when it was not complete). */
function merge(list: TermList, added: Ranked[], size: number, maxId: number): TermList {
  if (added.length === 0) return { ...list, maxId };
  const all: Ranked[] = added.slice();
  for (let i = 0; i < list.ids.length; i++) all.push({ id: list.ids[i], s: list.parts[i] });
  all.sort((a, b) => b.s - a.s || b.id - a.id);
  if (list.complete) return { ...fromRanked(all, all.length, maxId, list.rows, list.at) };
  const keep = Math.max(size, list.ids.length);
  const cut = fromRanked(all, keep, maxId, list.rows, list.at);
  // Rows past the cut had parts up to the old floor or to the first one dropped: the larger bounds both.
  return { ...cut, floor: Math.max(list.floor, cut.floor), complete: false };
}
