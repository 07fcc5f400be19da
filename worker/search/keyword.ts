// Keyword search: FTS4 matches ranked by BM25 (bm25.ts), the exact top k taken from impact lists
// (termLists.ts, topK.ts); project and date filters in memory (rowFacts.ts), the others in SQL.
//
// Cost model (measured at 100k observations, CPU time on this 2-core machine under load):
// MATCH decodes each phrase's whole doclist, about 10 ms for a word in every row and well under
// 1 ms for most words; ranking then costs 2-3 µs per matching row (matchinfo 'y' and 'l' plus the
// JS BM25 call). What keeps a query bounded:
//   - document frequencies come from a per-store cache (one count per new word, then reused for
//     DF_TTL_MS), never from matchinfo's 'x', which re-walks every doclist on every statement.
//     They are statistics (the idf, which words count as common), never membership: a cached 0 is
//     counted again once rows were added after it (ids only grow), so a word searched before its
//     first record existed finds that record as soon as its write is acknowledged;
//   - a multi-word query ranks the OR of its words (BM25 favours rows that have more of them), but
//     leaves out words in more than COMMON_SHARE of the rows while a rarer word remains (their BM25
//     weight is near zero), and keeps only the two rarest when every word is common;
//   - every row that matches the kept words is ranked, however old: the exact top k comes from
//     per-phrase impact lists (termLists.ts, topK.ts), so a common word costs one ranking of its
//     matches when first searched, then a few thousand list entries per query.
import type { SearchKind } from '../../common/contract';
import type { Store } from '../store/store';
import { untilWrite } from '../store/untilWrite';
import { idf } from './bm25';
import { ftsRowCount } from './docLengths';
import type { FtsQuery } from './ftsQuery';
import type { SearchFilters } from './params';
import { filterSql, KINDS, type KindTable } from './records';
import { COMMON_SHARE, rareList, vocabularyDf } from './termLists';
import { exactTopK } from './topK';
import type { SearchHit } from './hit';

type Db = Pick<Store, 'all' | 'get'>;

/** Cached frequencies are looked up again after this long, or once the table grew by 5%. */
const DF_TTL_MS = 10 * 60_000;
const DF_MAX = 4096;

interface Freq {
  df: number;
  rows: number;
  /** The table's highest id when counted: a row with a larger id was not counted. */
  maxId: number;
  at: number;
}

const caches = new WeakMap<object, Map<string, Freq>>();

/**
 * Rows in the table and its highest id, both current, kept until the store's next write: the count
 * from the full-text index's stat row (a lookup), not count(*) (an index walk: milliseconds at 100k
 * rows).
 */
function tableSize(store: Db, k: KindTable): { rows: number; maxId: number } {
  return untilWrite(store, `size\u0000${k.table}`, () => {
    const maxId = Number(store.get<{ m: number | null }>(`SELECT max(id) AS m FROM ${k.table}`)?.m ?? 0);
    const rows = maxId === 0 ? 0 : Math.min(ftsRowCount(store, k) ?? Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${k.table}`)?.n ?? 0), maxId);
    return { rows, maxId };
  });
}

/**
 * Rows in the full-text table that contain the phrase (cached per store). A cached count is an
 * estimate, except that 0 is trusted only while no row was added since (maxId: the table's highest
 * id now): a 0 decides that the phrase is left out of the query, and the rows added since may hold
 * it. Counting again is cheap then: the phrase's doclist holds only those rows.
 */
function frequency(store: Db, k: KindTable, phrase: string, rows: number, maxId: number, now: number): number {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  const key = `${k.fts}\u0000${phrase}`;
  const hit = cache.get(key);
  if (hit && now - hit.at < DF_TTL_MS && rows <= hit.rows * 1.05 + 10 && (hit.df > 0 || maxId <= hit.maxId)) return Math.min(hit.df, rows);
  // A surely rare phrase (termLists.rareList) is ranked now: its complete list is its count, and
  // the ranking (topK.ts) then finds it made, so the phrase costs one statement rather than two.
  const df =
    vocabularyDf(store, k, phrase, rows, now) ??
    rareList(store, k, phrase, rows, maxId, now)?.ids.length ??
    Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${k.fts} WHERE ${k.fts} MATCH ?`, [phrase])?.n ?? 0);
  cache.delete(key);
  cache.set(key, { df, rows, maxId, at: now });
  while (cache.size > DF_MAX) cache.delete(cache.keys().next().value as string);
  return df;
}

/** Best `depth` hits across the filtered kinds, best first. */
export async function keywordSearch(store: Db, q: FtsQuery, filters: SearchFilters, depth: number): Promise<SearchHit[]> {
  const all: SearchHit[] = [];
  for (const kind of filters.kinds) all.push(...(await rankKind(store, kind, q, filters, depth)));
  all.sort(byScore);
  return all.slice(0, depth);
}

/** Every row that matches the kept words, ranked exactly (topK.ts). */
async function rankKind(store: Db, kind: SearchKind, q: FtsQuery, f: SearchFilters, depth: number): Promise<SearchHit[]> {
  const now = Date.now();
  const k = KINDS[kind];
  const { rows: counted, maxId } = tableSize(store, k);
  if (maxId === 0) return [];
  const rows = Math.max(counted, 1);
  const phrases = q.phrases.map((p, i) => ({ p, df: frequency(store, k, p, rows, maxId, now), w: q.weights?.[i] ?? 1 })).filter((x) => x.df > 0);
  if (phrases.length === 0) return [];
  const rare = phrases.filter((x) => x.df <= COMMON_SHARE * rows);
  // Only common words: the two rarest carry what little BM25 can tell, at a bounded cost.
  const kept = rare.length > 0 ? rare : [...phrases].sort((a, b) => a.df - b.df).slice(0, 2);
  return exactTopK(store, kind, kept.map((x) => ({ p: x.p, df: x.df, c: x.w * idf(rows, x.df) })), f, depth, rows, maxId, now);
}

/** Newest first, no query: the filters alone. */
export function browse(store: Pick<Store, 'all'>, filters: SearchFilters, depth: number): SearchHit[] {
  const all: SearchHit[] = [];
  for (const kind of filters.kinds) {
    const k = KINDS[kind];
    const { where, params } = filterSql(kind, filters);
    const rows = store.all<{ id: number; epoch: number }>(
      `SELECT c.id AS id, c.created_at AS epoch FROM ${k.table} c ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY c.created_at DESC, c.id DESC LIMIT ?`,
      [...params, depth],
    );
    for (const r of rows) all.push({ kind, id: r.id, epoch: r.epoch, score: 0 });
  }
  all.sort((a, b) => b.epoch - a.epoch || b.id - a.id);
  return all.slice(0, depth);
}

function byScore(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || b.epoch - a.epoch || b.id - a.id;
}
