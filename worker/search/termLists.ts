// Impact lists: for one phrase of one full-text table, the rows it matches with the phrase's own
// BM25 part (the column-weighted, length-normalised term frequency; the idf is left out, so one
// list serves every query), in id order. A rare phrase's list holds every row it matches
// ("complete"); a common phrase's holds the best `size` and a floor: no row outside the list has a
// larger part. keyword.ts adds the lists of a query's phrases up to find its exact top k without
// ranking every match of its common words (a threshold algorithm), which is what lets keyword
// search rank every match at 100k records instead of the newest 1,000.
//
// A list is built once by ranking the phrase's matches (2 µs a row at 100k: ~130 ms for a word in
// two thirds of the rows; listWarmer.ts builds the commonest in the background after start), then
// kept: rows added later are ranked and merged in when a query next uses it (ids only grow), and
// it is built again after LIST_TTL_MS or once the table grew or shrank by 5% (the average lengths
// BM25 normalises by drift). A row deleted since is still listed; topK.ts checks that the rows it
// keeps exist. Records are never edited in place (the worker only adds and deletes them); if one
// were, its old part would stand until the list is built again (LIST_TTL_MS).
import type { Store } from '../store/store';
import { bm25Idf, FTS_WEIGHTS, partSql, phraseY } from './bm25';
import { buildDocLengths, columnAverages, docLengths } from './docLengths';
import { readTermHits } from './ftsPostings';
import type { KindTable } from './records';

type Db = Pick<Store, 'all'>;

export interface TermList {
  /**
   * Row ids, ascending: topK.ts adds the lists up into an accumulator indexed by id, which it then
   * walks forwards (at 100k, a cold accumulator walked in list order took twice as long when the
   * lists were in part order).
   */
  ids: Int32Array;
  /** Each row's part. */
  parts: Float64Array;
  /** The largest part a matching row outside the list can have (0 when complete). */
  floor: number;
  complete: boolean;
  /** Rows with a larger id were added after the list was made (or merged). */
  maxId: number;
  /** Table rows when built (rebuilt once the table grew or shrank by 5%). */
  rows: number;
  at: number;
}

/** Rows a list keeps at least. */
export const LIST_SIZE = 8192;
/**
 * A word in more than this share of a table's rows is left out of a query that has a rarer word
 * (keyword.ts). Every word below it gets a complete list, so a query's rows have their exact parts
 * in memory (topK.ts adds the lists up) and need no scoring in SQL, which walks every match of
 * each word: 15-30 ms of a three-word search at 100k. Words above it keep LIST_SIZE rows: they
 * are searched alone or in pairs, where the best rows of a list settle the top k.
 */
export const COMMON_SHARE = 0.2;

/** Rows the list of a phrase in `df` of `rows` rows keeps: all of them unless it is common. */
export function listSizeFor(df: number, rows: number): number {
  const share = Math.ceil(COMMON_SHARE * rows);
  return df <= share ? Math.max(LIST_SIZE, share) : LIST_SIZE;
}

/** Lists are made again after this long (new rows are merged in meanwhile; this catches edits). */
const LIST_TTL_MS = 6 * 3600_000;
/** Entries kept across all lists of a store (12 bytes each: 24 MB) before the least recently used lists go. */
const MAX_ENTRIES = 2_000_000;
/**
 * What a list counts against MAX_ENTRIES at least: a short list's arrays and entry cost more than
 * its entries, and this bounds how many short lists a store keeps (about 7,800). Short lists are
 * kept all the same: making one again costs a statement (0.2-0.6 ms at 10k rows), more than a
 * whole search of words whose lists are kept.
 */
const MIN_CHARGE = 256;
/**
 * A phrase in at most this many rows is ranked through SQL (about 2 µs a match plus one statement)
 * rather than from the index's segments (a fixed 0.5 ms or so for walking every segment's b-tree,
 * then well under 1 µs a match): measured at 10k observations, the two cross near 200-300 matches.
 */
const SEGMENTS_MIN_DF = 200;

/**
 * The warm-up (listWarmer.ts) notes every plain word of a table in more rows than this, so a plain
 * word it did not note is in at most this many: its list is ranked at once (one statement, which
 * also gives its count) instead of counting its matches in one statement and ranking them in
 * another. Below SEGMENTS_MIN_DF, so such a list is always ranked through SQL.
 */
export const VOCABULARY_MIN_DF = SEGMENTS_MIN_DF;
/** The vocabulary entry (after the table's name) saying that the table's whole vocabulary was read. */
const VOCABULARY_READ = '\u0001read';
/** The index's terms as the vocabulary keeps them: plain words (a prefix or a phrase never is one). */
export const PLAIN_TERM = /^[a-z0-9]+$/;

interface Cache {
  lists: Map<string, TermList>;
  entries: number;
  /** Phrase -> the terms the index holds for it (porter stems), so "changes" and "changed" share a list. */
  keys: Map<string, string>;
  /** Rows with each common term, as the warm-up read them from the index's vocabulary (table\0term). */
  vocabulary: Map<string, { df: number; rows: number; at: number }>;
  /** Lists ranked from scratch so far (not counting rows merged in). */
  builds: number;
}
const caches = new WeakMap<object, Cache>();

function cacheOf(store: Db): Cache {
  let cache = caches.get(store);
  if (!cache) {
    cache = { lists: new Map(), entries: 0, keys: new Map(), vocabulary: new Map(), builds: 0 };
    caches.set(store, cache);
  }
  return cache;
}

/** Lists ranked from scratch on this store so far: a search that finds its lists made builds none. */
export function listBuilds(store: Db): number {
  return cacheOf(store).builds;
}

/** The warm-up (listWarmer.ts) saw that `term` is in `df` of `rows` rows of the full-text table. */
export function noteVocabulary(store: Db, k: KindTable, term: string, df: number, rows: number, at: number): void {
  cacheOf(store).vocabulary.set(`${k.fts}\u0000${term}`, { df, rows, at });
}

/** The warm-up read every term of the table's vocabulary (those above VOCABULARY_MIN_DF are noted). */
export function noteVocabularyRead(store: Db, k: KindTable, rows: number, at: number): void {
  cacheOf(store).vocabulary.set(`${k.fts}\u0000${VOCABULARY_READ}`, { df: VOCABULARY_MIN_DF, rows, at });
}

/** A vocabulary count still stands: not too old, and the table not grown or shrunk by 5% since. */
function current(v: { rows: number; at: number } | undefined, rows: number, now: number): boolean {
  return v !== undefined && now - v.at < LIST_TTL_MS && Math.abs(rows - v.rows) <= v.rows * 0.05 + 10;
}

/**
 * Rows that match a one-word phrase, when the warm-up read it from the vocabulary and the table
 * has not grown or shrunk by 5% since (what a list stays fresh for): counting the matches of a
 * common word walks its whole doclist (15 ms for a word in every row at 100k).
 */
export function vocabularyDf(store: Db, k: KindTable, phrase: string, rows: number, now: number): number | undefined {
  const cache = cacheOf(store);
  if (cache.vocabulary.size === 0) return undefined;
  const terms = indexTerms(store, cache, phrase);
  if (terms === '') return undefined;
  const v = cache.vocabulary.get(`${k.fts}\u0000${terms}`);
  return current(v, rows, now) ? v?.df : undefined;
}

/**
 * The complete list of a phrase that is surely rare, made in one statement when it is not kept
 * (its length is then the phrase's count of rows, so the search needs no count statement);
 * undefined when the phrase may be common: a table of more than VOCABULARY_MIN_DF rows whose
 * vocabulary was not read (or has aged), a prefix, a word the vocabulary cannot hold (non-ASCII),
 * or a phrase whose every word the vocabulary holds.
 */
export function rareList(store: Db, k: KindTable, phrase: string, rows: number, maxId: number, now: number): TermList | undefined {
  const cache = cacheOf(store);
  if (rows > VOCABULARY_MIN_DF) {
    if (!current(cache.vocabulary.get(`${k.fts}\u0000${VOCABULARY_READ}`), rows, now)) return undefined;
    const terms = indexTerms(store, cache, phrase).split(' ');
    if (!terms.every((t) => PLAIN_TERM.test(t)) || terms.every((t) => cache.vocabulary.has(`${k.fts}\u0000${t}`))) return undefined;
  }
  // df 0: ranked through SQL (a few matches cost less there than a walk of every segment).
  const list = termList(store, k, phrase, listSizeFor(0, rows), rows, maxId, now, 0);
  return list.complete ? list : undefined;
}

/**
 * The phrase's list with at least `size` rows (or all of them), up to date with rows up to maxId.
 * rows: the table's row count now.
 */
export function termList(store: Db, k: KindTable, phrase: string, size: number, rows: number, maxId: number, now: number, df = Infinity): TermList {
  const cache = cacheOf(store);
  const key = `${k.fts}\u0000${indexTerms(store, cache, phrase)}`;
  let list = cache.lists.get(key);
  if (list && fresh(list, size, rows, now)) {
    if (maxId <= list.maxId) return touch(cache, key, list);
    list = merge(list, rankSql(store, k, phrase, list.maxId, Infinity, undefined), size, maxId);
  } else {
    cache.builds++;
    // A rare phrase: SQL (a few matches cost less there than a walk of every segment).
    const scored = df > SEGMENTS_MIN_DF ? scoreFromSegments(store, k, phrase, 0, Infinity) : undefined;
    list = { ...(scored ? keepBest(scored, size) : keepRanked(rankSql(store, k, phrase, 0, Infinity, size + 1), size)), maxId, rows, at: now };
  }
  install(cache, key, list);
  return list;
}

/** The list, moved to the most recently used end (the map's order is the eviction order). */
function touch(cache: Cache, key: string, list: TermList): TermList {
  cache.lists.delete(key);
  cache.lists.set(key, list);
  return list;
}

/** What a list counts against MAX_ENTRIES. */
function charge(list: TermList): number {
  return Math.max(list.ids.length, MIN_CHARGE);
}

/** Whether a kept list can serve: not too old, the table about the same size, long enough. */
function fresh(list: TermList, size: number, rows: number, now: number): boolean {
  // Grown or shrunk by 5% (an import, a project deleted): the average lengths moved; build it again.
  return now - list.at < LIST_TTL_MS && Math.abs(rows - list.rows) <= list.rows * 0.05 + 10 && (list.complete || list.ids.length >= size);
}

/** Whether termList would rank the phrase's matches from scratch now. */
export function needsBuild(store: Db, k: KindTable, phrase: string, size: number, rows: number, now: number): boolean {
  const cache = cacheOf(store);
  const list = cache.lists.get(`${k.fts}\u0000${indexTerms(store, cache, phrase)}`);
  return !list || !fresh(list, size, rows, now);
}

function install(cache: Cache, key: string, list: TermList): void {
  const old = cache.lists.get(key);
  if (old) cache.entries -= charge(old);
  cache.lists.delete(key);
  cache.lists.set(key, list);
  cache.entries += charge(list);
  for (const [name, l] of cache.lists) {
    if (cache.entries <= MAX_ENTRIES || name === key) break;
    cache.lists.delete(name);
    cache.entries -= charge(l);
  }
}

/**
 * What the full-text index holds for a quoted phrase: its tokens through the tables' porter
 * tokenizer (fts3tokenize). A prefix phrase is its own key. Cached per store.
 */
function indexTerms(store: Db, cache: Cache, phrase: string): string {
  let key = cache.keys.get(phrase);
  if (key !== undefined) return key;
  key = phrase.endsWith('*"') ? phrase : stems(store, phrase.slice(1, -1)).join(' ');
  if (cache.keys.size >= 10_000) cache.keys.clear();
  cache.keys.set(phrase, key);
  return key;
}

function stems(store: Db, text: string): string[] {
  const sql = 'SELECT token FROM temp.cm_tokens WHERE input = ?';
  try {
    return store.all<{ token: string }>(sql, [text]).map((r) => r.token);
  } catch {
    // A new connection (after a main-thread export or a reload) has no temp tables yet.
    store.all('CREATE VIRTUAL TABLE IF NOT EXISTS temp.cm_tokens USING fts3tokenize(porter)');
    return store.all<{ token: string }>(sql, [text]).map((r) => r.token);
  }
}

interface Ranked {
  id: number;
  s: number;
}

/** A phrase's matching rows with their parts, ids ascending (the order the index's segments give them in). */
export interface Scored {
  ids: Int32Array;
  s: Float64Array;
}

/** What a list holds of its phrase's matches (TermList's fields less the bookkeeping). */
type Kept = Pick<TermList, 'ids' | 'parts' | 'floor' | 'complete'>;

/**
 * The phrase's matches with after < id <= upTo through SQL, best first (part, then id, both
 * descending), at most `limit`: rows added since a list was made (SQL scores only those; the
 * segments' reader would decode the word's whole doclist), a rare phrase (SEGMENTS_MIN_DF), or a
 * phrase the segments' reader cannot rank.
 */
function rankSql(store: Db, k: KindTable, phrase: string, after: number, upTo: number, limit: number | undefined): Ranked[] {
  bm25Idf.values = [1];
  const part = partSql(store, k);
  const range = [...(after > 0 ? ['docid > ?'] : []), ...(upTo < Infinity ? ['docid <= ?'] : [])];
  return store.all<Ranked>(
    `SELECT docid AS id, ${part} AS s FROM ${k.fts} WHERE ${[`${k.fts} MATCH ?`, ...range].join(' AND ')} ORDER BY s DESC, docid DESC${limit ? ' LIMIT ?' : ''}`,
    [phrase, ...(after > 0 ? [after] : []), ...(upTo < Infinity ? [upTo] : []), ...(limit ? [limit] : [])],
  );
}

/**
 * A one-word phrase's matches scored without SQL calling into JavaScript once a match: the
 * word's rows and hits straight from the index's segments (ftsPostings.ts), scored here with the
 * same expression cm_bm25y uses (the same bits). Undefined when that is not possible: a prefix or
 * a phrase of several words, lengths not read yet (read after start: docLengths.ts), or segments
 * the reader does not understand (one an incremental merge is writing).
 */
export function scoreFromSegments(store: Db, k: KindTable, phrase: string, after: number, upTo: number): Scored | undefined {
  const key = indexTerms(store, cacheOf(store), phrase);
  if (!oneTerm(key)) return undefined;
  const d = docLengths(store, k);
  const avg = d && columnAverages(store, k, d.cols);
  if (!d || !avg) return undefined;
  const found = readTermHits(store, k.fts, key, d.cols, after, upTo);
  if (!found) return undefined;
  const weights = FTS_WEIGHTS[k.weights];
  const s = new Float64Array(found.ids.length);
  for (let i = 0; i < s.length; i++) s[i] = phraseY(found.hits, i * d.cols, weights, 1, d, found.ids[i], avg);
  return { ids: found.ids, s };
}

/** Whether the index terms of a phrase (indexTerms) are one term, what the segments' reader reads: not a prefix, nor several words. */
function oneTerm(key: string): boolean {
  return key !== '' && !key.includes(' ') && !key.endsWith('*"');
}

/**
 * The best `size` of scored rows (part, then id, both descending), still in id order, and the
 * largest part of the rows left out: the size-th best part found by selection, never a sort, so a
 * complete list is the segments' arrays as they are.
 */
function keepBest(scored: Scored, size: number): Kept {
  const { ids, s } = scored;
  const n = ids.length;
  if (n <= size) return { ids, parts: s, floor: 0, complete: true };
  const cut = selectAscending(s.slice(), n - size);
  let above = 0;
  for (let i = 0; i < n; i++) if (s[i] > cut) above++;
  // Rows whose part is the cut's: the highest ids are kept (ids ascending: the last ones).
  const tied = new Uint8Array(n);
  for (let i = n - 1, need = size - above; i >= 0 && need > 0; i--) {
    if (s[i] === cut) {
      tied[i] = 1;
      need--;
    }
  }
  const out = { ids: new Int32Array(size), parts: new Float64Array(size), floor: 0, complete: false };
  for (let i = 0, m = 0; i < n; i++) {
    if (s[i] > cut || tied[i]) {
      out.ids[m] = ids[i];
      out.parts[m++] = s[i];
    } else if (s[i] > out.floor) out.floor = s[i];
  }
  return out;
}

/** A list's rows from rows ranked best first (at most size + 1 of them): the best `size` in id order, and the next one's part as the floor. */
function keepRanked(ranked: Ranked[], size: number): Kept {
  const complete = ranked.length <= size;
  const kept = ranked.slice(0, size).sort((a, b) => a.id - b.id);
  return { ids: Int32Array.from(kept, (r) => r.id), parts: Float64Array.from(kept, (r) => r.s), floor: complete ? 0 : ranked[size].s, complete };
}

/** The value at index `at` of `a` sorted ascending (Hoare's selection; `a` is reordered). */
export function selectAscending(a: Float64Array, at: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // Median of three as the pivot.
    const x = a[lo];
    const y = a[mid];
    const z = a[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (at <= j) hi = j;
    else if (at >= i) lo = i;
    else return a[at];
  }
  return a[at];
}

/** The list with rows added since (ids past its maxId, so they follow its rows) merged in, kept to `size` when it was not complete. */
function merge(list: TermList, added: Ranked[], size: number, maxId: number): TermList {
  if (added.length === 0) return { ...list, maxId };
  const all = concat([list, keepRanked(added, added.length)]);
  if (list.complete) return { ...list, ids: all.ids, parts: all.s, maxId };
  const cut = keepBest(all, Math.max(size, list.ids.length));
  // Rows past the cut had parts up to the old floor or to the first one dropped: the larger bounds both.
  return { ...list, ...cut, floor: Math.max(list.floor, cut.floor), complete: false, maxId };
}

/** Matches ranked per step of a step-wise build. */
export const STEP_ROWS = 2500;

export interface BuildOptions {
  /** Rows the list keeps (default: listSizeFor). */
  size?: number;
  /** A vocabulary term: skipped unless it is its own stem, which no query's key could reach otherwise. */
  ownStem?: boolean;
  /** Matches ranked per step (Infinity: one statement, for a thread with no one to wait on it). */
  stepRows?: number;
}

/**
 * Builds the phrase's list in steps, yielding between them so the caller can let other work run:
 * what the warm-up (listWarmer.ts) and a search meeting a common word without a list (topK.ts) do
 * instead of one long statement. From the segments: the doclist read in one step (the longest at
 * 100k in about 20 ms), its best rows selected in the next. Through SQL: a window of ids of about
 * STEP_ROWS matches a statement, each walking the doclist. The result is the list one statement
 * would make (`rows`: the table's rows now). Returns whether the list was kept: not for an
 * `ownStem` term that is not its own stem, nor when a search kept one meanwhile.
 */
export function* buildInSteps(store: Db, k: KindTable, phrase: string, df: number, rows: number, opts: BuildOptions = {}): Generator<void, boolean> {
  const { ownStem = false, stepRows = STEP_ROWS } = opts;
  // rows comes from the caller: count(*) walks an index (9 ms at 100k), max(id) does not.
  const maxId = Number(store.all<{ m: number | null }>(`SELECT max(id) AS m FROM ${k.table}`)[0]?.m ?? 0);
  const size = opts.size ?? listSizeFor(df, rows);
  const cache = cacheOf(store);
  const terms = indexTerms(store, cache, phrase);
  if (maxId === 0 || (ownStem && terms !== phrase.slice(1, -1))) return false;
  cache.builds++;
  // A word is read from the segments, which need the table's row lengths: read them first when the
  // start-up fill has not yet (at 100k rows: 170 ms, then 35-70 ms a word in most rows, against
  // 250-450 ms for its matches ranked through SQL).
  if (oneTerm(terms) && !docLengths(store, k)) yield* buildDocLengths(store, k, FTS_WEIGHTS[k.weights].length);
  let scored = scoreFromSegments(store, k, phrase, 0, maxId);
  if (scored) yield;
  else {
    // Each window's best size + 1 (in id order, windows in id order) hold the best size + 1 of all.
    const windows: Kept[] = [];
    const span = Math.max(1, Math.ceil((stepRows * maxId) / Math.max(df, 1)));
    for (let lo = 0; lo < maxId; lo += span) {
      windows.push(keepRanked(rankSql(store, k, phrase, lo, Math.min(maxId, lo + span), size + 1), size + 1));
      yield;
    }
    scored = concat(windows);
  }
  const key = `${k.fts}\u0000${terms}`;
  const now = Date.now();
  const had = cache.lists.get(key);
  if (had && had.maxId >= maxId && fresh(had, size, rows, now)) return false;
  install(cache, key, { ...keepBest(scored, size), maxId, rows, at: now });
  return true;
}

/** Rows in id order, one after the other (each part's ids follow the previous part's). */
function concat(parts: Pick<Kept, 'ids' | 'parts'>[]): Scored {
  const n = parts.reduce((a, p) => a + p.ids.length, 0);
  const out: Scored = { ids: new Int32Array(n), s: new Float64Array(n) };
  let at = 0;
  for (const p of parts) {
    out.ids.set(p.ids, at);
    out.s.set(p.parts, at);
    at += p.ids.length;
  }
  return out;
}

/** A list as the warm-up process hands it over (listWarmer.ts): its key and its fields. */
export interface ListEntry {
  key: string;
  list: TermList;
}

/** Every kept list and vocabulary count of a store (the warm-up process's results). */
export function exportLists(store: Db): { lists: ListEntry[]; vocabulary: [string, { df: number; rows: number; at: number }][] } {
  const cache = cacheOf(store);
  return { lists: [...cache.lists].map(([key, list]) => ({ key, list })), vocabulary: [...cache.vocabulary] };
}

/** Takes over lists and counts made elsewhere (the warm-up process); a list a search kept meanwhile stays. */
export function importLists(store: Db, lists: ListEntry[], vocabulary: [string, { df: number; rows: number; at: number }][]): number {
  const cache = cacheOf(store);
  for (const [key, v] of vocabulary) if (!cache.vocabulary.has(key)) cache.vocabulary.set(key, v);
  let taken = 0;
  for (const { key, list } of lists) {
    if (cache.lists.has(key)) continue;
    install(cache, key, list);
    taken++;
  }
  return taken;
}
