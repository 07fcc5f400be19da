// Plain-text rendering of memory rows for the terminal and the MCP tools. The rows come from the
// contract's parsers (common/contract/replies.ts), so every field is the one the route declares.
import { recordRef, refFromRoute, type Observation, type SearchRow, type TimelineItem } from '../common/contract';

export type Row = SearchRow | TimelineItem;

const s = (v: string | null | undefined): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** Local "YYYY-MM-DD HH:MM" of an epoch in ms. */
export function when(epoch: number): string {
  if (!Number.isFinite(epoch)) return '';
  const d = new Date(epoch);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The id as the routes spell it: observations by number (#12), summaries S<id>, prompts P<id>. */
export function idOf(r: Pick<Row, 'ref'>): string {
  return refFromRoute(r.ref);
}

/**
 * A memory's freshness mark: a stale, retired or other-branch memory is never shown as plain fact;
 * a teammate's confirm or retire names them.
 */
export function freshnessMark(f: { freshness?: string; staleReason?: string; reason?: string; status?: string; otherBranch?: true; branch?: string | null; decidedBy?: string }): string {
  const status = f.freshness ?? f.status;
  const reason = f.staleReason ?? f.reason;
  if (status === 'retired') return f.decidedBy ? `[RETIRED by ${f.decidedBy}: no longer true]` : '[RETIRED: no longer true]';
  if (f.decidedBy && status !== 'stale' && status !== 'aged') return `[confirmed by ${f.decidedBy}]`;
  if (status === 'stale') return `[MAY BE STALE: ${reason ?? 'a cited file changed'}; verify before relying on it]`;
  if (status === 'aged') return `[MAY BE OUTDATED: ${reason ?? 'not confirmed for long'}]`;
  if (f.otherBranch && f.branch) return `[from branch ${f.branch}]`;
  return '';
}

/** The mark of a memory whose project could not be checked here (its folder is unknown on this machine). */
export const UNVERIFIED = "[UNVERIFIED: its project's files are not here to check]";

/**
 * One index line: `#12 2025-01-02 14:03 [bugfix] Title (project) ~120t`, with its freshness mark;
 * rows of a project in `unverified` that carry no other mark say they were not checked.
 */
export function indexLine(r: Row, unverified?: ReadonlySet<string>): string {
  const title = (s(r.title) ?? '(untitled)').replace(/\s+/g, ' ').slice(0, 160);
  const mark = freshnessMark(r) || (r.kind === 'observation' && unverified?.has(r.project) ? UNVERIFIED : '');
  const parts = [idOf(r), when(r.epoch), r.type ? `[${r.type}]` : '', title, r.project ? `(${r.project})` : '', `~${r.readTokens}t`, mark];
  const anchor = 'anchor' in r && r.anchor === true ? '  <- anchor' : '';
  const snippet = 'snippet' in r ? s(r.snippet) : undefined;
  return parts.filter(Boolean).join(' ') + anchor + (snippet ? `\n    ${snippet.replace(/\s+/g, ' ').slice(0, 240)}` : '');
}

/** A full observation as markdown (unverified: as in indexLine). */
export function fullObservation(o: Observation, unverified?: ReadonlySet<string>): string {
  const out = [`## ${recordRef('observation', o.id)} ${s(o.title) ?? '(untitled)'}`];
  const meta = [s(o.type), s(o.project), when(o.createdAtEpoch), s(o.toolName) ? `tool ${o.toolName}` : undefined].filter(Boolean).join(' · ');
  if (meta) out.push(meta);
  const mark = (o.freshness ? freshnessMark(o.freshness) : '') || (unverified?.has(o.project) ? UNVERIFIED : '');
  if (mark) out.push(mark);
  if (s(o.subtitle)) out.push(String(o.subtitle));
  if (s(o.narrative)) out.push('', String(o.narrative));
  if (o.facts.length) out.push('', 'Facts:', ...o.facts.map((f) => `- ${f}`));
  if (o.concepts.length) out.push('', `Concepts: ${o.concepts.join(', ')}`);
  if (o.filesRead.length) out.push(`Files read: ${o.filesRead.join(', ')}`);
  if (o.filesModified.length) out.push(`Files modified: ${o.filesModified.join(', ')}`);
  return out.join('\n');
}
