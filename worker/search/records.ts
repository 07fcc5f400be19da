// The three searchable record kinds as compact rows: what a result list shows, what a filter
// checks, and the text a snippet is cut from. One statement per kind, ids passed as a JSON array.
import type { SearchKind, SearchRow, TimelineItem } from '../../common/contract';
import type { Store } from '../store/store';
import type { SearchFilters } from './params';
import { parseList } from '../store/repos/observations';

export { parseList };

export interface RecordInfo {
  kind: SearchKind;
  id: number;
  type: string;
  title: string;
  project: string;
  sessionId: number;
  epoch: number;
  readTokens: number;
  /** Body text for snippets (not the title). */
  body: string;
  /** JSON text lists (observations only; '[]' otherwise). */
  concepts: string;
  filesRead: string;
  filesModified: string;
  /** The session's platform (claude-code, vscode, vscode-agent, …). */
  platform?: string;
}

export interface KindTable {
  kind: SearchKind;
  table: string;
  fts: string;
  /** Weights key of cm_bm25. */
  weights: 'o' | 's' | 'p';
  /** Its (project, created_at) index. */
  byProject: string;
  /** Columns selected as RecordInfo (aliased), from alias c. */
  select: string;
}

/** The record's session platform, for the platform filter and display. */
const PLATFORM = `(SELECT s.platform FROM sessions s WHERE s.id = c.session_id) AS platform`;

const OBS_SELECT = `'observation' AS kind, c.id AS id, c.type AS type, c.title AS title, c.project AS project, c.session_id AS sessionId,
  c.created_at AS epoch,
  (length(c.title) + ifnull(length(c.subtitle), 0) + ifnull(length(c.narrative), 0) + length(c.facts) + length(c.concepts)
    + length(c.files_read) + length(c.files_modified) + 3) / 4 AS readTokens,
  ifnull(c.subtitle, '') || char(10) || ifnull(c.narrative, '') || char(10) || c.facts AS body,
  c.concepts AS concepts, c.files_read AS filesRead, c.files_modified AS filesModified, ${PLATFORM}`;

const SUM_TEXT = `ifnull(c.request, '') || char(10) || ifnull(c.investigated, '') || char(10) || ifnull(c.learned, '') || char(10) || ifnull(c.completed, '')
  || char(10) || ifnull(c.next_steps, '') || char(10) || ifnull(c.notes, '')`;
const SUM_SELECT = `'summary' AS kind, c.id AS id, 'summary' AS type,
  substr(coalesce(nullif(trim(c.request), ''), nullif(trim(c.completed), ''), nullif(trim(c.learned), ''), 'Session summary'), 1, 200) AS title,
  c.project AS project, c.session_id AS sessionId, c.created_at AS epoch,
  (length(${SUM_TEXT}) + 3) / 4 AS readTokens, ${SUM_TEXT} AS body, '[]' AS concepts, '[]' AS filesRead, '[]' AS filesModified, ${PLATFORM}`;

const PROMPT_SELECT = `'prompt' AS kind, c.id AS id, 'prompt' AS type, substr(c.text, 1, 200) AS title, c.project AS project,
  c.session_id AS sessionId, c.created_at AS epoch, (length(c.text) + 3) / 4 AS readTokens, c.text AS body,
  '[]' AS concepts, '[]' AS filesRead, '[]' AS filesModified, ${PLATFORM}`;

/** What the priors (rerank.ts) and the filters read of a record: no body text, only its length. */
export interface PriorInfo {
  kind: SearchKind;
  id: number;
  type: string;
  title: string;
  project: string;
  epoch: number;
  /** Characters of the body a snippet is cut from (RecordInfo.body). */
  bodyLength: number;
  /** The session's platform, for the platform filter. */
  platform?: string;
  concepts: string;
  filesRead: string;
  filesModified: string;
}

/** PRIOR_SELECT has no platform (a lookup in sessions per row): hydratePriors adds it for a platform filter. */
const PRIOR_SELECT: Record<SearchKind, string> = {
  observation: `'observation' AS kind, c.id AS id, c.type AS type, c.title AS title, c.project AS project, c.created_at AS epoch,
    ifnull(length(c.subtitle), 0) + ifnull(length(c.narrative), 0) + length(c.facts) + 2 AS bodyLength,
    c.concepts AS concepts, c.files_read AS filesRead, c.files_modified AS filesModified`,
  summary: `'summary' AS kind, c.id AS id, 'summary' AS type,
    substr(coalesce(nullif(trim(c.request), ''), nullif(trim(c.completed), ''), nullif(trim(c.learned), ''), 'Session summary'), 1, 200) AS title,
    c.project AS project, c.created_at AS epoch, length(${SUM_TEXT}) AS bodyLength, '[]' AS concepts, '[]' AS filesRead, '[]' AS filesModified`,
  prompt: `'prompt' AS kind, c.id AS id, 'prompt' AS type, substr(c.text, 1, 200) AS title, c.project AS project, c.created_at AS epoch, length(c.text) AS bodyLength,
    '[]' AS concepts, '[]' AS filesRead, '[]' AS filesModified`,
};

/**
 * The lean rows the priors need, by id (a keyword pool of 100 costs well under a millisecond).
 * withPlatform: read the session's platform too, for a platform filter still to be applied (the
 * keyword side's ranking applies every filter itself).
 */
export function hydratePriors(store: Pick<Store, 'all'>, kind: SearchKind, ids: number[], withPlatform: boolean): Map<number, PriorInfo> {
  const out = new Map<number, PriorInfo>();
  if (ids.length === 0) return out;
  const select = withPlatform ? `${PRIOR_SELECT[kind]}, ${PLATFORM}` : PRIOR_SELECT[kind];
  const rows = store.all<PriorInfo>(`SELECT ${select} FROM ${KINDS[kind].table} c WHERE c.id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)]);
  for (const r of rows) out.set(r.id, r);
  return out;
}

/** Which of the ids still have a row, asked of the full-text index's small docsize table rather than the content rows. */
export function existingIds(store: Pick<Store, 'all'>, k: KindTable, ids: number[]): Set<number> {
  if (ids.length === 0) return new Set();
  const rows = store.all<{ id: number }>(`SELECT j.value AS id FROM json_each(?) j CROSS JOIN ${k.fts}_docsize d ON d.docid = j.value`, [JSON.stringify(ids)]);
  return new Set(rows.map((r) => r.id));
}

/**
 * The lean rows (hydratePriors without the platform) with ids after `after`, by id, at most `limit`;
 * with `text`, an SQL expression on the table's columns, also that as `text`.
 */
export function priorRowsAfter(store: Pick<Store, 'all'>, kind: SearchKind, after: number, limit: number, text?: string): (PriorInfo & { text?: string })[] {
  const select = text === undefined ? PRIOR_SELECT[kind] : `${PRIOR_SELECT[kind]}, ${text} AS text`;
  return store.all<PriorInfo & { text?: string }>(`SELECT ${select} FROM ${KINDS[kind].table} c WHERE c.id > ? ORDER BY c.id LIMIT ?`, [after, limit]);
}

export function priorInfo(r: RecordInfo): PriorInfo {
  return { kind: r.kind, id: r.id, type: r.type, title: r.title, project: r.project, epoch: r.epoch, bodyLength: r.body.length, concepts: r.concepts, filesRead: r.filesRead, filesModified: r.filesModified, platform: r.platform };
}

export const KINDS: Record<SearchKind, KindTable> = {
  observation: { kind: 'observation', table: 'observations', fts: 'observations_fts', weights: 'o', byProject: 'observations_by_project', select: OBS_SELECT },
  summary: { kind: 'summary', table: 'session_summaries', fts: 'summaries_fts', weights: 's', byProject: 'summaries_by_project', select: SUM_SELECT },
  prompt: { kind: 'prompt', table: 'user_prompts', fts: 'prompts_fts', weights: 'p', byProject: 'prompts_by_project', select: PROMPT_SELECT },
};

export function refOf(kind: SearchKind, id: number): string {
  return kind === 'observation' ? String(id) : kind === 'summary' ? `S${id}` : `P${id}`;
}

/** Records by id (any order, missing ones absent). */
export function hydrate(store: Pick<Store, 'all'>, kind: SearchKind, ids: number[]): Map<number, RecordInfo> {
  const out = new Map<number, RecordInfo>();
  if (ids.length === 0) return out;
  const k = KINDS[kind];
  const rows = store.all<RecordInfo>(`SELECT ${k.select} FROM ${k.table} c WHERE c.id IN (SELECT value FROM json_each(?))`, [JSON.stringify(ids)]);
  for (const r of rows) out.set(r.id, r);
  return out;
}

/** SQL conditions on alias c for the filters (kind-specific ones only for observations). */
export function filterSql(kind: SearchKind, f: SearchFilters): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (f.project !== undefined) {
    where.push('c.project = ?');
    params.push(f.project);
  }
  if (f.platform !== undefined) {
    where.push('c.session_id IN (SELECT id FROM sessions WHERE platform = ?)');
    params.push(f.platform);
  }
  if (f.from !== undefined) {
    where.push('c.created_at >= ?');
    params.push(f.from);
  }
  if (f.to !== undefined) {
    where.push('c.created_at < ?');
    params.push(f.to);
  }
  if (kind === 'observation') {
    if (f.types) {
      where.push('c.type IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(f.types));
    }
    if (f.concepts) {
      where.push('EXISTS (SELECT 1 FROM json_each(c.concepts) j WHERE lower(j.value) IN (SELECT value FROM json_each(?)))');
      params.push(JSON.stringify(f.concepts));
    }
    if (f.file) {
      where.push('(instr(lower(c.files_read), ?) > 0 OR instr(lower(c.files_modified), ?) > 0)');
      const needle = fileNeedle(f.file);
      params.push(needle, needle);
    }
  }
  return { where, params };
}

/** A path as it appears inside the stored JSON text lists, lower case. */
function fileNeedle(file: string): string {
  return JSON.stringify(file.toLowerCase()).slice(1, -1);
}

/** The same filters in JS, for vector hits (which come back without them applied). */
export function matchesFilters(r: Pick<RecordInfo, 'kind' | 'project' | 'epoch' | 'type' | 'concepts' | 'filesRead' | 'filesModified' | 'platform'>, f: SearchFilters): boolean {
  if (!f.kinds.includes(r.kind)) return false;
  if (f.project !== undefined && r.project !== f.project) return false;
  if (f.platform !== undefined && r.platform !== f.platform) return false;
  if (f.from !== undefined && r.epoch < f.from) return false;
  if (f.to !== undefined && r.epoch >= f.to) return false;
  if (f.types && !f.types.includes(r.type)) return false;
  if (f.concepts) {
    const have = parseList(r.concepts).map((c) => c.toLowerCase());
    if (!f.concepts.some((c) => have.includes(c))) return false;
  }
  if (f.file) {
    const needle = fileNeedle(f.file);
    if (!r.filesRead.toLowerCase().includes(needle) && !r.filesModified.toLowerCase().includes(needle)) return false;
  }
  return true;
}


export function toSearchRow(r: RecordInfo, score: number | null, snippet?: string): SearchRow {
  // The timeline item with the score and snippet added, in this order (no copy: one per row of every page).
  const row = toTimelineItem(r) as SearchRow;
  row.score = score === null ? null : Math.round(score * 10000) / 10000;
  if (snippet) row.snippet = snippet;
  return row;
}

export function toTimelineItem(r: RecordInfo): TimelineItem {
  return {
    kind: r.kind,
    id: r.id,
    ref: refOf(r.kind, r.id),
    type: r.type,
    title: oneLine(r.title),
    project: r.project,
    sessionId: r.sessionId,
    ...(r.platform ? { platform: r.platform } : {}),
    time: new Date(r.epoch).toISOString(),
    epoch: r.epoch,
    readTokens: r.readTokens,
  };
}

/** What becomes one space in a one-line title: a run of white space other than a lone space. */
const NOT_ONE_SPACE = /\s\s+|[^\S ]/g;

export function oneLine(s: string): string {
  // The same text as replacing every run, without a new string for a title whose words are one space apart.
  return s.replace(NOT_ONE_SPACE, ' ').trim();
}
