// The context a new session starts with: markdown inside <claude-mem-context> (so if it comes back
// in a prompt it is stripped, never stored again). A header, a one-line legend, what the project
// knows (the decisions and the open items of every session's summary, newest first, in at most
// KNOWLEDGE_SHARE of the budget), then the latest activity: a day-grouped
// timeline of recent observations as index rows (`#id time icon title (~read tokens)`), the newest
// few in full, the latest session summary when it is newer than the newest observation, token
// economics, and a footer on fetching more. The output never exceeds opts.tokenBudget estimated
// tokens (characters / 4): rows are chosen newest first while they fit, and a final check drops
// more (and at the very last cuts the text) if anything still overflows.
import { recordRef } from '../../common/contract/refs';
import { branchNote, branchRank, splitForContext, type ContextFreshness } from '../freshness/context';
import type { Freshness } from '../freshness/state';
import { estimateTokens } from '../hash';
import { parseList } from '../store/repos/observations';
import type { Store } from '../store/store';
import { notTeammatesSql } from '../team/labels';
import { clean, dayOf, iconOf, LEGEND, timeOf } from './format';
import type { ContextOptions } from './options';

export const OPEN = '<claude-mem-context>';
export const CLOSE = '</claude-mem-context>';

export interface ContextResult {
  markdown: string;
  tokens: number;
  observations: number;
  summaries: number;
  truncated: boolean;
  /** Stale memories listed apart or dropped (freshness). */
  stale?: number;
}

interface ObsRow {
  id: number;
  session_id: number;
  type: string;
  title: string;
  subtitle: string | null;
  narrative: string | null;
  facts: string;
  created_at: number;
  read_tokens: number;
  work_tokens: number;
  /** author@machine of a record pulled from the team hub. */
  team_by?: string | null;
}

interface SumRow {
  id: number;
  request: string | null;
  investigated: string | null;
  learned: string | null;
  completed: string | null;
  next_steps: string | null;
  created_at: number;
  read_tokens: number;
  work_tokens: number;
}

/** An observation row; `group` (oldest first, row the newest) when a run of reads and searches is folded into one line. */
type Entry = { kind: 'o'; row: ObsRow; group?: ObsRow[] } | { kind: 's'; row: SumRow };

interface Selection {
  entries: Entry[];
  /** Observation ids shown in full. */
  full: Set<number>;
  latest?: SumRow;
  legend: boolean;
  economics: boolean;
  footer: 'full' | 'short' | false;
  /** Stale memories, listed apart with what changed (never in full). */
  stale?: { row: ObsRow; reason: string }[];
  /** What the project knows, from every session's summary, newest first. */
  decisions: Knowledge[];
  open: Knowledge[];
}

/** One line of what the project knows: a summary's decisions or its open items. */
interface Knowledge {
  summaryId: number;
  text: string;
}

interface KnowRow {
  id: number;
  learned: string | null;
  next_steps: string | null;
  created_at: number;
}

/** Header chrome, richest first; the richest that takes at most CHROME_SHARE of the budget is used. */
const CHROME: Pick<Selection, 'legend' | 'economics' | 'footer'>[] = [
  { legend: true, economics: true, footer: 'full' },
  { legend: false, economics: true, footer: 'short' },
  { legend: false, economics: false, footer: 'short' },
  { legend: false, economics: false, footer: false },
];
const CHROME_SHARE = 0.4;

const OBS_COLS = `o.id, o.session_id, o.type, o.title, o.subtitle, o.narrative, o.facts, o.created_at,
  (length(o.title) + ifnull(length(o.subtitle), 0) + ifnull(length(o.narrative), 0) + length(o.facts) + length(o.concepts) + length(o.files_read) + length(o.files_modified) + 3) / 4 AS read_tokens,
  CASE WHEN o.discovery_tokens > 0 THEN o.discovery_tokens ELSE o.input_tokens + o.output_tokens END AS work_tokens,
  (SELECT tr.author || '@' || ifnull(tr.machine, '?') FROM team_records tr WHERE tr.kind = 'observation' AND tr.local_id = o.id AND tr.author IS NOT NULL) AS team_by`;
const SUM_COLS = `s.id, s.request, s.investigated, s.learned, s.completed, s.next_steps, s.created_at,
  (ifnull(length(s.request), 0) + ifnull(length(s.investigated), 0) + ifnull(length(s.learned), 0) + ifnull(length(s.completed), 0)
   + ifnull(length(s.next_steps), 0) + ifnull(length(s.notes), 0) + 3) / 4 AS read_tokens,
  s.input_tokens + s.output_tokens AS work_tokens`;

export function buildContext(store: Pick<Store, 'all' | 'get'>, project: string, opts: ContextOptions, now = Date.now(), fresh?: ContextFreshness): ContextResult {
  const cap = opts.tokenBudget * 4;
  const sessions = store
    .all<{ id: number }>('SELECT id FROM sessions WHERE project = ? ORDER BY started_at DESC, id DESC LIMIT ?', [project, opts.sessions])
    .map((r) => r.id);
  const sessionList = JSON.stringify(sessions);
  // Quiet notes (noise: worker/compression/triage.ts) are searchable but never injected.
  const where = ['o.project = ?', 'o.session_id IN (SELECT value FROM json_each(?))', 'o.quiet = 0'];
  const params: (string | number)[] = [project, sessionList];
  if (opts.types.length > 0) {
    where.push('o.type IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(opts.types));
  }
  if (opts.concepts.length > 0) {
    where.push('EXISTS (SELECT 1 FROM json_each(o.concepts) j WHERE lower(j.value) IN (SELECT value FROM json_each(?)))');
    params.push(JSON.stringify(opts.concepts));
  }
  if (opts.excludeTeammates) where.push(notTeammatesSql('observation', 'o'));
  let observations =
    opts.observations > 0
      ? store.all<ObsRow>(`SELECT ${OBS_COLS} FROM observations o WHERE ${where.join(' AND ')} ORDER BY o.created_at DESC, o.id DESC LIMIT ?`, [...params, opts.observations])
      : [];
  const summaries = store.all<SumRow>(
    `SELECT ${SUM_COLS} FROM session_summaries s WHERE s.project = ? AND s.session_id IN (SELECT value FROM json_each(?))${opts.excludeTeammates ? ` AND ${notTeammatesSql('summary', 's')}` : ''} ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
    [project, sessionList, opts.sessions],
  );
  // What the project knows: every session's decisions and open items (not only the recent sessions').
  const known = store.all<KnowRow>(
    `SELECT s.id, s.learned, s.next_steps, s.created_at FROM session_summaries s WHERE s.project = ?${opts.excludeTeammates ? ` AND ${notTeammatesSql('summary', 's')}` : ''}
       AND (s.learned IS NOT NULL OR s.next_steps IS NOT NULL) ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
    [project, MAX_KNOWN],
  );
  const total = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations WHERE project = ?', [project])?.n ?? 0);
  // Freshness: stale memories apart (or dropped), retired and aged-out ones out, other branches last.
  const split = fresh ? splitForContext(store, observations, fresh, now) : undefined;
  if (split) observations = split.keep;
  const staleRows = (split?.stale ?? []).slice(0, MAX_STALE);

  if (observations.length === 0 && summaries.length === 0 && staleRows.length === 0 && known.length === 0) {
    const markdown = fit(welcome(project, total, now), cap);
    return { markdown, tokens: estimateTokens(markdown), observations: 0, summaries: 0, truncated: false };
  }

  const newestObs = observations[0]?.created_at ?? -Infinity;
  const latest = summaries[0] && summaries[0].created_at > newestObs ? summaries[0] : undefined;
  // Candidates newest first: observations and the summaries inside their time span.
  const oldestObs = observations[observations.length - 1]?.created_at ?? Infinity;
  const candidates: Entry[] = [
    ...fold(observations),
    ...summaries.filter((s) => s !== latest && s.created_at >= oldestObs).map((row): Entry => ({ kind: 's', row })),
  ].sort((a, b) => rank(a) - rank(b) || b.row.created_at - a.row.created_at || b.row.id - a.row.id);

  const ctx: RenderContext = { project, now, total, opts, budget: opts.tokenBudget, info: split?.info };
  const chrome = CHROME.find((c) => render(ctx, { entries: [], full: new Set(), decisions: [], open: [], ...c }).length <= cap * CHROME_SHARE) ?? CHROME[CHROME.length - 1];
  const sel: Selection = { entries: [], full: new Set(), latest, ...chrome, stale: staleRows, decisions: [], open: [] };
  // Greedy, newest first: rows while they fit, then the newest few in full.
  const reserve = render(ctx, { ...sel, latest: undefined }).length;
  let used = reserve;
  if (latest) {
    const block = summaryBlock(latest, ctx).length;
    if (used + block <= cap) used += block;
    else sel.latest = undefined;
  }
  // What the project knows, newest session first, while it fits in its share.
  const knowCap = Math.min(cap, used + cap * KNOWLEDGE_SHARE);
  const seen = new Set<string>();
  for (const k of known) {
    for (const [list, raw, heading] of [
      [sel.decisions, k.learned, DECISIONS_HEADING],
      [sel.open, k.next_steps, OPEN_HEADING],
    ] as const) {
      const text = raw ? clean(raw, list === sel.decisions ? DECISION_CHARS : OPEN_CHARS) : '';
      if (!text || seen.has(text.toLowerCase())) continue;
      const cost = knowledgeLine({ summaryId: k.id, text }).length + 1 + (list.length === 0 ? heading.length + 1 : 0);
      if (used + cost > knowCap) continue;
      used += cost;
      seen.add(text.toLowerCase());
      list.push({ summaryId: k.id, text });
    }
  }
  const days = new Set<string>();
  for (const e of candidates) {
    const day = dayOf(e.row.created_at);
    const cost = rowLine(e, ctx).length + 1 + (days.has(day) ? 0 : dayHeading(day).length);
    if (used + cost > cap) break;
    used += cost;
    days.add(day);
    sel.entries.push(e);
  }
  for (const e of sel.entries) {
    if (sel.full.size >= opts.fullCount) break;
    if (e.kind !== 'o' || e.group) continue;
    const cost = details(e.row, ctx).length;
    if (cost === 0) continue;
    if (used + cost > cap) continue;
    used += cost;
    sel.full.add(e.row.id);
  }

  // Exact check: whatever the estimates missed is dropped here, oldest rows first.
  let text = render(ctx, sel);
  let truncated = sel.entries.length < candidates.length || (latest !== undefined && sel.latest === undefined);
  while (text.length > cap) {
    truncated = true;
    if (sel.full.size > 0) sel.full.delete([...sel.full].pop() as number);
    else if (sel.stale && sel.stale.length > 0) sel.stale.pop();
    else if (sel.entries.length > 0) sel.entries.pop();
    else if (sel.open.length > 0 || sel.decisions.length > 0) (sel.open.length >= sel.decisions.length ? sel.open : sel.decisions).pop();
    else if (sel.latest) sel.latest = undefined;
    else if (sel.legend) sel.legend = false;
    else if (sel.economics) sel.economics = false;
    else if (sel.footer === 'full') sel.footer = 'short';
    else if (sel.footer) sel.footer = false;
    else {
      text = fit(text, cap);
      break;
    }
    text = render(ctx, sel);
  }
  const shownObs = sel.entries.reduce((n, e) => n + (e.kind === 'o' ? (e.group?.length ?? 1) : 0), 0);
  const shownSums = sel.entries.filter((e) => e.kind === 's').length + (sel.latest ? 1 : 0);
  const stale = split ? [...split.info.values()].filter((f) => f.status === 'stale').length : undefined;
  return { markdown: text, tokens: estimateTokens(text), observations: shownObs, summaries: shownSums, truncated, ...(stale !== undefined ? { stale } : {}) };

  function rank(e: Entry): number {
    return e.kind === 'o' && split && fresh ? branchRank(split.info, e.row.id, fresh) : 0;
  }
}

const LOOK = /^(Read |Searched for |Searched the web for )/;
const TEST_RUN = /^Ran `([^`]*)`.*: (?:\d+ failed, )?\d+ passed/;

/**
 * The timeline's observations (newest first) with the noise folded: a run of two or more reads and
 * searches of one session is one line, and of repeated runs of one test command in a row only the
 * first failing run and the last run stay. Stored records are untouched; only the listing folds.
 */
function fold(rows: ObsRow[]): Entry[] {
  const asc = [...rows].reverse();
  const kept: ObsRow[] = [];
  for (let i = 0; i < asc.length; i++) {
    const m = TEST_RUN.exec(asc[i].title);
    if (!m) {
      kept.push(asc[i]);
      continue;
    }
    let j = i;
    while (j + 1 < asc.length && asc[j + 1].session_id === asc[i].session_id && TEST_RUN.exec(asc[j + 1].title)?.[1] === m[1]) j++;
    const run = asc.slice(i, j + 1);
    const firstFail = run.find((r) => / \d+ failed/.test(r.title));
    for (const r of run) if (r === run[run.length - 1] || r === firstFail) kept.push(r);
    i = j;
  }
  const out: Entry[] = [];
  for (let i = 0; i < kept.length; i++) {
    let j = i;
    while (LOOK.test(kept[i].type === 'discovery' ? kept[i].title : '') && j + 1 < kept.length && kept[j + 1].type === 'discovery' && LOOK.test(kept[j + 1].title) && kept[j + 1].session_id === kept[i].session_id) j++;
    if (j > i) {
      const group = kept.slice(i, j + 1);
      out.push({ kind: 'o', row: group[group.length - 1], group });
      i = j;
    } else out.push({ kind: 'o', row: kept[i] });
  }
  return out.reverse();
}

/** Stale memories listed apart at most. */
const MAX_STALE = 10;
/** Summaries read for what the project knows, newest first. */
const MAX_KNOWN = 200;
/** At most this share of the budget goes to what the project knows; the latest activity gets the rest. */
const KNOWLEDGE_SHARE = 0.6;
const DECISION_CHARS = 480;
const OPEN_CHARS = 360;
const DECISIONS_HEADING = '## Decided (newest first; still in force unless a later line says otherwise)';
const OPEN_HEADING = '## Open items and known problems (newest first)';

function knowledgeLine(k: Knowledge): string {
  return `- ${k.text} (S${k.summaryId})`;
}

interface RenderContext {
  project: string;
  now: number;
  total: number;
  opts: ContextOptions;
  budget: number;
  /** Freshness of the listed observations (branch notes). */
  info?: Map<number, Freshness>;
}

function render(ctx: RenderContext, sel: Selection): string {
  // Token economics quote the output's own size: render until the figure is stable.
  let quoted = ctx.budget;
  let text = '';
  for (let i = 0; i < 5; i++) {
    text = renderOnce(ctx, sel, quoted);
    const actual = estimateTokens(text);
    if (actual === quoted) break;
    quoted = actual;
  }
  return text;
}

function renderOnce(ctx: RenderContext, sel: Selection, readTokens: number): string {
  const out: string[] = [OPEN, `# ${clean(ctx.project, 120)} · recent memory · ${dayOf(ctx.now)} ${timeOf(ctx.now)}`];
  if (sel.legend) out.push(LEGEND);
  if (sel.decisions.length > 0) out.push(DECISIONS_HEADING, ...sel.decisions.map(knowledgeLine));
  if (sel.open.length > 0) out.push(OPEN_HEADING, ...sel.open.map(knowledgeLine));
  if ((sel.decisions.length > 0 || sel.open.length > 0) && sel.entries.length > 0) out.push('', '## Latest activity');
  const shown = [...sel.entries].sort((a, b) => a.row.created_at - b.row.created_at || a.row.id - b.row.id);
  let day = '';
  for (const e of shown) {
    const d = dayOf(e.row.created_at);
    if (d !== day) {
      out.push(dayHeading(d).trimEnd());
      day = d;
    }
    out.push(rowLine(e, ctx));
    if (e.kind === 'o' && !e.group && sel.full.has(e.row.id)) out.push(details(e.row, ctx).trimEnd());
  }
  if (sel.latest) out.push(summaryBlock(sel.latest, ctx, new Set([...sel.decisions, ...sel.open].map((k) => k.summaryId))).trimEnd());
  if (sel.stale && sel.stale.length > 0) {
    out.push('', '## May be stale: a file these cite changed since; check before relying on them');
    for (const s of sel.stale) out.push(`${recordRef('observation', s.row.id)} ${iconOf(s.row.type)} ${clean(s.row.title, 120)} (${clean(s.reason, 160)})`);
  }
  if (sel.economics) {
    const work = shown.reduce((n, e) => n + e.row.work_tokens, 0) + (sel.latest?.work_tokens ?? 0);
    out.push(
      '',
      work > 0
        ? `Token economics: reading this costs ~${readTokens} tokens; the work it records took ~${work} tokens${work > readTokens ? ` (${Math.round((1 - readTokens / work) * 100)}% saved)` : ''}.`
        : `Token economics: reading this costs ~${readTokens} tokens.`,
    );
  }
  const n = shown.reduce((k, e) => k + (e.kind === 'o' ? (e.group?.length ?? 1) : 0), 0);
  if (sel.footer === 'full') {
    out.push(
      `Showing ${n} of ${ctx.total} observations. More: search_memory (ids and titles), get_memory_timeline (around an id), get_memories (full records by id) — memory tools of claude-mem, or GET /api/search, GET /api/timeline, POST /api/observations/batch.`,
    );
  } else if (sel.footer === 'short') {
    out.push(`${n} of ${ctx.total} shown; more via search_memory, get_memory_timeline, get_memories.`);
  }
  out.push(CLOSE);
  return out.join('\n');
}

function dayHeading(day: string): string {
  return `\n## ${day}\n`;
}

function rowLine(e: Entry, ctx: RenderContext): string {
  if (e.kind === 'o' && e.group) {
    const g = e.group;
    const read = [...new Set(g.filter((r) => r.title.startsWith('Read ')).map((r) => r.title.slice(5)))];
    const other = [...new Set(g.filter((r) => !r.title.startsWith('Read ')).map((r) => r.title.replace(/^Searched for /, '')))];
    const parts = [...(read.length ? [`read ${read.join(', ')}`] : []), ...(other.length ? [`searched for ${other.join(', ')}`] : [])];
    const tokens = g.reduce((n, r) => n + r.read_tokens, 0);
    return `${recordRef('observation', g[0].id)}–${recordRef('observation', g[g.length - 1].id)} ${timeOf(g[0].created_at)} ${iconOf('discovery')} ${clean(`Looked around: ${parts.join('; ')}`, 200)} (~${tokens}t)`;
  }
  if (e.kind === 'o') {
    const r = e.row;
    return `${recordRef('observation', r.id)} ${timeOf(r.created_at)} ${iconOf(r.type)} ${clean(r.title, 140)}${r.team_by ? ` [${clean(r.team_by, 60)}]` : ''} (~${r.read_tokens}t)${branchNote(ctx.info, r.id)}`;
  }
  const s = e.row;
  void ctx;
  return `${recordRef('summary', s.id)} ${timeOf(s.created_at)} ${iconOf('summary')} ${clean(s.request || s.completed || s.learned || 'session summary', 140)} (~${s.read_tokens}t)`;
}

function details(r: ObsRow, ctx: RenderContext): string {
  const lines: string[] = [];
  if (r.subtitle) lines.push(`  ${clean(r.subtitle, 200)}`);
  if (r.narrative && ctx.opts.fullNarrativeChars > 0) lines.push(`  ${clean(r.narrative, ctx.opts.fullNarrativeChars)}`);
  for (const f of parseList(r.facts).slice(0, 4)) lines.push(`  - ${clean(f, 200)}`);
  return lines.length ? lines.join('\n') + '\n' : '';
}

function summaryBlock(s: SumRow, ctx: RenderContext, shownAbove: Set<number> = new Set()): string {
  void ctx;
  const above = shownAbove.has(s.id);
  const lines = [`\n## Latest session summary (S${s.id}, ${dayOf(s.created_at)} ${timeOf(s.created_at)})`];
  const field = (label: string, v: string | null) => {
    if (v && v.trim()) lines.push(`**${label}:** ${clean(v, 400)}`);
  };
  field('Asked', s.request);
  field('Investigated', s.investigated);
  if (!above) field('Learned', s.learned);
  field('Completed', s.completed);
  if (!above) field('Next', s.next_steps);
  return lines.join('\n') + '\n';
}

function welcome(project: string, total: number, now: number): string {
  void total;
  return [
    OPEN,
    `# ${clean(project, 120)} · no memory yet · ${dayOf(now)} ${timeOf(now)}`,
    `This is the first session claude-mem has recorded for ${clean(project, 120)}. What happens here (edits, commands, decisions) is compressed into short observations and summarized here when the next session starts. Search them any time with the claude-mem memory tools.`,
    CLOSE,
  ].join('\n');
}

/** Last resort: cut the inside so that the whole, closing tag included, fits. */
function fit(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const inner = text.slice(0, Math.max(0, cap - CLOSE.length - 2)).trimEnd();
  return `${inner}…\n${CLOSE}`.slice(-cap);
}
