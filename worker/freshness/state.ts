// Reading freshness: each memory's status (fresh, stale, confirmed, retired, aged out), what changed,
// and its branch relative to the branch a client is on. One statement per table for a list of ids.
import type { CitationInfo, FreshnessStatus, MemoryFreshness } from '../../common/contract';
import type { Store } from '../store/store';
import { untilWrite } from '../store/untilWrite';
import type { FreshnessSettings } from './settings';

type Reader = Pick<Store, 'all' | 'get'>;

/** The branch a client is on and the ones it came from; branch undefined = unknown. */
export interface BranchView {
  branch?: string | null;
  bases?: string[];
}

export interface Freshness {
  status: FreshnessStatus;
  reason?: string;
  branch: string | null;
  otherBranch: boolean;
  replacedBy?: number;
  /** The teammate whose confirm or retire this state came from (team sync). */
  decidedBy?: string;
}

interface CitRow {
  observation_id: number;
  path: string;
  blob: string | null;
  commit_id: string | null;
  branch: string | null;
  state: 'fresh' | 'changed' | 'deleted';
  changed_at: number | null;
  changed_branch: string | null;
  change_kind: string | null;
  moved_from: string | null;
}

interface Meta {
  id: number;
  created_at: number;
  session_branch: string | null;
  status: 'confirmed' | 'retired' | null;
  replaced_by: number | null;
  state_at: number | null;
}

const DAY = 86_400_000;

function isoDay(epoch: number): string {
  return new Date(epoch).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * Whether a citation's verdict holds for a view: a check's verdict belongs to the branch it was made
 * on (a change on feature-b says nothing about main's copy of the file); with no branch known, all do.
 */
export function verdictApplies(c: Pick<CitRow, 'state' | 'changed_branch'>, view: BranchView | undefined): boolean {
  if (c.state === 'fresh') return false;
  return !view?.branch || !c.changed_branch || c.changed_branch === view.branch;
}

export function reasonOf(cites: CitRow[], view?: BranchView): string | undefined {
  const bad = cites.filter((c) => verdictApplies(c, view));
  if (bad.length === 0) return undefined;
  const what = (c: CitRow) => (c.state === 'changed' && c.change_kind ? `changed (${c.change_kind})` : c.state);
  // A file renamed with its content changed: the citation followed it, the memory says both.
  const subject = (c: CitRow) => (c.moved_from && c.state === 'changed' ? `${c.moved_from} renamed to ${c.path} (and changed${c.change_kind ? `, ${c.change_kind}` : ''})` : `${c.path} ${what(c)}`);
  const parts = bad.slice(0, 3).map((c) => `${subject(c)}${c.changed_branch ? ` on ${c.changed_branch}` : ''}${c.changed_at ? ` ${isoDay(c.changed_at)}` : ''}`);
  return parts.join('; ') + (bad.length > 3 ? `; +${bad.length - 3} more` : '');
}

/** The branch a project was last worked on (the newest session that said), with its bases. */
export function lastBranch(db: Reader, project: string): BranchView {
  // Asked by every search of a project: kept until the next write (a copy each time, the caller's to change).
  const r = untilWrite(db, `last branch\u0000${project}`, () =>
    db.get<{ branch: string | null; bases: string }>(
      'SELECT g.branch AS branch, g.bases AS bases FROM session_git g JOIN sessions s ON s.id = g.session_id WHERE s.project = ? AND g.branch IS NOT NULL ORDER BY g.updated_at DESC LIMIT 1',
      [project],
    ),
  );
  return r ? { branch: r.branch, bases: safeList(r.bases) } : {};
}

function safeList(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

interface BranchCitRow extends CitRow {
  v_state: 'changed' | 'deleted' | null;
  v_changed_at: number | null;
  v_change_kind: string | null;
}

/**
 * The citations of ids as a view sees them: with a branch, each citation's verdict on that branch
 * (table citation_verdicts), or a verdict made without a branch (an older client); fresh otherwise.
 * Without a branch, the newest verdict of any branch.
 */
function citationsOf(db: Reader, ids: number[], view?: BranchView): Map<number, CitRow[]> {
  const out = new Map<number, CitRow[]>();
  // No citation at all (nothing recorded from git yet): a lookup, not a join of the ids.
  if (ids.length === 0 || !untilWrite(db, 'any citation', () => db.all('SELECT 1 AS x FROM citations LIMIT 1').length > 0)) return out;
  const branch = view?.branch || null;
  const rows: CitRow[] = branch
    ? db
        .all<BranchCitRow>(
          `SELECT c.observation_id, c.path, c.blob, c.commit_id, c.branch, c.state, c.changed_at, c.changed_branch, c.change_kind, c.moved_from,
                  v.state AS v_state, v.changed_at AS v_changed_at, v.change_kind AS v_change_kind
             FROM citations c LEFT JOIN citation_verdicts v ON v.citation_id = c.id AND v.branch = ?
            WHERE c.observation_id IN (SELECT value FROM json_each(?)) ORDER BY c.id`,
          [branch, JSON.stringify(ids)],
        )
        .map(({ v_state, v_changed_at, v_change_kind, ...c }) => {
          if (v_state) return { ...c, state: v_state, changed_at: v_changed_at, changed_branch: branch, change_kind: v_change_kind };
          if (c.state !== 'fresh' && c.changed_branch === null) return c;
          return { ...c, state: 'fresh' as const, changed_at: null, changed_branch: null, change_kind: null };
        })
    : db.all<CitRow>(
        `SELECT observation_id, path, blob, commit_id, branch, state, changed_at, changed_branch, change_kind, moved_from FROM citations
          WHERE observation_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
        [JSON.stringify(ids)],
      );
  for (const r of rows) {
    const list = out.get(r.observation_id);
    if (list) list.push(r);
    else out.set(r.observation_id, [r]);
  }
  return out;
}

function metaOf(db: Reader, ids: number[]): Map<number, Meta> {
  const out = new Map<number, Meta>();
  if (ids.length === 0) return out;
  const rows = db.all<Meta>(
    `SELECT o.id AS id, o.created_at AS created_at, g.branch AS session_branch, m.status AS status, m.replaced_by AS replaced_by, m.at AS state_at
       FROM observations o LEFT JOIN session_git g ON g.session_id = o.session_id LEFT JOIN memory_state m ON m.observation_id = o.id
      WHERE o.id IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(ids)],
  );
  for (const r of rows) out.set(r.id, r);
  return out;
}

function judge(meta: Meta, cites: CitRow[], view: BranchView, settings: Pick<FreshnessSettings, 'ageOutDays'>, now: number): Freshness {
  const branch = cites.find((c) => c.branch)?.branch ?? meta.session_branch ?? null;
  const scope = view.branch ? new Set([view.branch, ...(view.bases ?? [])]) : undefined;
  const otherBranch = scope !== undefined && branch !== null && !scope.has(branch);
  const base = { branch, otherBranch };
  if (meta.status === 'retired') return { ...base, status: 'retired', ...(meta.replaced_by ? { replacedBy: meta.replaced_by } : {}) };
  const reason = reasonOf(cites, view);
  if (reason) return { ...base, status: 'stale', reason };
  const last = Math.max(meta.created_at, meta.status === 'confirmed' ? (meta.state_at ?? 0) : 0);
  if (settings.ageOutDays > 0 && now - last > settings.ageOutDays * DAY) return { ...base, status: 'aged', reason: `not confirmed for ${Math.floor((now - last) / DAY)} days` };
  return { ...base, status: meta.status === 'confirmed' ? 'confirmed' : 'fresh' };
}

/** Freshness of each given observation id (missing ids are absent). */
export function freshnessOf(db: Reader, ids: number[], view: BranchView, settings: Pick<FreshnessSettings, 'ageOutDays'>, now = Date.now()): Map<number, Freshness> {
  const cites = citationsOf(db, ids, view);
  const out = new Map<number, Freshness>();
  const metas = metaOf(db, ids);
  const by = decidedByOf(db, [...metas.values()].filter((m) => m.status).map((m) => m.id));
  for (const [id, meta] of metas) {
    const f = judge(meta, cites.get(id) ?? [], view, settings, now);
    const who = by.get(id);
    out.set(id, who && (f.status === 'retired' || f.status === 'confirmed') ? { ...f, decidedBy: who } : f);
  }
  return out;
}

/** Who decided each memory's state, for the ones a teammate's correction decided (team sync keeps it in team_meta). */
function decidedByOf(db: Reader, ids: number[]): Map<number, string> {
  if (ids.length === 0) return new Map();
  const rows = db.all<{ key: string; value: string }>(`SELECT key, value FROM team_meta WHERE key IN (SELECT 'decided_by:' || value FROM json_each(?))`, [JSON.stringify(ids)]);
  return new Map(rows.filter((r) => r.value).map((r) => [Number(r.key.slice('decided_by:'.length)), r.value]));
}

function toCitation(c: CitRow): CitationInfo {
  return {
    path: c.path,
    blob: c.blob,
    commit: c.commit_id,
    branch: c.branch,
    state: c.state,
    changedAt: c.changed_at === null ? null : new Date(c.changed_at).toISOString(),
    changedOnBranch: c.changed_branch,
    movedFrom: c.moved_from,
  };
}

/** Full freshness records (with citations) for ids, in the order given. */
export function memoryFreshness(db: Reader, ids: number[], view: BranchView, settings: Pick<FreshnessSettings, 'ageOutDays'>, now = Date.now()): MemoryFreshness[] {
  if (ids.length === 0) return [];
  const cites = citationsOf(db, ids, view);
  const metas = metaOf(db, ids);
  const rows = db.all<{ id: number; title: string; type: string; project: string; created_at: number }>(
    'SELECT id, title, type, project, created_at FROM observations WHERE id IN (SELECT value FROM json_each(?))',
    [JSON.stringify(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: MemoryFreshness[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    const meta = metas.get(id);
    if (!r || !meta) continue;
    const c = cites.get(id) ?? [];
    const f = judge(meta, c, view, settings, now);
    out.push({
      id,
      title: r.title,
      type: r.type,
      project: r.project,
      createdAt: new Date(r.created_at).toISOString(),
      status: f.status,
      ...(f.reason ? { reason: f.reason } : {}),
      branch: f.branch,
      ...(f.otherBranch ? { otherBranch: true as const } : {}),
      ...(f.replacedBy ? { replacedBy: f.replacedBy } : {}),
      citations: c.map(toCitation),
    });
  }
  return out;
}

/**
 * Memories about one file: those citing it (by fingerprint), then those that name it in their file
 * lists without a citation (older memories, captures without git). Current branch first.
 */
export function memoriesForFile(db: Reader, project: string | undefined, file: string, view: BranchView, settings: Pick<FreshnessSettings, 'ageOutDays'>, limit: number, now = Date.now()): MemoryFreshness[] {
  const rel = file.replace(/\\/g, '/').replace(/^\.\//, '');
  const cited = db
    .all<{ id: number }>(
      `SELECT DISTINCT c.observation_id AS id FROM citations c WHERE c.path = ? ${project ? 'AND c.project = ?' : ''} ORDER BY c.cited_at DESC LIMIT ?`,
      project ? [rel, project, limit] : [rel, limit],
    )
    .map((r) => r.id);
  // Named in the file lists: exact, or an absolute path ending in /<rel>.
  const like = `%/${rel.replace(/[%_\\]/g, (m) => `\\${m}`)}`;
  const named = db
    .all<{ id: number }>(
      `SELECT o.id AS id FROM observations o WHERE ${project ? 'o.project = ? AND' : ''}
         EXISTS (SELECT 1 FROM json_each(o.files_modified) j WHERE j.value = ? OR j.value LIKE ? ESCAPE '\\'
                 UNION ALL SELECT 1 FROM json_each(o.files_read) j WHERE j.value = ? OR j.value LIKE ? ESCAPE '\\')
       ORDER BY o.created_at DESC LIMIT ?`,
      project ? [project, rel, like, rel, like, limit] : [rel, like, rel, like, limit],
    )
    .map((r) => r.id);
  const ids = [...new Set([...cited, ...named])].slice(0, limit);
  const list = memoryFreshness(db, ids, view, settings, now);
  return list.sort((a, b) => Number(a.otherBranch ?? false) - Number(b.otherBranch ?? false) || Date.parse(b.createdAt) - Date.parse(a.createdAt));
}
