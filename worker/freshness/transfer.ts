// Freshness in export and import: an observation's citations (with their stale state) and its
// confirmed/retired state, and a session's branch. Optional fields of the export document (a
// document without them imports as before; an older importer ignores them), so the version stays 1.
import { BadRequest, asObject } from '../../common/contract';
import type { Store, WriteTx } from '../store/store';

type Reader = Pick<Store, 'all' | 'get'>;

export interface ExportedCitation {
  path: string;
  blob: string | null;
  tracked: boolean;
  commit: string | null;
  branch: string | null;
  citedAt: number;
  state: 'fresh' | 'changed' | 'deleted';
  currentBlob: string | null;
  changedAt: number | null;
  changedBranch: string | null;
  movedFrom: string | null;
}

/** Which memory replaced a retired one: its session and content hash (ids differ between stores). */
export interface ReplacementRef {
  platform: string;
  contentSessionId: string;
  contentHash: string;
}

export interface ExportedMemoryState {
  status: 'confirmed' | 'retired';
  note: string | null;
  at: number;
  replacedBy: ReplacementRef | null;
}

export interface ExportedSessionGit {
  branch: string | null;
  commit: string | null;
  bases: string[];
}

/** The optional freshness fields of an exported observation. */
export interface ObservationFreshness {
  citations?: ExportedCitation[];
  state?: ExportedMemoryState;
}

interface CitationRow {
  observation_id: number;
  path: string;
  blob: string | null;
  tracked: number;
  commit_id: string | null;
  branch: string | null;
  cited_at: number;
  state: 'fresh' | 'changed' | 'deleted';
  current_blob: string | null;
  changed_at: number | null;
  changed_branch: string | null;
  moved_from: string | null;
}

/** The freshness fields of every observation of a session that has any (two queries a session). */
export function exportSessionFreshness(db: Reader, sessionId: number): Map<number, ObservationFreshness> {
  const out = new Map<number, ObservationFreshness>();
  const entry = (id: number) => out.get(id) ?? (out.set(id, {}), out.get(id) as ObservationFreshness);
  const cites = db.all<CitationRow>(
    'SELECT c.* FROM citations c JOIN observations o ON o.id = c.observation_id WHERE o.session_id = ? ORDER BY c.id',
    [sessionId],
  );
  for (const c of cites) {
    (entry(c.observation_id).citations ??= []).push({
      path: c.path,
      blob: c.blob,
      tracked: c.tracked === 1,
      commit: c.commit_id,
      branch: c.branch,
      citedAt: c.cited_at,
      state: c.state,
      currentBlob: c.current_blob,
      changedAt: c.changed_at,
      changedBranch: c.changed_branch,
      movedFrom: c.moved_from,
    });
  }
  const states = db.all<{ observation_id: number; status: 'confirmed' | 'retired'; note: string | null; at: number; r_platform: string | null; r_session: string | null; r_hash: string | null }>(
    `SELECT m.observation_id, m.status, m.note, m.at, rs.platform AS r_platform, rs.content_session_id AS r_session, r.content_hash AS r_hash
       FROM memory_state m JOIN observations o ON o.id = m.observation_id
       LEFT JOIN observations r ON r.id = m.replaced_by LEFT JOIN sessions rs ON rs.id = r.session_id
      WHERE o.session_id = ?`,
    [sessionId],
  );
  for (const m of states) {
    const replacedBy = m.r_platform && m.r_session && m.r_hash ? { platform: m.r_platform, contentSessionId: m.r_session, contentHash: m.r_hash } : null;
    entry(m.observation_id).state = { status: m.status, note: m.note, at: m.at, replacedBy };
  }
  return out;
}

export function exportSessionGit(db: Reader, sessionId: number): ExportedSessionGit | undefined {
  const g = db.get<{ branch: string | null; commit_id: string | null; bases: string }>('SELECT branch, commit_id, bases FROM session_git WHERE session_id = ?', [sessionId]);
  if (!g) return undefined;
  let bases: string[] = [];
  try {
    const v = JSON.parse(g.bases) as unknown;
    if (Array.isArray(v)) bases = v.filter((b): b is string => typeof b === 'string');
  } catch {
    /* an unreadable list exports as none */
  }
  return { branch: g.branch, commit: g.commit_id, bases };
}

// ---- validation ----

const PATH_MAX = 4096;
const NAME_MAX = 256;
const HEX = /^[0-9a-f]{7,64}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;
const isPath = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= PATH_MAX && !CONTROL.test(v);
const isName = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= NAME_MAX && !CONTROL.test(v);
const isHexOrNull = (v: unknown): v is string | null => v === null || (typeof v === 'string' && HEX.test(v));
const isNameOrNull = (v: unknown): v is string | null => v === null || isName(v);
const isEpoch = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isEpochOrNull = (v: unknown): v is number | null => v === null || isEpoch(v);

function need<T>(o: Record<string, unknown>, key: string, at: string, check: (v: unknown) => v is T, what: string): T {
  const v = o[key];
  if (!check(v)) throw new BadRequest(`import: ${at}.${key} must be ${what}`);
  return v;
}

/** The optional freshness fields of an imported observation, validated (undefined ones stay out). */
export function parseObservationFreshness(o: Record<string, unknown>, at: string): ObservationFreshness {
  const out: ObservationFreshness = {};
  if (o.citations !== undefined) {
    if (!Array.isArray(o.citations) || o.citations.length > 1000) throw new BadRequest(`import: ${at}.citations must be an array of at most 1000 citations`);
    out.citations = o.citations.map((raw, k) => {
      const ca = `${at}.citations[${k}]`;
      const c = asObject(raw, ca);
      const state = need(c, 'state', ca, (v): v is ExportedCitation['state'] => v === 'fresh' || v === 'changed' || v === 'deleted', 'fresh, changed or deleted');
      return {
        path: need(c, 'path', ca, isPath, `a path of at most ${PATH_MAX} characters`),
        blob: need(c, 'blob', ca, isHexOrNull, 'a hex object id or null'),
        tracked: need(c, 'tracked', ca, (v): v is boolean => typeof v === 'boolean', 'true or false'),
        commit: need(c, 'commit', ca, isHexOrNull, 'a hex commit id or null'),
        branch: need(c, 'branch', ca, isNameOrNull, 'a branch name or null'),
        citedAt: need(c, 'citedAt', ca, isEpoch, 'an epoch in ms'),
        state,
        currentBlob: need(c, 'currentBlob', ca, isHexOrNull, 'a hex object id or null'),
        changedAt: need(c, 'changedAt', ca, isEpochOrNull, 'an epoch in ms or null'),
        changedBranch: need(c, 'changedBranch', ca, isNameOrNull, 'a branch name or null'),
        movedFrom: need(c, 'movedFrom', ca, (v): v is string | null => v === null || isPath(v), 'a path or null'),
      };
    });
  }
  if (o.state !== undefined) {
    const sa = `${at}.state`;
    const s = asObject(o.state, sa);
    let replacedBy: ReplacementRef | null = null;
    if (s.replacedBy !== null && s.replacedBy !== undefined) {
      const r = asObject(s.replacedBy, `${sa}.replacedBy`);
      replacedBy = {
        platform: need(r, 'platform', `${sa}.replacedBy`, isName, 'a platform name'),
        contentSessionId: need(r, 'contentSessionId', `${sa}.replacedBy`, isName, 'a session id'),
        contentHash: need(r, 'contentHash', `${sa}.replacedBy`, isName, 'a content hash'),
      };
    }
    out.state = {
      status: need(s, 'status', sa, (v): v is 'confirmed' | 'retired' => v === 'confirmed' || v === 'retired', 'confirmed or retired'),
      note: need(s, 'note', sa, (v): v is string | null => v === null || (typeof v === 'string' && v.length <= 4000), 'a string of at most 4000 characters or null'),
      at: need(s, 'at', sa, isEpoch, 'an epoch in ms'),
      replacedBy,
    };
  }
  return out;
}

export function parseSessionGit(v: unknown, at: string): ExportedSessionGit | undefined {
  if (v === undefined) return undefined;
  const g = asObject(v, `${at}.git`);
  const bases = g.bases;
  if (!Array.isArray(bases) || bases.length > 10 || !bases.every(isName)) throw new BadRequest(`import: ${at}.git.bases must be an array of at most 10 branch names`);
  return { branch: need(g, 'branch', `${at}.git`, isNameOrNull, 'a branch name or null'), commit: need(g, 'commit', `${at}.git`, isHexOrNull, 'a hex commit id or null'), bases };
}

// ---- writing ----

/** Stores an imported observation's citations and state (only for an observation just inserted). */
export function importObservationFreshness(tx: WriteTx, observationId: number, project: string, f: ObservationFreshness): ReplacementRef | undefined {
  for (const c of f.citations ?? []) {
    tx.run(
      `INSERT OR IGNORE INTO citations (observation_id, project, path, blob, tracked, commit_id, branch, cited_at, state, current_blob, changed_at, changed_branch, moved_from)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [observationId, project, c.path, c.blob, c.tracked ? 1 : 0, c.commit, c.branch, c.citedAt, c.state, c.currentBlob, c.changedAt, c.changedBranch, c.movedFrom],
    );
    // The verdict is that branch's (the document carries the newest verdict of each citation).
    if (c.state !== 'fresh' && c.changedBranch) {
      tx.run(
        `INSERT OR IGNORE INTO citation_verdicts (citation_id, branch, state, current_blob, changed_at)
           SELECT id, ?, ?, ?, ? FROM citations WHERE observation_id = ? AND path = ?`,
        [c.changedBranch, c.state, c.currentBlob, c.changedAt, observationId, c.path],
      );
    }
  }
  if (!f.state) return undefined;
  tx.run(`INSERT OR IGNORE INTO memory_state (observation_id, status, replaced_by, note, at) VALUES (?, ?, NULL, ?, ?)`, [observationId, f.state.status, f.state.note, f.state.at]);
  return f.state.replacedBy ?? undefined;
}

/** Links retired memories to their replacements once both are stored (the replacement may come later in the document). */
export function linkReplacements(tx: WriteTx, links: { observationId: number; ref: ReplacementRef }[]): void {
  for (const { observationId, ref } of links) {
    const to = tx.get<{ id: number }>(
      `SELECT o.id AS id FROM observations o JOIN sessions s ON s.id = o.session_id WHERE s.platform = ? AND s.content_session_id = ? AND o.content_hash = ?`,
      [ref.platform, ref.contentSessionId, ref.contentHash],
    );
    if (to) tx.run('UPDATE memory_state SET replaced_by = ? WHERE observation_id = ?', [to.id, observationId]);
  }
}

export function importSessionGit(tx: WriteTx, sessionId: number, g: ExportedSessionGit | undefined, now: number): void {
  if (!g) return;
  tx.run('INSERT OR IGNORE INTO session_git (session_id, branch, commit_id, bases, updated_at) VALUES (?, ?, ?, ?, ?)', [sessionId, g.branch, g.commit, JSON.stringify(g.bases), now]);
}
