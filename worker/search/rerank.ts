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

/**
 * Substance by record row: the keyword side's lean rows are kept per store (records.ts leanPriors),
 * so a row's substance is worked out once, not for each of the 100 candidates of every search.
 */
const substanceOf = new WeakMap<PriorInfo, number>();

/** 0..1: how much a record says beyond "this happened". */
export function substance(r: PriorInfo): number {
  let s = substanceOf.get(r);
  if (s !== undefined) return s;
  // 0 at no body, ~0.5 at a one-line note (~100 chars), 1 from about 450 characters.
  s = Math.min(1, Math.log1p(r.bodyLength / 40) / Math.log1p(450 / 40));
  if (r.kind === 'observation') {
    const rich = parseList(r.concepts).some((c) => RICH_CONCEPTS.has(c.toLowerCase())) ? 1 : 0;
    s = 0.7 * s + 0.2 * rich + 0.1 * (WEIGHTY_TYPES.has(r.type) ? 1 : 0);
  }
  substanceOf.set(r, s);
  return s;
}

function fits(r: PriorInfo, intent: Intent): boolean {
  switch (intent) {
    case 'why':
      return r.type === 'decision' || parseList(r.concepts).some((c) => WHY_CONCEPTS.has(c.toLowerCase()));
    case 'where':
      return r.kind === 'observation' && (r.filesRead.length > 2 || r.filesModified.length > 2) && (r.type === 'discovery' || parseList(r.concepts).includes('how-it-works') || r.type === 'refactor' || r.type === 'decision');
    case 'outcome':
      return r.kind === 'summary';
  }
}

/** Multiplier for a record: (1 - s + s * substance) * (1 + intentBoost) for each intent it fits. */
export function prior(r: PriorInfo, intents: Set<Intent>, w: PriorWeights): number {
  let p = 1 - w.substancePrior + w.substancePrior * substance(r);
  for (const i of intents) if (fits(r, i)) p *= 1 + w.intentBoost;
  return p;
}

/** A title with digits and spacing folded, so "Ran npm test: 212 passed" and "…213 passed" compare equal. */
export function titleKey(title: string): string {
  let key = titleKeys.get(title);
  if (key === undefined) {
    key = title.toLowerCase().replace(/[0-9]+/g, '#').replace(/\s+/g, ' ').trim();
    // The titles of the candidates searches see: every search compares about 100 of them.
    if (titleKeys.size >= TITLE_KEYS_KEPT) titleKeys.clear();
    titleKeys.set(title, key);
  }
  return key;
}

const TITLE_KEYS_KEPT = 2048;
const titleKeys = new Map<string, string>();

/**
 * Near-duplicates step aside: a hit whose title repeats one already ranked above it moves behind
 * every hit with a title not seen yet (order kept otherwise). Five copies of "Renamed cfg to
 * config" answer nothing the first one does not, and they would fill the page.
 */
export function demoteDuplicates<T>(hits: T[], title: (h: T) => string | undefined): T[] {
  const seen = new Set<string>();
  const first: T[] = [];
  const later: T[] = [];
  for (const h of hits) {
    const t = title(h);
    if (t === undefined) first.push(h);
    else {
      const key = titleKey(t);
      if (seen.has(key)) later.push(h);
      else {
        seen.add(key);
        first.push(h);
      }
    }
  }
  return later.length === 0 ? hits : [...first, ...later];
}
