// Identifier parts. The full-text index keeps an identifier
// whole: FTS4's tokenizer keeps '_' inside a token and folds case, so `client_msg_id` and
// `longestStreak` are the single terms client_msg_id and longeststreak, and a question that names
// their parts ("msg id", "longest streak") misses a note that only spells the identifier.
// Rather than a second index (new full-text tables, and every store's index rebuilt), the
// identifiers in the records' text are collected here, by part, and a query word that is one of an
// identifier's parts adds the identifier itself as one more weighted OR term.
//
// Per store, in memory: built from the rows by id, a page at a time in the background after start
// (in the same read as the rows' prior facts: rowFacts.ts fillPriors) and, once that is done,
// caught up with the rows added since on each query (records are added and deleted, never edited,
// and ids only grow). A deleted record's identifiers stay: an extra term that matches nothing
// costs one empty doclist. A part shared by more than PART_CAP identifiers (get, set, id) says
// nothing and expands to nothing.
import type { Store } from '../store/store';
import { isStopWord, withExtraWords, type FtsQuery } from './ftsQuery';
import { stem } from './snippet';

type Db = Pick<Store, 'all'>;

/** snake_case (two or more parts), camelCase, PascalCase and ACRONYMWords (HTTPServer; not URLs). */
const IDENTIFIER = /\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z]{2,}[a-z]{2,}[A-Za-z0-9]*\b/g;
/** A part in more identifiers than this expands to none of them. */
const PART_CAP = 200;
/** Memory bound: past this many identifiers, new ones are not kept (a store full of base64 or generated names). */
const MAX_IDENTIFIERS = 200_000;
/** Longer, or in more parts, is a generated name or an encoded blob, not something a person says. */
const MAX_LENGTH = 64;
const MAX_PARTS = 8;
/** Rows read per page. */
const PAGE_ROWS = 1000;

/** The words of an identifier, lower case, parts under two characters left out. */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_]+/)
    .map((p) => p.toLowerCase())
    .filter((p) => p.length >= 2);
}

/** The text each table contributes, by row (observations with their file lists, which hold file names). */
export const SOURCES: { table: string; text: string }[] = [
  { table: 'observations', text: `coalesce(title,'') || ' ' || coalesce(subtitle,'') || ' ' || coalesce(narrative,'') || ' ' || coalesce(facts,'') || ' ' || coalesce(files_read,'') || ' ' || coalesce(files_modified,'')` },
  { table: 'session_summaries', text: `coalesce(request,'') || ' ' || coalesce(investigated,'') || ' ' || coalesce(learned,'') || ' ' || coalesce(completed,'') || ' ' || coalesce(next_steps,'') || ' ' || coalesce(notes,'')` },
  { table: 'user_prompts', text: `coalesce(text,'')` },
];

interface Expansion {
  /** The identifier as the index spells it (lower case). */
  identifier: string;
  /** Of `weight`: the share of the identifier's parts the query names. */
  weight: number;
}

export class IdentifierParts {
  private readonly maxId = new Map<string, number>();
  /** Part stem -> the identifiers that have it. */
  private readonly byPart = new Map<string, Set<string>>();
  /** Identifier -> its number of parts and the rows it was seen in. */
  private readonly idents = new Map<string, { parts: number; rows: number }>();
  private readonly common = new Set<string>();
  /**
   * Set while the start-up fill reads every row (service.ts): a query then leaves the catching up
   * to it, since the rows a query would read are the fill's, which reads them again for their priors.
   */
  filling = false;

  constructor(private readonly maxIdentifiers = MAX_IDENTIFIERS) {}

  /** Identifiers collected so far (status and tests). */
  get size(): number {
    return this.idents.size;
  }

  /** Collects the identifiers of `text` (one row's). */
  add(text: string): void {
    const seen = new Set<string>();
    for (const m of text.matchAll(IDENTIFIER)) {
      const whole = m[0].toLowerCase();
      if (seen.has(whole) || whole.length > MAX_LENGTH) continue;
      seen.add(whole);
      const known = this.idents.get(whole);
      if (known) {
        known.rows++;
        continue;
      }
      if (this.idents.size >= this.maxIdentifiers) continue;
      const parts = splitIdentifier(m[0]);
      if (parts.length < 2 || parts.length > MAX_PARTS) continue;
      this.idents.set(whole, { parts: parts.length, rows: 1 });
      for (const p of new Set(parts.map(stem))) {
        if (this.common.has(p)) continue;
        let ids = this.byPart.get(p);
        if (!ids) this.byPart.set(p, (ids = new Set()));
        ids.add(whole);
        if (ids.size > PART_CAP) {
          this.common.add(p);
          this.byPart.delete(p);
        }
      }
    }
  }

  /** Reads at most `maxRows` rows not seen yet; true when every table is caught up. */
  catchUp(db: Db, maxRows: number): boolean {
    let budget = maxRows;
    for (const s of SOURCES) {
      for (;;) {
        if (budget <= 0) return false;
        const n = Math.min(PAGE_ROWS, budget);
        const rows = db.all<{ id: number; text: string }>(`SELECT id, ${s.text} AS text FROM ${s.table} WHERE id > ? ORDER BY id LIMIT ?`, [this.maxId.get(s.table) ?? 0, n]);
        this.addRows(s.table, rows);
        budget -= rows.length;
        if (rows.length < n) break;
      }
    }
    return true;
  }

  /**
   * Collects rows of `table` read by id from where this left off or before (rowFacts.ts fillPriors
   * reads them with the prior facts): rows already seen are skipped.
   */
  addRows(table: string, rows: { id: number; text?: string }[]): void {
    const seen = this.maxId.get(table) ?? 0;
    for (const r of rows) if (r.id > seen) this.add(r.text ?? '');
    if (rows.length > 0) this.maxId.set(table, Math.max(seen, rows[rows.length - 1].id));
  }

  /** Identifiers whose parts the words name, best covered first (then the most used), at most `max`. */
  expansions(words: string[], weight: number, max: number): Expansion[] {
    const typed = new Set(words);
    const matched = new Map<string, number>();
    for (const s of new Set(words.filter((w) => w.length >= 2 && !isStopWord(w)).map(stem))) {
      for (const id of this.byPart.get(s) ?? []) if (!typed.has(id)) matched.set(id, (matched.get(id) ?? 0) + 1);
    }
    return [...matched]
      .map(([identifier, m]) => {
        const info = this.idents.get(identifier) ?? { parts: 2, rows: 0 };
        return { identifier, cover: Math.min(1, m / info.parts), used: info.rows };
      })
      .sort((a, b) => b.cover - a.cover || b.used - a.used || (a.identifier < b.identifier ? -1 : 1))
      .slice(0, max)
      .map((x) => ({ identifier: x.identifier, weight: weight * x.cover }));
  }
}

const byStore = new WeakMap<object, IdentifierParts>();

export function identifierPartsOf(store: object): IdentifierParts {
  let p = byStore.get(store);
  if (!p) byStore.set(store, (p = new IdentifierParts()));
  return p;
}

/** The query with the identifiers its typed words name appended as weighted OR terms. */
export function expandIdentifiers(q: FtsQuery, parts: IdentifierParts, weight: number, max: number): FtsQuery {
  if (weight <= 0 || max <= 0) return q;
  const words = q.terms.slice(0, q.original ?? q.phrases.length).flatMap((t) => (t.prefix ? t.tokens.slice(0, -1) : t.tokens));
  return withExtraWords(q, parts.expansions(words, weight, max).map((x) => ({ word: x.identifier, weight: x.weight })));
}
