// The tolerant reply parser: finds <observation> and <summary> XML wherever the model put it
// (code fences, prose around it, several in one reply, truncated or unclosed tags), normalises
// types and concepts against the taxonomy, and classifies replies that hold no XML at all.
import type { ObservationContent, SummaryContent } from '../../common/contract';
import { cleanIncoming } from '../../common/privacy/incoming';
import { stripPrivate } from '../../common/privacy/tags';
import { CONCEPT_NAMES, TAXONOMY, TYPE_NAMES } from './taxonomy';

/** What a reply with no usable XML was: nothing to say, chatter, or a provider problem in prose. */
export type ProseKind = 'empty' | 'idle' | 'prose' | 'quota' | 'auth';

/** filesModified is the model's word only: the caller keeps what the tool uses' evidence confirms. */
export interface ParsedObservation extends ObservationContent {
  /** 1-based numbers of the tool uses the observation says it covers (empty when not said). */
  toolUses: number[];
  /** Phrases a later question might use (doc expansion); absent when the model gave none. */
  searchPhrases?: string[];
}

export interface ObservationParse {
  /** observations: at least one kept; skip: the model said nothing is worth recording;
   * malformed: XML was there but nothing usable survived; otherwise the prose class. */
  kind: 'observations' | 'skip' | 'malformed' | ProseKind;
  observations: ParsedObservation[];
  /** Observations dropped for having no title, narrative, facts or concepts. */
  dropped: number;
  warnings: string[];
  skipReason?: string;
}

export type ParsedSummary = SummaryContent;

export interface SummaryParse {
  kind: 'summary' | 'skip' | 'malformed' | ProseKind;
  /** null for skip (a valid empty summary) and for anything but 'summary'. */
  summary: ParsedSummary | null;
  warnings: string[];
  skipReason?: string;
}

// ---- text helpers -----------------------------------------------------------------------

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' };

export function decodeEntities(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)(\]\]>|$)/g, (_m, body: string) => body)
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    });
}

/** Text content: tags removed, entities decoded, whitespace trimmed (newlines kept). */
function textOf(s: string): string {
  // CDATA is literal; elsewhere tags go and entities are decoded.
  const parts = s.split(/(<!\[CDATA\[[\s\S]*?(?:\]\]>|$))/);
  return parts
    .map((p, i) => (i % 2 === 1 ? p.replace(/^<!\[CDATA\[/, '').replace(/\]\]>$/, '') : decodeEntities(p.replace(/<\/?[a-zA-Z_][\w.-]*\b[^>]*>/g, ''))))
    .join('')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s/>]+))`, 'i').exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '').trim() : undefined;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Inner text of the first <name> element in body. An unclosed element runs to the next tag
 * that is not one of its own children (or the end), so a truncated reply still yields its fields.
 */
function element(body: string, name: string, children: string[] = []): string | undefined {
  const n = escapeRe(name);
  const closed = new RegExp(`<${n}\\b[^>]*?(?<!/)>([\\s\\S]*?)</${n}\\s*>`, 'i').exec(body);
  if (closed) return closed[1];
  const open = new RegExp(`<${n}\\b[^>]*?(?<!/)>`, 'i').exec(body);
  if (!open) return undefined;
  const rest = body.slice(open.index + open[0].length);
  const allowed = children.map(escapeRe).join('|');
  const stop = new RegExp(allowed ? `<(?!/?(?:${allowed})\\b)/?[a-zA-Z_]` : '</?[a-zA-Z_]').exec(rest);
  return stop ? rest.slice(0, stop.index) : rest;
}

/** List items: <child> elements when present, else lines (bullets and numbering removed). */
function list(body: string, container: string, child: string, splitCommas: boolean): string[] {
  const inner = element(body, container, [child]);
  if (inner === undefined) return [];
  const items: string[] = [];
  const re = new RegExp(`<${escapeRe(child)}\\b[^>]*>([\\s\\S]*?)(?:</${escapeRe(child)}\\s*>|(?=<${escapeRe(child)}\\b)|$)`, 'gi');
  for (let m = re.exec(inner); m; m = re.exec(inner)) items.push(textOf(m[1]));
  const raw = items.length > 0 ? items : textOf(inner).split(splitCommas ? /[\n,;]/ : /\n/);
  const out: string[] = [];
  for (const item of raw) {
    const t = item.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    if (t !== '' && !out.includes(t)) out.push(t);
  }
  return out;
}

function field(body: string, name: string): string | null {
  const inner = element(body, name);
  if (inner === undefined) return null;
  const t = textOf(inner);
  return t === '' ? null : t;
}

// ---- normalisation ----------------------------------------------------------------------

const TYPE_ALIASES: Record<string, string> = {
  bug: 'bugfix', bug_fix: 'bugfix', fix: 'bugfix', bugfixes: 'bugfix',
  features: 'feature', new_feature: 'feature', enhancement: 'feature',
  refactoring: 'refactor', changes: 'change', modification: 'change',
  discoveries: 'discovery', learning: 'discovery', investigation: 'discovery',
  decisions: 'decision', design_decision: 'decision',
  security: 'security_note', securityalert: 'security_alert', securitynote: 'security_note',
};

const CONCEPT_ALIASES: Record<string, string> = {
  'how-it-work': 'how-it-works', 'how-things-work': 'how-it-works',
  'why-exists': 'why-it-exists', 'why-it-exist': 'why-it-exists',
  'what-was-changed': 'what-changed', 'what-changes': 'what-changed',
  'problem-and-solution': 'problem-solution', 'problem/solution': 'problem-solution',
  gotchas: 'gotcha', patterns: 'pattern', tradeoff: 'trade-off', tradeoffs: 'trade-off', 'trade-offs': 'trade-off',
};

/** "gotcha: long text", "Bug Fix (minor)", "- pattern" -> the bare label. */
function label(raw: string): string {
  return raw
    .trim()
    .replace(/^[-*•\s]+/, '')
    .split(/\s*(?::|\s[-–—]\s|\(|\n)/)[0]
    .trim()
    .toLowerCase();
}

export function normalizeType(raw: string | null | undefined, warnings: string[]): string {
  const l = raw ? label(raw).replace(/[\s-]+/g, '_') : '';
  if (l === '') {
    warnings.push(`observation without a type; using ${TAXONOMY.defaultType}`);
    return TAXONOMY.defaultType;
  }
  const t = TYPE_ALIASES[l] ?? l;
  if (!(TYPE_NAMES as string[]).includes(t)) warnings.push(`unknown observation type "${oneLine(t, 40)}" kept`);
  return oneLine(t, 40);
}

export function normalizeConcept(raw: string): string {
  const l = label(raw).replace(/[\s_]+/g, '-');
  return oneLine(CONCEPT_ALIASES[l] ?? l, 40);
}

export function normalizeConcepts(raw: string[], warnings: string[]): string[] {
  const out: string[] = [];
  for (const r of raw) {
    const c = normalizeConcept(r);
    if (c === '' || out.includes(c)) continue;
    if (!(CONCEPT_NAMES as string[]).includes(c)) warnings.push(`unknown concept "${c}" kept`);
    out.push(c);
  }
  return out;
}

function numbers(raw: string | null | undefined): number[] {
  if (!raw) return [];
  const out: number[] = [];
  for (const m of raw.matchAll(/\d+(?:\s*-\s*\d+)?/g)) {
    const [a, b] = m[0].split('-').map((x) => Number(x.trim()));
    for (let n = a; n <= (b ?? a) && n - a < 200; n++) if (n > 0 && !out.includes(n)) out.push(n);
  }
  return out;
}

// ---- classification of prose ------------------------------------------------------------

const AUTH_RE = /invalid[\s_-]*(?:x-)?api[\s_-]*key|authentication[\s_]*(?:error|failed)|unauthori[sz]ed|please run \/login|not logged in|(?:oauth|access) token (?:has )?(?:expired|revoked)|invalid bearer|permission[\s_]denied|forbidden/i;
const QUOTA_RE = /credit balance (?:is )?too low|insufficient (?:credits|funds|quota)|quota|usage limit|(?:rate|spend(?:ing)?) limit|limit (?:reached|exceeded)|billing|out of credits|exceeded your (?:current )?(?:quota|limit|plan)/i;
const IDLE_RE = /^(?:no(?:thing)?\b|none\b|n\/a\b|skip(?:ped|ping)?\b|there (?:is|are|was|were) (?:no|nothing)|(?:these|this|the) tool uses? (?:(?:is|are) )?(?:routine|trivial))|nothing (?:notable|significant|noteworthy|new|worth|to (?:record|observe|report|note))|no (?:new |significant |notable |meaningful |noteworthy )?(?:observations?|findings|changes|learnings?)\b/i;

/** Classifies a reply that holds no usable XML. Provider problems are only looked for in short replies. */
export function classifyProse(text: string): ProseKind {
  const t = text.replace(/```[a-z]*\n?|```/gi, '').trim();
  if (t === '') return 'empty';
  if (t.length <= 600) {
    if (AUTH_RE.test(t)) return 'auth';
    if (QUOTA_RE.test(t)) return 'quota';
  }
  if (t.length <= 400 && IDLE_RE.test(t)) return 'idle';
  return 'prose';
}

// ---- observations -----------------------------------------------------------------------

const OBS_OPEN = /<observation\b([^>]*?)(\/?)>/gi;
const FIELD_TAGS = /<(?:title|narrative|facts|subtitle)\b/i;
const SKIP_RE = /<(skip|skip_observations?|no_observations?)\b([^>]*)\/?>|<observations\b[^>]*\/>|<observations\b[^>]*>\s*<\/observations\s*>/i;

function bodies(text: string): { attrs: string; body: string }[] {
  const opens: { index: number; end: number; attrs: string; selfClosing: boolean }[] = [];
  for (let m = OBS_OPEN.exec(text); m; m = OBS_OPEN.exec(text)) opens.push({ index: m.index, end: m.index + m[0].length, attrs: m[1], selfClosing: m[2] === '/' });
  OBS_OPEN.lastIndex = 0;
  const out: { attrs: string; body: string }[] = [];
  opens.forEach((o, i) => {
    if (o.selfClosing) return;
    const limit = i + 1 < opens.length ? opens[i + 1].index : text.length;
    const segment = text.slice(o.end, limit);
    const close = /<\/observation\s*>/i.exec(segment);
    out.push({ attrs: o.attrs, body: close ? segment.slice(0, close.index) : segment });
  });
  return out;
}

function parseOne(attrs: string, body: string, warnings: string[]): ParsedObservation | undefined {
  const facts = list(body, 'facts', 'fact', false);
  const concepts = normalizeConcepts(list(body, 'concepts', 'concept', true), warnings);
  const narrative = field(body, 'narrative');
  const subtitle = field(body, 'subtitle');
  let title = field(body, 'title');
  if (!title && !narrative && facts.length === 0 && concepts.length === 0) return undefined;
  if (!title) {
    title = oneLine(subtitle ?? narrative?.split(/(?<=[.!?])\s|\n/)[0] ?? facts[0] ?? concepts.join(', '), 120);
    warnings.push('observation without a title; derived one');
  }
  return {
    type: normalizeType(field(body, 'type') ?? attr(attrs, 'type'), warnings),
    title: oneLine(title, 300),
    subtitle: subtitle ? oneLine(subtitle, 300) : null,
    facts,
    narrative,
    concepts,
    filesRead: list(body, 'files_read', 'file', true),
    filesModified: list(body, 'files_modified', 'file', true),
    toolUses: numbers(field(body, 'tool_uses') ?? attr(attrs, 'tool_uses') ?? attr(attrs, 'uses')),
    ...searchPhrases(body),
  };
}

function searchPhrases(body: string): { searchPhrases?: string[] } {
  const phrases = [...new Set(list(body, 'search_phrases', 'phrase', false).map((p) => oneLine(p, 120)).filter((p) => p !== ''))].slice(0, 8);
  return phrases.length > 0 ? { searchPhrases: phrases } : {};
}

/** Model replies are bounded by max output tokens; anything far past that is cut before any regex runs. */
export const MAX_REPLY_CHARS = 64 * 1024;

/** The reply cut to its cap, its private blocks stripped before its elements are read (a field's inner tags would hide them from the gate). */
function capReply(text: string, warnings: string[]): string {
  if (text.length > MAX_REPLY_CHARS) {
    warnings.push(`reply of ${text.length} characters cut to ${MAX_REPLY_CHARS} before parsing`);
    text = text.slice(0, MAX_REPLY_CHARS);
  }
  return stripPrivate(text).text;
}

export function parseObservations(reply: string): ObservationParse {
  const warnings: string[] = [];
  const text = capReply(reply, warnings);
  let found = bodies(text);
  // Fields with no <observation> around them: read the whole reply as one observation.
  if (found.length === 0 && FIELD_TAGS.test(text)) {
    warnings.push('observation fields without an <observation> element');
    found = [{ attrs: '', body: text }];
  }
  if (found.length === 0) {
    const skip = SKIP_RE.exec(text);
    if (skip) return { kind: 'skip', observations: [], dropped: 0, warnings, skipReason: attr(skip[2] ?? '', 'reason') };
    if (/<observation\b/i.test(text)) return { kind: 'malformed', observations: [], dropped: 0, warnings };
    return { kind: classifyProse(text), observations: [], dropped: 0, warnings };
  }
  const observations: ParsedObservation[] = [];
  let dropped = 0;
  for (const { attrs, body } of found) {
    const o = parseOne(attrs, body, warnings);
    // A model's reply is outside text too: it passes the same privacy gate as a client's.
    if (o) observations.push(cleanIncoming(o).value);
    else dropped += 1;
  }
  if (dropped > 0) warnings.push(`${dropped} observation(s) with no title, narrative, facts or concepts dropped`);
  return { kind: observations.length > 0 ? 'observations' : 'malformed', observations, dropped, warnings };
}

// ---- summaries --------------------------------------------------------------------------

const SUMMARY_FIELDS = ['request', 'investigated', 'learned', 'completed', 'next_steps', 'notes'] as const;

export function parseSummary(reply: string): SummaryParse {
  const warnings: string[] = [];
  const text = capReply(reply, warnings);
  const skip = /<skip_summary\b([^>]*)\/?>/i.exec(text);
  const body = element(text, 'summary', [...SUMMARY_FIELDS]);
  if (skip && (body === undefined || !SUMMARY_FIELDS.some((f) => field(body, f)))) {
    return { kind: 'skip', summary: null, warnings, skipReason: attr(skip[1], 'reason') };
  }
  const source = body ?? (SUMMARY_FIELDS.some((f) => new RegExp(`<${f}\\b`, 'i').test(text)) ? text : undefined);
  if (source === undefined) return { kind: /<summary\b/i.test(text) ? 'malformed' : classifyProse(text), summary: null, warnings };
  if (body === undefined) warnings.push('summary fields without a <summary> element');
  const s: ParsedSummary = cleanIncoming<ParsedSummary>({
    request: field(source, 'request'),
    investigated: field(source, 'investigated'),
    learned: field(source, 'learned'),
    completed: field(source, 'completed'),
    nextSteps: field(source, 'next_steps') ?? field(source, 'next-steps') ?? field(source, 'nextsteps'),
    notes: field(source, 'notes'),
  }).value;
  if (Object.values(s).every((v) => v === null)) return { kind: 'malformed', summary: null, warnings };
  return { kind: 'summary', summary: s, warnings };
}
