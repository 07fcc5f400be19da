// What the panel knows and how it changes: replies read with the contract's parsers (a reply that
// does not match fails loudly), the live feed grouped by session, local filters, and token
// economics. No DOM: unit-tested in Node.
import type { Observation, SearchResponse, SearchRow, SessionInfo, StreamEvent, TeamLabel, TimelineItem, TimelineResponse } from '../../common/contract';
import { l10n } from './l10n';

const strOr = (v: unknown, d = ''): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : d);
const numOr = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : d);

/** "alice@laptop" for a pulled record. */
export function teamLabel(t: TeamLabel | undefined): string {
  return t ? `${t.author ?? '?'}@${t.machine ?? '?'}` : '';
}

/** A memory that may not hold any more: 'stale' (a cited file changed) or 'retired' (docs/freshness.md). */
export interface StaleMark {
  status: 'stale' | 'retired';
  reason?: string;
  /** The teammate who retired it (team sync). */
  decidedBy?: string;
}

/** The stale mark of a search row ({freshness:'stale', staleReason, decidedBy}) or a record ({freshness:{status, reason, decidedBy}}). */
export function staleMarkOf(u: { freshness?: unknown; staleReason?: unknown; decidedBy?: unknown }): StaleMark | undefined {
  const f = u.freshness;
  const obj = typeof f === 'object' && f !== null ? (f as { status?: unknown; reason?: unknown; decidedBy?: unknown }) : undefined;
  const status = obj ? obj.status : f;
  if (status !== 'stale' && status !== 'retired') return undefined;
  const reason = obj ? obj.reason : u.staleReason;
  const by = obj ? obj.decidedBy : u.decidedBy;
  return {
    status,
    ...(typeof reason === 'string' && reason ? { reason: reason.slice(0, 300) } : {}),
    ...(status === 'retired' && typeof by === 'string' && by ? { decidedBy: by.slice(0, 100) } : {}),
  };
}

/** "may be stale" / "retired" / "retired by alice", for a badge. */
export function staleLabel(m: StaleMark): string {
  if (m.status === 'stale') return l10n.t('may be stale');
  return m.decidedBy ? l10n.t('retired by {0}', m.decidedBy) : l10n.t('retired');
}

/** A memory a person confirmed still holds (docs/freshness.md): a teammate's confirm names them. */
export interface ConfirmedMark {
  /** The teammate who confirmed it (team sync); absent for the user's own confirm. */
  decidedBy?: string;
}

/**
 * The confirmed mark of a record ({freshness:{status:'confirmed', decidedBy?}}) or a search row (a
 * row has no confirmed status: a teammate's confirm shows as decidedBy on a row with no freshness).
 */
export function confirmedMarkOf(u: { freshness?: unknown; decidedBy?: unknown }): ConfirmedMark | undefined {
  const f = u.freshness;
  const obj = typeof f === 'object' && f !== null ? (f as { status?: unknown; decidedBy?: unknown }) : undefined;
  if (obj ? obj.status !== 'confirmed' : f !== undefined || !u.decidedBy) return undefined;
  const by = obj ? obj.decidedBy : u.decidedBy;
  return typeof by === 'string' && by ? { decidedBy: by.slice(0, 100) } : {};
}

/** "confirmed by alice" / "confirmed", for a badge. */
export function confirmedLabel(m: ConfirmedMark): string {
  return m.decidedBy ? l10n.t('confirmed by {0}', m.decidedBy) : l10n.t('confirmed');
}

/** The stale mark of an observation. */
export function observationStale(o: Observation): StaleMark | undefined {
  return staleMarkOf(o);
}

// ---- search and timeline rows -------------------------------------------------------------

export type RowKind = 'observation' | 'summary' | 'prompt' | 'session';

export interface Row {
  kind: RowKind;
  /** Numeric id in its own table. */
  id: number;
  key: string;
  type: string;
  title: string;
  project: string;
  at: number;
  score?: number;
  readTokens?: number;
  anchor?: boolean;
  /** An excerpt around the matched words, matches in **bold**. */
  snippet?: string;
  sessionId?: number;
  /** Set on records pulled from the team hub. */
  team?: TeamLabel;
  /** Set when the memory may be stale or was retired. */
  stale?: StaleMark;
  /** Set when a person confirmed the memory still holds (never with stale). */
  confirmed?: ConfirmedMark;
}

/** A search or timeline row (already checked by the contract's parser) as the list shows it. */
export function rowOf(u: SearchRow | TimelineItem): Row {
  const title = u.title.trim() || l10n.t('{0} #{1}', u.kind, u.id);
  return {
    kind: u.kind,
    id: u.id,
    key: `${u.kind}:${u.id}`,
    type: u.type,
    title: title.length > 300 ? `${title.slice(0, 299)}…` : title,
    project: u.project,
    at: u.epoch,
    ...('score' in u && u.score !== null ? { score: u.score } : {}),
    readTokens: u.readTokens,
    ...('anchor' in u && u.anchor === true ? { anchor: true } : {}),
    ...('snippet' in u && u.snippet?.trim() ? { snippet: u.snippet.slice(0, 500) } : {}),
    sessionId: u.sessionId,
    ...(u.team ? { team: u.team } : {}),
    ...(staleMarkOf(u) ? { stale: staleMarkOf(u) } : {}),
    ...(confirmedMarkOf(u) ? { confirmed: confirmedMarkOf(u) } : {}),
  };
}

export interface RowList {
  rows: Row[];
  notice?: string;
  /** More rows past these (the search route's paging). */
  hasMore?: boolean;
  /** The mode that produced the rows (e.g. keyword when semantic was unavailable, browse without words). */
  modeUsed?: string;
}

export function searchRows(r: SearchResponse): RowList {
  return { rows: r.items.map(rowOf), ...(r.notice ? { notice: r.notice } : {}), ...(r.hasMore ? { hasMore: true } : {}), modeUsed: r.modeUsed };
}

/** Splits a snippet into plain and **matched** parts. */
export function snippetParts(snippet: string): { text: string; match: boolean }[] {
  const out: { text: string; match: boolean }[] = [];
  const re = /\*\*(.+?)\*\*/g;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > last) out.push({ text: snippet.slice(last, m.index), match: false });
    out.push({ text: m[1], match: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) out.push({ text: snippet.slice(last), match: false });
  return out;
}

/** A timeline: rows oldest first, the anchor marked (by the worker). */
export function timelineRows(r: TimelineResponse): RowList {
  return { rows: r.items.map(rowOf).sort((a, b) => a.at - b.at) };
}

// ---- the live feed ------------------------------------------------------------------------

export interface PromptItem {
  id: number;
  sessionId: number;
  project: string;
  promptNumber: number;
  text: string;
  at: number;
}

export interface SummaryItem {
  id: number;
  sessionId: number;
  project: string;
  request: string | null;
  at: number;
}

export interface SessionLite {
  id: number;
  project: string;
  platform: string;
  status: string;
  startedAt: number;
}

export type FeedEntry =
  | { kind: 'observation'; at: number; obs: Observation }
  | { kind: 'prompt'; at: number; prompt: PromptItem }
  | { kind: 'summary'; at: number; summary: SummaryItem };

export interface SessionGroup {
  sessionId: number;
  session?: SessionLite;
  project: string;
  entries: FeedEntry[];
  lastAt: number;
}

export interface Filters {
  /** Session platform (claude-code, vscode, vscode-agent, …). */
  platform?: string;
  type?: string;
  concept?: string;
  text?: string;
  /** YYYY-MM-DD, inclusive, local time. */
  dateStart?: string;
  dateEnd?: string;
  /** Team memory: "me" for records of this user's own store, or a teammate's name (docs/team.md). */
  author?: string;
}

/** Sessions' platforms, as the filter offers them and the feed names them. */
export const PLATFORM_LABELS: Record<string, string> = {
  vscode: l10n.t('VS Code'),
  'vscode-agent': l10n.t('Copilot agent (VS Code)'),
  'claude-code': l10n.t('Claude Code'),
  'copilot-cli': l10n.t('Copilot CLI'),
  codex: l10n.t('Codex CLI'),
  'gemini-cli': l10n.t('Gemini CLI'),
  manual: l10n.t('Saved by hand'),
  import: l10n.t('Imported'),
};

export function sessionLite(u: SessionInfo): SessionLite {
  const at = Date.parse(u.startedAt);
  return { id: u.id, project: u.project, platform: u.platform, status: u.status, startedAt: Number.isNaN(at) ? 0 : at };
}

/** What the app should do after an event. */
export interface Effect {
  changed: boolean;
  /** Observations to fetch and add. */
  fetch?: number[];
  /** Reload everything (e.g. after an import). */
  reload?: boolean;
  /** Refresh the queue/status figures. */
  status?: boolean;
  /** Refresh the project list. */
  projects?: boolean;
}

function dayStart(d: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(d);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])).getTime() : undefined;
}

export function filtersActive(f: Filters): boolean {
  return Boolean(f.platform || f.type || f.concept || f.text?.trim() || f.dateStart || f.dateEnd || f.author?.trim());
}

function inDates(at: number, f: Filters): boolean {
  const from = f.dateStart ? dayStart(f.dateStart) : undefined;
  const to = f.dateEnd ? dayStart(f.dateEnd) : undefined;
  if (from !== undefined && at < from) return false;
  if (to !== undefined && at >= to + 86_400_000) return false;
  return true;
}

/** The author filter: "me" keeps what was not pulled from the hub, a name keeps that teammate's records. */
export function matchesAuthor(team: Pick<TeamLabel, 'author'> | undefined, f: Filters): boolean {
  const a = f.author?.trim().toLowerCase();
  if (!a) return true;
  if (a === 'me') return team === undefined;
  return team?.author?.toLowerCase() === a;
}

export function matchesObservation(o: Observation, f: Filters): boolean {
  if (f.type && o.type !== f.type) return false;
  if (!matchesAuthor(o.team, f)) return false;
  if (f.concept) {
    const c = f.concept.trim().toLowerCase();
    if (c && !o.concepts.some((x) => x.toLowerCase() === c || x.toLowerCase().includes(c))) return false;
  }
  if (!inDates(o.createdAtEpoch, f)) return false;
  const t = f.text?.trim().toLowerCase();
  if (t) {
    const hay = [o.title, o.subtitle ?? '', o.narrative ?? '', ...o.facts, ...o.concepts, ...o.filesRead, ...o.filesModified, o.type].join('\n').toLowerCase();
    if (!t.split(/\s+/).every((w) => hay.includes(w))) return false;
  }
  return true;
}

function matchesText(text: string, at: number, f: Filters): boolean {
  if (f.type || f.concept) return false; // prompts and summaries have neither
  if (!matchesAuthor(undefined, f)) return false; // the feed's prompts and summaries are this user's
  if (!inDates(at, f)) return false;
  const t = f.text?.trim().toLowerCase();
  return !t || t.split(/\s+/).every((w) => text.toLowerCase().includes(w));
}

export class FeedState {
  readonly observations = new Map<number, Observation>();
  readonly prompts = new Map<number, PromptItem>();
  readonly summaries = new Map<number, SummaryItem>();
  readonly sessions = new Map<number, SessionLite>();
  /** The project shown; undefined for all. */
  project: string | undefined;

  reset(project: string | undefined, observations: Observation[], sessions: SessionLite[]): void {
    this.project = project;
    this.observations.clear();
    this.prompts.clear();
    this.summaries.clear();
    this.sessions.clear();
    for (const s of sessions) this.sessions.set(s.id, s);
    for (const o of observations) this.observations.set(o.id, o);
  }

  /** Prompts and summaries already stored (rows of the search route), so the feed shows them too. */
  addHistory(rows: Row[], notBefore = 0): number {
    let n = 0;
    for (const r of rows) {
      if (r.sessionId === undefined || r.at < notBefore || !this.inScope(r.project)) continue;
      if (r.kind === 'prompt' && !this.prompts.has(r.id)) {
        this.prompts.set(r.id, { id: r.id, sessionId: r.sessionId, project: r.project, promptNumber: 0, text: r.title, at: r.at });
        n++;
      } else if (r.kind === 'summary' && !this.summaries.has(r.id)) {
        this.summaries.set(r.id, { id: r.id, sessionId: r.sessionId, project: r.project, request: r.title, at: r.at });
        n++;
      }
    }
    return n;
  }

  inScope(project: unknown): boolean {
    return this.project === undefined || project === this.project;
  }

  addObservation(o: Observation): boolean {
    if (!this.inScope(o.project)) return false;
    this.observations.set(o.id, o);
    return true;
  }

  removeObservation(id: number): boolean {
    return this.observations.delete(id);
  }

  removeSession(id: number): boolean {
    let changed = this.sessions.delete(id);
    for (const m of [this.observations, this.prompts, this.summaries] as Map<number, { sessionId: number }>[]) {
      for (const [k, v] of m) if (v.sessionId === id) changed = m.delete(k) || changed;
    }
    return changed;
  }

  removeProject(name: string): boolean {
    let changed = false;
    for (const m of [this.sessions, this.observations, this.prompts, this.summaries] as Map<number, { project: string }>[]) {
      for (const [k, v] of m) if (v.project === name) changed = m.delete(k) || changed;
    }
    return changed;
  }

  apply(e: StreamEvent, now = Date.now()): Effect {
    const d = e.data;
    const id = typeof d.id === 'number' ? d.id : undefined;
    const sessionId = typeof d.sessionDbId === 'number' ? d.sessionDbId : undefined;
    const project = strOr(d.project);
    switch (e.event) {
      case 'session_started':
        if (sessionId === undefined || !this.inScope(project)) return { changed: false, projects: true };
        this.sessions.set(sessionId, { id: sessionId, project, platform: strOr(d.platform), status: 'active', startedAt: now });
        return { changed: true, projects: true };
      case 'new_prompt':
        if (id === undefined || sessionId === undefined || !this.inScope(project)) return { changed: false };
        this.prompts.set(id, { id, sessionId, project, promptNumber: numOr(d.promptNumber), text: strOr(d.text), at: now });
        return { changed: true };
      case 'observation_queued':
      case 'queue_changed':
        return { changed: false, status: true };
      case 'new_observation':
        if (id === undefined) return { changed: false, reload: true, status: true, projects: true }; // an import
        if (!this.inScope(project) || this.observations.has(id)) return { changed: false, status: true };
        return { changed: false, fetch: [id], status: true };
      case 'new_summary':
        if (id === undefined || sessionId === undefined || !this.inScope(project)) return { changed: false, status: true };
        this.summaries.set(id, { id, sessionId, project, request: typeof d.request === 'string' ? d.request : null, at: now });
        return { changed: true, status: true };
      case 'session_completed': {
        const s = sessionId === undefined ? undefined : this.sessions.get(sessionId);
        if (!s) return { changed: false };
        s.status = 'completed';
        return { changed: true };
      }
      case 'observation_deleted':
        return { changed: id !== undefined && this.removeObservation(id), status: true };
      case 'session_forgotten':
      case 'project_deleted':
        if (sessionId !== undefined) return { changed: this.removeSession(sessionId), status: true, projects: true };
        return { changed: project !== '' && this.removeProject(project), status: true, projects: true };
    }
    return { changed: false };
  }

  /** The feed, grouped by session (latest activity first), entries newest first. */
  groups(f: Filters = {}): SessionGroup[] {
    const bySession = new Map<number, SessionGroup>();
    const add = (sessionId: number, project: string, entry: FeedEntry) => {
      let g = bySession.get(sessionId);
      if (!g) {
        const session = this.sessions.get(sessionId);
        g = { sessionId, session, project: session?.project ?? project, entries: [], lastAt: 0 };
        bySession.set(sessionId, g);
      }
      g.entries.push(entry);
      g.lastAt = Math.max(g.lastAt, entry.at);
    };
    const platformOk = (sessionId: number) => !f.platform || this.sessions.get(sessionId)?.platform === f.platform;
    for (const o of this.observations.values()) if (platformOk(o.sessionId) && matchesObservation(o, f)) add(o.sessionId, o.project, { kind: 'observation', at: o.createdAtEpoch, obs: o });
    for (const p of this.prompts.values()) if (platformOk(p.sessionId) && matchesText(p.text, p.at, f)) add(p.sessionId, p.project, { kind: 'prompt', at: p.at, prompt: p });
    for (const s of this.summaries.values()) if (platformOk(s.sessionId) && matchesText(s.request ?? '', s.at, f)) add(s.sessionId, s.project, { kind: 'summary', at: s.at, summary: s });
    const groups = [...bySession.values()];
    for (const g of groups) g.entries.sort((a, b) => b.at - a.at || rank(b) - rank(a));
    return groups.sort((a, b) => b.lastAt - a.lastAt);
  }

  /** Concepts seen in the loaded observations, most frequent first (for the concept filter). */
  concepts(limit = 50): string[] {
    const n = new Map<string, number>();
    for (const o of this.observations.values()) for (const c of o.concepts) n.set(c, (n.get(c) ?? 0) + 1);
    return [...n.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit).map(([c]) => c);
  }
}

function rank(e: FeedEntry): number {
  return e.kind === 'observation' ? e.obs.id : e.kind === 'prompt' ? e.prompt.id : e.summary.id;
}

// ---- token economics ----------------------------------------------------------------------

/** Tokens an agent spends reading an observation: about 4 characters a token. */
export function readTokens(o: Observation): number {
  const chars = o.title.length + (o.subtitle?.length ?? 0) + (o.narrative?.length ?? 0) + o.facts.reduce((s, f) => s + f.length, 0) + o.concepts.join(', ').length + 20;
  return Math.ceil(chars / 4);
}

export interface Economics {
  observations: number;
  /** Tokens to read these observations. */
  readTokens: number;
  /** Tokens the work they record took (tool input and output seen). */
  workTokens: number;
  /** Tokens the compression model used to write them. */
  modelTokens: number;
  /** How much smaller reading memory is than redoing the work, in percent (negative: larger). */
  savedPercent?: number;
}

export function economics(list: Iterable<Observation>): Economics {
  const e: Economics = { observations: 0, readTokens: 0, workTokens: 0, modelTokens: 0 };
  for (const o of list) {
    e.observations++;
    e.readTokens += readTokens(o);
    e.workTokens += o.discoveryTokens;
    e.modelTokens += o.inputTokens + o.outputTokens;
  }
  if (e.workTokens > 0) e.savedPercent = Math.round((1 - e.readTokens / e.workTokens) * 100);
  return e;
}
