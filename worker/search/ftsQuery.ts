// Turns whatever a user typed into a safe FTS4 MATCH expression. Nothing of the input's own
// syntax survives: every term is re-emitted as a quoted phrase made of the tokens the index
// holds (ASCII letters, digits and '_', and non-ASCII characters other than the punctuation the
// index reads as spaces, store/ftsText.ts), so quotes,
// AND/OR/NOT/NEAR, column filters, parentheses and stray '*' or '-' can never make MATCH fail.
// Kept: "quoted phrases" and a trailing '*' on a word (prefix search).

import { FTS_SEPARATORS } from '../store/ftsText';

export interface FtsTerm {
  /** Tokens of the phrase, lower case. */
  tokens: string[];
  /** The last token is a prefix. */
  prefix: boolean;
  /** Came from a quoted phrase (kept even when made of stop words). */
  quoted: boolean;
}

export interface FtsQuery {
  terms: FtsTerm[];
  /** Each term as its MATCH phrase, in order. */
  phrases: string[];
  /** Plain words for snippets and highlighting. */
  words: string[];
  /** Per phrase, a factor on its BM25 weight (absent: all 1); expansion terms weigh less. */
  weights?: number[];
  /** How many of the phrases the user typed (the rest are expansions); absent: all. */
  original?: number;
}

/** Words too common to say anything about a memory; dropped unless nothing else is left. */
const STOP = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can could did do does doing done ' +
    'down during each few for from further had has have having he her here hers him his how i if in into is it its itself just me more most my no nor not ' +
    'now of off on once only or other our ours out over own same she should so some such than that the their theirs them then there these they this those ' +
    'through to too under until up very was we were what when where which while who whom why will with would you your yours yourself ' +
    'did does get got make made use used using way ever please tell show find know remember anything something thing things happened ' +
    "i'm i've i'd i'll we're we've we'd we'll you're you've it's that's there's here's what's where's who's how's let's " +
    "don't didn't doesn't can't couldn't won't wouldn't shouldn't isn't aren't wasn't weren't haven't hasn't hadn't"
  ).split(/\s+/),
);

/** A word with an apostrophe inside ("don't", "apple’s"): FTS4 cuts it at the apostrophe. */
const CONTRACTION = /^([A-Za-z]+)['\u2019]([A-Za-z]{1,2})$/;

/**
 * The characters of a token as the index cuts them: FTS4's porter tokenizer keeps '_' inside a
 * token (client_msg_id is one term of the index) and any non-ASCII character, except the dashes,
 * quotes and arrows the index reads as spaces (store/ftsText.ts).
 */
export const TOKEN_CHARS = `A-Za-z0-9_${nonAsciiWordRanges()}`;

/** \u0080-\uffff less the separators, as regular-expression class ranges. */
function nonAsciiWordRanges(): string {
  const hex = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
  const cuts = FTS_SEPARATORS.map((c) => c.charCodeAt(0)).sort((a, b) => a - b);
  let out = '';
  let from = 0x80;
  for (const c of [...cuts, 0x10000]) {
    if (c > from) out += c - 1 > from ? `${hex(from)}-${hex(c - 1)}` : hex(from);
    from = c + 1;
  }
  return out;
}
const TOKEN = new RegExp(`[${TOKEN_CHARS}]+`, 'g');
const PREFIX_END = new RegExp(`[${TOKEN_CHARS}]\\*+$`);
const MAX_TERMS = 16;
const MAX_INPUT = 1000;

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(TOKEN) ?? []).filter((t) => t.length > 0);
}

/**
 * Tokens as the index holds them: FTS4's porter tokenizer folds only ASCII letters to lower case
 * and keeps every other character as written ("Übersicht" stays "Übersicht", "CAFÉ" becomes "cafÉ").
 */
export function indexTokens(text: string): string[] {
  return (text.match(TOKEN) ?? []).map((t) => t.replace(/[A-Z]+/g, (m) => m.toLowerCase()));
}

/** Each non-ASCII letter mapped by `f` where that gives one non-ASCII character (ß stays ß, not SS). */
function mapNonAscii(token: string, f: (c: string) => string): string {
  let out = '';
  for (const c of token) {
    const m = c.charCodeAt(0) >= 0x80 ? f(c) : c;
    out += m.length === c.length && m.charCodeAt(0) >= 0x80 ? m : c;
  }
  return out;
}

/**
 * How a term with non-ASCII letters may stand in the index besides all lower case (the query's
 * own phrase): as typed, capitalised (a German noun, a sentence's first word) and in capitals.
 * Without them "über" never finds "Über", nor "ошибка" "Ошибка", and neither does "Über" typed.
 */
function caseVariants(term: FtsTerm, typed: string): FtsTerm[] {
  if (!term.tokens.some((t) => /[^\x00-\x7f]/.test(t))) return [];
  const asTyped = indexTokens(typed);
  const forms = [
    ...(asTyped.length === term.tokens.length ? [asTyped] : []),
    term.tokens.map((t) => mapNonAscii(t.slice(0, 1), (c) => c.toUpperCase()) + t.slice(1)),
    term.tokens.map((t) => mapNonAscii(t, (c) => c.toUpperCase())),
  ];
  const seen = new Set([term.tokens.join(' ')]);
  const out: FtsTerm[] = [];
  for (const tokens of forms) {
    const key = tokens.join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ ...term, tokens });
  }
  return out;
}

export function isStopWord(token: string): boolean {
  return STOP.has(token);
}

/** Returns undefined when nothing searchable is left (the caller answers with no results). */
export function parseFtsQuery(input: string): FtsQuery | undefined {
  const text = input.length > MAX_INPUT ? input.slice(0, MAX_INPUT) : input;
  const terms: FtsTerm[] = [];
  const stopped = new Set<FtsTerm>();
  const typedAs = new Map<FtsTerm, string>();
  // Split into "quoted phrases" (only balanced pairs) and whitespace-separated chunks.
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const quoted = m[1] !== undefined;
    const chunk = quoted ? m[1] : m[2];
    const word = quoted ? undefined : contraction(chunk);
    const tokens = word && !STOP.has(word) ? [word.slice(0, -2)] : tokenize(chunk);
    if (tokens.length === 0) continue;
    const prefix = !quoted && PREFIX_END.test(chunk) && tokens[tokens.length - 1].length >= 2;
    const term = { tokens, prefix, quoted };
    if (word && STOP.has(word)) stopped.add(term);
    typedAs.set(term, chunk);
    terms.push(term);
  }
  // A stray unbalanced quote is just a separator: the regex above already treats it as part of a chunk.
  const meaningful = terms.filter((t) => !stopped.has(t) && (t.quoted || t.tokens.length > 1 || t.prefix || !isStopWord(t.tokens[0])));
  const kept = dedupe(meaningful.length > 0 ? meaningful : terms).slice(0, MAX_TERMS);
  if (kept.length === 0) return undefined;
  const q: FtsQuery = {
    terms: kept,
    phrases: kept.map(phrase),
    words: [...new Set(kept.flatMap((t) => t.tokens).filter((w) => !isStopWord(w) || kept.length === 1))],
  };
  // Alternatives, like expansions: any may match, none is required, each weighs as the word typed.
  // A variant always holds a capital, so none repeats a typed phrase (all lower case).
  const variants = dedupe(kept.flatMap((t) => caseVariants(t, typedAs.get(t) ?? ''))).slice(0, MAX_TERMS);
  return variants.length === 0 ? q : withExtraTerms(q, variants.map((term) => ({ term, weight: 1 })));
}

/**
 * The query with one-word OR terms appended after what was typed, each weighing `weight` against 1
 * for a typed word (the expansion of identifiers.ts). A word already a phrase is left out.
 */
export function withExtraWords(q: FtsQuery, extra: { word: string; weight: number }[]): FtsQuery {
  return withExtraTerms(q, extra.map((x) => ({ term: { tokens: [x.word], prefix: false, quoted: false }, weight: x.weight })));
}

function withExtraTerms(q: FtsQuery, extra: { term: FtsTerm; weight: number }[]): FtsQuery {
  const fresh = extra.filter((x) => !q.phrases.includes(phrase(x.term)));
  if (fresh.length === 0) return q;
  return {
    ...q,
    terms: [...q.terms, ...fresh.map((x) => x.term)],
    phrases: [...q.phrases, ...fresh.map((x) => phrase(x.term))],
    weights: [...(q.weights ?? q.phrases.map(() => 1)), ...fresh.map((x) => x.weight)],
    original: q.original ?? q.phrases.length,
  };
}

/**
 * An English contraction or possessive, lower case with a plain apostrophe ("don't", "apple's"),
 * or undefined. FTS4 cuts these at the apostrophe, so "don't" would be the phrase "don t", a search
 * term of its own; read whole, it is a stop word, and a possessive looks for its noun.
 */
function contraction(chunk: string): string | undefined {
  const m = CONTRACTION.exec(chunk.replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, ''));
  if (!m) return undefined;
  const word = `${m[1]}'${m[2]}`.toLowerCase();
  return STOP.has(word) || m[2].toLowerCase() === 's' ? word : undefined;
}

function phrase(t: FtsTerm): string {
  return `"${t.tokens.join(' ')}${t.prefix ? '*' : ''}"`;
}

function dedupe(terms: FtsTerm[]): FtsTerm[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = phrase(t);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
