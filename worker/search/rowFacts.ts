// Each record's project and time by id, in memory, for the keyword top k (topK.ts): checking a
// project or date filter on a candidate row used to read its content row, and at 100k records
// (a database larger than the page cache) that was a cache miss per candidate: 30-40 ms of a
// project-filtered search. Built once from the (project, created_at) index, which holds both
// next to the rowid (a few MB at 100k, not the whole table), in steps from start (service.ts), then
// extended with the rows added since by rowid. 10 bytes a row: 1 MB at 100k.
//
// Beside them, what the keyword priors read of a row (rerank.ts: its body length, prior bits and
// title key's hash), read for every row after start (fillPriors) and kept by a search that reads a
// row not kept yet, so the pool of candidates a keyword search re-scores reads no content row.
// 7 bytes a row: 0.7 MB at 100k.
//
// Records are added and deleted, never edited (termLists.ts says the same), and ids only grow
// (AUTOINCREMENT), so a row's facts never change: a deleted row is still here, and callers check
// existence in the full-text index's docsize table (topK.ts).
import type { Store } from '../store/store';
import type { SearchFilters } from './params';
import { byTable } from './byTable';
import { type IdentifierParts, SOURCES } from './identifiers';
import { priorRowsAfter, type KindTable, type PriorInfo } from './records';
import { priorFlags, titleHash } from './rerank';

type Db = Pick<Store, 'all'>;

export interface RowFacts {
  /** Rows up to this id are known. */
  maxId: number;
  /** Project code + 1 by id (0: no row). */
  project: Uint16Array;
  /** created_at by id. */
  epoch: Float64Array;
  codes: Map<string, number>;
  /** The row's prior bits (rerank.ts priorFlags) and PRIOR_KEPT once they are kept, by id. */
  priorBits: Uint8Array;
  /** Body length by id, at most 65,535 (the substance prior is flat from 450 characters). */
  bodyLength: Uint16Array;
  /** rerank.ts titleHash of the title, by id. */
  titleHash: Int32Array;
}

/** The bit of RowFacts.priorBits saying that the row's prior facts are kept. */
export const PRIOR_KEPT = 0x80;

const tables = byTable<RowFacts>();
/** Past this many projects the codes would not fit: the filters go back to SQL. */
const MAX_PROJECTS = 0xfffe;

/** Whether `f` filters by nothing but project and dates (what the facts can answer). */
export function factsCanFilter(f: SearchFilters): boolean {
  return f.platform === undefined && f.types === undefined && f.concepts === undefined && f.file === undefined;
}

/** The table's facts, up to date with rows up to `upTo`; undefined when too many projects for the codes. */
export function rowFacts(store: Db, k: KindTable, upTo: number): RowFacts | undefined {
  const known = tables.of(store);
  let facts = known.get(k.table);
  if (!facts) {
    const steps = buildFacts(store, k);
    let r = steps.next();
    while (!r.done) r = steps.next();
    facts = r.value;
    if (!facts) return undefined;
  }
  if (upTo > facts.maxId) {
    // New rows are at the end of the table: a rowid range, not another walk of the index.
    const added = store.all<FactRow>(`SELECT id, project, created_at AS at FROM ${k.table} NOT INDEXED WHERE id > ?`, [facts.maxId]);
    if (!add(facts, added)) {
      known.delete(k.table);
      return undefined;
    }
    facts.maxId = Math.max(facts.maxId, upTo);
  }
  return facts;
}

/** Index entries read per step of a build. */
const STEP_ENTRIES = 5000;

/**
 * Builds a table's facts from its (project, created_at) index, which holds both next to the rowid,
 * a page of entries at a time (about 3 ms each at 100k; the warm-up yields between them,
 * listWarmer.ts), and keeps them unless a search kept its own meanwhile.
 */
export function* buildFacts(store: Db, k: KindTable, step = STEP_ENTRIES): Generator<void, RowFacts | undefined> {
  const facts: RowFacts = { maxId: 0, project: new Uint16Array(0), epoch: new Float64Array(0), codes: new Map(), priorBits: new Uint8Array(0), bodyLength: new Uint16Array(0), titleHash: new Int32Array(0) };
  // A row written between two pages lands anywhere in the index's order, possibly behind the walk:
  // only rows up to the highest id before the walk are known for sure; rowFacts reads the rest by id.
  const before = Number(store.all<{ m: number | null }>(`SELECT max(id) AS m FROM ${k.table}`)[0]?.m ?? 0);
  let after: [string, number, number] = ['', -Infinity, 0];
  for (;;) {
    // Row values walk the index in its order, from where the last page ended (ties on time included).
    const page = store.all<FactRow>(
      `SELECT id, project, created_at AS at FROM ${k.table} INDEXED BY ${k.byProject}
       WHERE (project, created_at, id) > (?, ?, ?) ORDER BY project, created_at, id LIMIT ?`,
      [...after, step],
    );
    if (!add(facts, page)) return undefined;
    if (page.length < step) break;
    const last = page[page.length - 1];
    after = [last.project, last.at, last.id];
    yield;
  }
  facts.maxId = Math.min(facts.maxId, before);
  const known = tables.of(store);
  const kept = known.get(k.table);
  if (kept) return kept;
  known.set(k.table, facts);
  return facts;
}

/** Whether row `id` passes the project and date filters (rows the facts do not know fail). */
export function passes(facts: RowFacts, id: number, f: SearchFilters, code: number | undefined): boolean {
  if (id > facts.maxId || facts.project[id] === 0) return false;
  if (f.project !== undefined && facts.project[id] !== code) return false;
  // The time is read only for a date filter: a query checks every row its lists hold, scattered.
  if (f.from === undefined && f.to === undefined) return true;
  const at = facts.epoch[id];
  return (f.from === undefined || at >= f.from) && (f.to === undefined || at < f.to);
}

/** The code `passes` compares with for f.project (undefined: a project no row has). */
export function projectCode(facts: RowFacts, project: string | undefined): number | undefined {
  if (project === undefined) return undefined;
  const c = facts.codes.get(project);
  return c === undefined ? -1 : c + 1;
}

/** The table's facts if kept (never built here: a search without them reads its rows). */
export function keptFacts(store: Db, k: KindTable): RowFacts | undefined {
  return tables.of(store).get(k.table);
}

/** Whether row `id`'s prior facts are kept. */
export function priorsKept(facts: RowFacts, id: number): boolean {
  return id < facts.priorBits.length && (facts.priorBits[id] & PRIOR_KEPT) !== 0;
}

/** Keeps the rows' prior facts (rows past the known ids are left out). Records are never edited: they stay right. */
export function keepPriors(facts: RowFacts, rows: Iterable<PriorInfo>): void {
  for (const r of rows) {
    if (r.id > facts.maxId || r.id >= facts.priorBits.length) continue;
    facts.priorBits[r.id] = priorFlags(r) | PRIOR_KEPT;
    facts.bodyLength[r.id] = Math.min(r.bodyLength, 0xffff);
    facts.titleHash[r.id] = titleHash(r.title);
  }
}

/** Rows read per step of fillPriors: about 2 ms at 100k records (10 ms for 500), what a request arriving meanwhile waits at most. */
const FILL_ROWS = 100;

/**
 * Keeps every row's prior facts, a page of rows by id a step (the table's facts built first, a page
 * of the index a step, when no one built them yet): the keyword priors' pool then reads no row,
 * where each row read was a page-cache chunk inflated at 100k records. With `parts`, the same read
 * collects the rows' identifiers (identifiers.ts) too: one walk of the table for both.
 */
export function* fillPriors(store: Db, k: KindTable, parts?: IdentifierParts, step = FILL_ROWS): Generator<void, void> {
  if (!keptFacts(store, k) && !(yield* buildFacts(store, k))) return;
  const text = parts && SOURCES.find((s) => s.table === k.table)?.text;
  for (let after = 0; ; ) {
    const rows = priorRowsAfter(store, k.kind, after, step, text);
    if (rows.length === 0) return;
    after = rows[rows.length - 1].id;
    const facts = rowFacts(store, k, after);
    if (!facts) return;
    keepPriors(facts, rows);
    parts?.addRows(k.table, rows);
    if (rows.length < step) return;
    yield;
  }
}

interface FactRow {
  id: number;
  project: string;
  at: number;
}

function add(facts: RowFacts, rows: FactRow[]): boolean {
  let top = facts.maxId;
  for (const r of rows) top = Math.max(top, r.id);
  if (top >= facts.project.length) {
    const size = Math.max(top + 1, Math.ceil(facts.project.length * 1.5), 1024);
    const project = new Uint16Array(size);
    project.set(facts.project);
    const epoch = new Float64Array(size);
    epoch.set(facts.epoch);
    const priorBits = new Uint8Array(size);
    priorBits.set(facts.priorBits);
    const bodyLength = new Uint16Array(size);
    bodyLength.set(facts.bodyLength);
    const hashes = new Int32Array(size);
    hashes.set(facts.titleHash);
    facts.project = project;
    facts.epoch = epoch;
    facts.priorBits = priorBits;
    facts.bodyLength = bodyLength;
    facts.titleHash = hashes;
  }
  for (const r of rows) {
    let c = facts.codes.get(r.project);
    if (c === undefined) {
      if (facts.codes.size >= MAX_PROJECTS) return false;
      facts.codes.set(r.project, (c = facts.codes.size));
    }
    facts.project[r.id] = c + 1;
    facts.epoch[r.id] = r.at;
  }
  facts.maxId = top;
  return true;
}
