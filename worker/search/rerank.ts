// Priors applied to each side's candidates before they are fused, from what the record is and
// what the question asks, never from the words they share (BM25 and the encoder do that):
//   - substance: a note that records a decision, a cause, a trade-off — with a narrative, facts and
//     "why" concepts — outranks a one-line maintenance note (a read, a test run, a bump, a format
//     pass) that happens to share the question's words. Histories are mostly the latter.
//   - intent: "why / why not / instead of" questions favour decisions and trade-offs; "where is …
//     done / which file" questions favour records that name files and explain how things work;
//     "what happened / what got done / still open" questions favour session summaries.
// Keyword scores are multiplied by the prior; cosines get a small additive term (their useful
// range is a few hundredths). Constants and cues are chosen on the development sets only (docs/search.md).
import { parseList, type PriorInfo } from './records';
import type { RankingConstants } from './settings';

export type Intent = 'why' | 'where' | 'outcome';

/** The priors' two weights (settings.ts): substancePrior 0 is no substance prior, intentBoost 0 no intent. */
export type PriorWeights = Pick<RankingConstants, 'substancePrior' | 'intentBoost'>;

// Cues as people type them into chat ("recap of …", "status of …", "what's left", "did the build go
// out", "how come …", "was that on purpose"). A yes/no "did …" asks whether something happened only
// at the start ("why did it fail" does not). "live" (a live map) and "picked up" (a watcher) ask for neither.
const WHY = /\b(why|why not|reason|rationale|instead of|rather than|decid\w*|chose|choose|chosen|pick(ed)?(?! up)|went with|go with|trade-?offs?|how come|what made (us|you|them|him|her)|on purpose|the point of)\b/;
const WHERE = /\b(where|(which|what) (files?|modules?|packages?|functions?|methods?|class(es)?|components?)|located|lives)\b/;
const OUTCOME = /\b(what (happened|got done|did we (do|finish|get done)|was (done|left|still open))|outcome|still open|left to do|next steps|where did we land|did we ever|how did .* go|recap|status (of|on)|progress (on|with)|(what|anything) (came|come) (out )?of|(what['’]?s|what is|anything|is there anything) (still )?(left|pending|remaining)|follow[- ]?ups?|(where|how) did we end up|how far did we get|^(did|has|have) (we|the|anybody|anyone|somebody|someone)|when did we|did (anybody|anyone|somebody|someone) ever)\b/;

/** What the question asks for, if it says so in a recognisable way. */
export function questionIntents(query: string): Set<Intent> {
  const q = query.trim().toLowerCase();
  const out = new Set<Intent>();
  if (OUTCOME.test(q)) out.add('outcome');
  else if (WHERE.test(q)) out.add('where');
  if (WHY.test(q)) out.add('why');
  return out;
}

const WHY_CONCEPTS = new Set(['trade-off', 'why-it-exists', 'decision', 'rationale']);
const RICH_CONCEPTS = new Set(['trade-off', 'why-it-exists', 'gotcha', 'problem-solution', 'pattern', 'security']);
const WEIGHTY_TYPES = new Set(['decision', 'bugfix', 'security_alert', 'security_note', 'feature', 'discovery']);

/** What the priors read of a record, as bits (priorFlags): kept per row in memory (rowFacts.ts). */
export const RICH = 1;
export const WEIGHTY = 2;
export const FITS_WHY = 4;
export const FITS_WHERE = 8;

/** The record's prior bits: what substance and fits need besides its kind and body length. */
export function priorFlags(r: Pick<PriorInfo, 'kind' | 'type' | 'concepts' | 'filesRead' | 'filesModified'>): number {
  const concepts = r.kind === 'observation' ? parseList(r.concepts) : [];
  let f = 0;
  if (concepts.some((c) => RICH_CONCEPTS.has(c.toLowerCase()))) f |= RICH;
  if (WEIGHTY_TYPES.has(r.type)) f |= WEIGHTY;
  if (r.type === 'decision' || concepts.some((c) => WHY_CONCEPTS.has(c.toLowerCase()))) f |= FITS_WHY;
  if (r.kind === 'observation' && (r.filesRead.length > 2 || r.filesModified.length > 2) && (r.type === 'discovery' || concepts.includes('how-it-works') || r.type === 'refactor' || r.type === 'decision')) f |= FITS_WHERE;
  return f;
}

/** 0..1: how much a record says beyond "this happened". */
export function substance(r: PriorInfo): number {
  return substanceOf(r.kind, r.bodyLength, priorFlags(r));
}

function substanceOf(kind: PriorInfo['kind'], bodyLength: number, flags: number): number {
  // 0 at no body, ~0.5 at a one-line note (~100 chars), 1 from about 450 characters.
  const s = Math.min(1, Math.log1p(bodyLength / 40) / Math.log1p(450 / 40));
  return kind === 'observation' ? 0.7 * s + 0.2 * (flags & RICH ? 1 : 0) + 0.1 * (flags & WEIGHTY ? 1 : 0) : s;
}

function fits(kind: PriorInfo['kind'], flags: number, intent: Intent): boolean {
  switch (intent) {
    case 'why':
      return (flags & FITS_WHY) !== 0;
    case 'where':
      return (flags & FITS_WHERE) !== 0;
    case 'outcome':
      return kind === 'summary';
  }
}

/** Multiplier for a record: (1 - s + s * substance) * (1 + intentBoost) for each intent it fits. */
export function prior(r: PriorInfo, intents: Set<Intent>, w: PriorWeights): number {
  return priorOf(r.kind, r.bodyLength, priorFlags(r), intents, w);
}

/** prior() from what rowFacts.ts keeps of a record: its kind, body length and prior bits. */
export function priorOf(kind: PriorInfo['kind'], bodyLength: number, flags: number, intents: Set<Intent>, w: PriorWeights): number {
  let p = 1 - w.substancePrior + w.substancePrior * substanceOf(kind, bodyLength, flags);
  for (const i of intents) if (fits(kind, flags, i)) p *= 1 + w.intentBoost;
  return p;
}

/** The largest prior any record can get for these intents (priorOf's factors at their largest). */
export function priorBound(intents: Set<Intent>, w: PriorWeights): number {
  // At least 1: a hit whose row is gone keeps its score unscaled (searcher.ts).
  // priorOf's substance factor is at most 1 (substanceOf at 1).
  let p = 1;
  for (let i = 0; i < intents.size; i++) p *= Math.max(1, 1 + w.intentBoost);
  return p;
}

/** A title with digits and spacing folded, so "Ran npm test: 212 passed" and "…213 passed" compare equal. */
export function titleKey(title: string): string {
  let key = titleKeys.get(title);
  if (key === undefined) {
    key = foldTitle(title);
    // The titles of the candidates searches see: every search compares about 100 of them.
    if (titleKeys.size >= TITLE_KEYS_KEPT) titleKeys.clear();
    titleKeys.set(title, key);
  }
  return key;
}

const TITLE_KEYS_KEPT = 2048;
const titleKeys = new Map<string, string>();

function foldTitle(title: string): string {
  return title.toLowerCase().replace(/[0-9]+/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * A 32-bit hash of the title's key (FNV-1a over its UTF-16 units): kept per row in memory
 * (rowFacts.ts). Different hashes mean different keys; equal hashes are checked on the titles.
 */
export function titleHash(title: string): number {
  const key = foldTitle(title);
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * Near-duplicates step aside: a hit whose title repeats one already ranked above it moves behind
 * every hit with a title not seen yet (order kept otherwise). Five copies of "Renamed cfg to
 * config" answer nothing the first one does not, and they would fill the page. keyOf: the hit's
 * titleKey (undefined: never a duplicate).
 */
export function demoteDuplicates<T>(hits: T[], keyOf: (h: T) => string | number | undefined): T[] {
  const seen = new Set<string | number>();
  const first: T[] = [];
  const later: T[] = [];
  for (const h of hits) {
    const key = keyOf(h);
    if (key === undefined) first.push(h);
    else {
      if (seen.has(key)) later.push(h);
      else {
        seen.add(key);
        first.push(h);
      }
    }
  }
  return later.length === 0 ? hits : [...first, ...later];
}
