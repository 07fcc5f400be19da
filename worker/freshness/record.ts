// Writing freshness: fingerprints a client attached to a tool use (file_seen, copied to citations
// by a trigger when the tool use's observations are stored), stale checks against reported
// fingerprints, and a person's or the model's decision (confirm, retire). All inside Store.write:
// deterministic statements, `now` passed in.
import type { CheckFile, CitationFile, CitationsPayload, FreshnessCheckRequest, FreshnessCheckResponse } from '../../common/contract';
import type { Store, WriteTx } from '../store/store';

type Reader = Pick<Store, 'all' | 'get'>;

/** Called in the observation request's transaction, with the job's own time (see schema step 4). */
export function recordSeen(tx: WriteTx, a: { sessionId: number; project: string; now: number; citations: CitationsPayload }): FreshnessCheckResponse {
  const c = a.citations;
  for (const f of c.files) {
    tx.run('INSERT INTO file_seen (session_id, project, path, blob, tracked, commit_id, branch, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
      a.sessionId,
      a.project,
      f.path,
      f.blob,
      f.tracked ? 1 : 0,
      c.commit ?? null,
      c.branch ?? null,
      a.now,
    ]);
  }
  if (c.branch || c.commit) {
    const bases = JSON.stringify(c.bases ?? []);
    const cur = tx.get<{ branch: string | null; commit_id: string | null; bases: string }>('SELECT branch, commit_id, bases FROM session_git WHERE session_id = ?', [a.sessionId]);
    if (!cur) tx.run('INSERT INTO session_git (session_id, branch, commit_id, bases, updated_at) VALUES (?, ?, ?, ?, ?)', [a.sessionId, c.branch ?? null, c.commit ?? null, bases, a.now]);
    else if (cur.branch !== (c.branch ?? null) || cur.commit_id !== (c.commit ?? null) || cur.bases !== bases) {
      tx.run('UPDATE session_git SET branch = ?, commit_id = ?, bases = ?, updated_at = ? WHERE session_id = ?', [c.branch ?? null, c.commit ?? null, bases, a.now, a.sessionId]);
    }
  }
  // The files a hook touched are a free check of every other memory that cites them.
  return applyCheck(tx, { project: a.project, branch: c.branch ?? null, bases: c.bases ?? [], files: c.files }, a.now);
}

interface CitationRow {
  id: number;
  observation_id: number;
  path: string;
  blob: string | null;
  branch: string | null;
  state: 'fresh' | 'changed' | 'deleted';
  current_blob: string | null;
  moved_from: string | null;
  changed_branch: string | null;
  change_kind: string | null;
}

/** Branches whose memories a check from `branch` may judge: it and the ones it came from (and unknown). */
export function branchScope(branch: string | null | undefined, bases: string[] = []): ((b: string | null) => boolean) | undefined {
  if (!branch) return undefined;
  const ok = new Set([branch, ...bases]);
  return (b) => b === null || ok.has(b);
}

/**
 * Compares reported fingerprints with the citations of the same paths. A different blob marks the
 * citation changed, a missing file deleted, a file found elsewhere with the same content (movedTo)
 * moves the citation; the cited content back again makes it fresh. Memories of other branches are
 * left alone (their files differ for a reason).
 */
export function applyCheck(tx: WriteTx, req: FreshnessCheckRequest, now: number): FreshnessCheckResponse {
  const inScope = branchScope(req.branch, req.bases);
  const out: FreshnessCheckResponse = { checked: 0, stale: [], fresh: [], moved: [] };
  const staleSeen = new Set<number>();
  for (const f of req.files) {
    const rows = tx.all<CitationRow>('SELECT id, observation_id, path, blob, branch, state, current_blob, moved_from, changed_branch, change_kind FROM citations WHERE project = ? AND path = ?', [req.project, f.path]);
    const verdicts = req.branch && rows.length ? branchVerdicts(tx, rows.map((r) => r.id), req.branch) : undefined;
    for (const r of rows) {
      if (inScope && !inScope(r.branch)) continue;
      out.checked += 1;
      if (req.branch) setBranchVerdict(tx, r, f as CheckFile, req.branch, verdicts?.get(r.id), now);
      let change = judge(r, f);
      // Verdicts belong to the branch they were made on: the cited content on this branch does not
      // clear what another branch's check found (a view of that branch still sees it).
      if (change === 'fresh' && req.branch && r.changed_branch && r.changed_branch !== req.branch) change = 'same';
      // The same change seen again, from another branch or now committed: the verdict moves with it.
      if (change === 'same' && r.state !== 'fresh' && (r.changed_branch !== (req.branch ?? null) || r.change_kind !== ((f as CheckFile).change ?? null)) && (f.gone || f.blob !== r.blob)) {
        tx.run('UPDATE citations SET changed_branch = ?, change_kind = ?, checked_at = ? WHERE id = ?', [req.branch ?? null, (f as CheckFile).change ?? null, now, r.id]);
      }
      if (change === 'moved') {
        const to = (f as CheckFile).movedTo as string;
        const clash = tx.get('SELECT 1 AS x FROM citations WHERE observation_id = ? AND path = ?', [r.observation_id, to]);
        if (clash) tx.run('DELETE FROM citations WHERE id = ?', [r.id]);
        else tx.run('UPDATE citations SET path = ?, moved_from = ?, checked_at = ? WHERE id = ?', [to, r.moved_from ?? r.path, now, r.id]);
        out.moved.push({ id: r.observation_id, from: r.path, to });
      } else if (change === 'fresh') {
        tx.run(`UPDATE citations SET state = 'fresh', current_blob = NULL, changed_at = NULL, changed_branch = NULL, change_kind = NULL, checked_at = ? WHERE id = ?`, [now, r.id]);
        out.fresh.push(r.observation_id);
      } else if (change === 'changed' || change === 'deleted') {
        const first = r.state === 'fresh';
        tx.run(`UPDATE citations SET state = ?, current_blob = ?, changed_at = CASE WHEN state = 'fresh' THEN ? ELSE changed_at END, changed_branch = ?, change_kind = ?, checked_at = ? WHERE id = ?`, [
          change,
          f.blob,
          now,
          req.branch ?? null,
          (f as CheckFile).change ?? null,
          now,
          r.id,
        ]);
        if (first && !staleSeen.has(r.observation_id)) {
          staleSeen.add(r.observation_id);
          out.stale.push({ id: r.observation_id, path: r.path, change });
        }
      }
    }
  }
  // Fresh again only when no other citation of the memory is still changed.
  out.fresh = [...new Set(out.fresh)].filter((id) => !tx.get(`SELECT 1 AS x FROM citations WHERE observation_id = ? AND state <> 'fresh'`, [id]));
  return out;
}

interface VerdictRow {
  citation_id: number;
  state: 'changed' | 'deleted';
  current_blob: string | null;
  change_kind: string | null;
}

function branchVerdicts(tx: WriteTx, ids: number[], branch: string): Map<number, VerdictRow> {
  const rows = tx.all<VerdictRow>('SELECT citation_id, state, current_blob, change_kind FROM citation_verdicts WHERE branch = ? AND citation_id IN (SELECT value FROM json_each(?))', [
    branch,
    JSON.stringify(ids),
  ]);
  return new Map(rows.map((v) => [v.citation_id, v]));
}

/**
 * The citation's verdict on the check's branch (table citation_verdicts): written only when it
 * differs from what is stored, so a check that finds nothing new writes nothing. A move is left to
 * the check of the new path that follows it.
 */
function setBranchVerdict(tx: WriteTx, r: CitationRow, f: CheckFile, branch: string, cur: VerdictRow | undefined, now: number): void {
  if (f.gone && f.movedTo && f.movedTo !== r.path) return;
  const state = f.gone ? 'deleted' : f.blob === r.blob ? 'fresh' : 'changed';
  if (state === 'fresh') {
    if (cur) tx.run('DELETE FROM citation_verdicts WHERE citation_id = ? AND branch = ?', [r.id, branch]);
    return;
  }
  const blob = state === 'changed' ? f.blob : null;
  const kind = f.change ?? null;
  if (!cur) {
    tx.run('INSERT INTO citation_verdicts (citation_id, branch, state, current_blob, changed_at, change_kind) VALUES (?, ?, ?, ?, ?, ?)', [r.id, branch, state, blob, now, kind]);
  } else if (cur.state !== state || cur.current_blob !== blob || cur.change_kind !== kind) {
    tx.run('UPDATE citation_verdicts SET state = ?, current_blob = ?, change_kind = ? WHERE citation_id = ? AND branch = ?', [state, blob, kind, r.id, branch]);
  }
}

type Change = 'same' | 'fresh' | 'changed' | 'deleted' | 'moved';

function judge(r: CitationRow, f: CitationFile & { movedTo?: string }): Change {
  if (f.gone) {
    if (f.movedTo && f.movedTo !== r.path) return 'moved';
    return r.state === 'deleted' ? 'same' : 'deleted';
  }
  if (f.blob === r.blob) return r.state === 'fresh' ? 'same' : 'fresh';
  return r.state === 'changed' && r.current_blob === f.blob ? 'same' : 'changed';
}

/** The person (or the model) says the memory still holds: its citations are re-anchored to the current content. */
export function confirm(tx: WriteTx, id: number, files: CitationFile[], now: number): void {
  for (const f of files) {
    if (f.gone || !f.blob) continue;
    tx.run(`UPDATE citations SET blob = ?, state = 'fresh', current_blob = NULL, changed_at = NULL, changed_branch = NULL, change_kind = NULL, checked_at = ? WHERE observation_id = ? AND path = ?`, [f.blob, now, id, f.path]);
  }
  tx.run(`UPDATE citations SET blob = coalesce(current_blob, blob), state = 'fresh', current_blob = NULL, changed_at = NULL, changed_branch = NULL, change_kind = NULL, checked_at = ? WHERE observation_id = ? AND state = 'changed'`, [now, id]);
  tx.run(`DELETE FROM citations WHERE observation_id = ? AND state = 'deleted'`, [id]);
  // Re-anchored: every branch's verdict was about the old content (the next check judges again).
  tx.run(`DELETE FROM citation_verdicts WHERE citation_id IN (SELECT id FROM citations WHERE observation_id = ?)`, [id]);
  setState(tx, id, 'confirmed', null, null, now);
}

export function retire(tx: WriteTx, id: number, replacedBy: number | null, note: string | null, now: number): void {
  setState(tx, id, 'retired', replacedBy, note, now);
}

function setState(tx: WriteTx, id: number, status: 'confirmed' | 'retired', replacedBy: number | null, note: string | null, now: number): void {
  tx.run(
    `INSERT INTO memory_state (observation_id, status, replaced_by, note, at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (observation_id) DO UPDATE SET status = excluded.status, replaced_by = excluded.replaced_by, note = excluded.note, at = excluded.at`,
    [id, status, replacedBy, note, now],
  );
}

/** Citations of a replacement memory: the old one's paths at their current content. */
export function copyCitations(tx: WriteTx, from: number, to: number, files: CitationFile[], now: number): void {
  tx.run(
    `INSERT OR IGNORE INTO citations (observation_id, project, path, blob, tracked, commit_id, branch, cited_at)
       SELECT ?, project, path, coalesce(current_blob, blob), tracked, commit_id, coalesce(changed_branch, branch), ? FROM citations WHERE observation_id = ? AND state <> 'deleted'`,
    [to, now, from],
  );
  for (const f of files) if (f.blob) tx.run(`UPDATE citations SET blob = ? WHERE observation_id = ? AND path = ?`, [f.blob, to, f.path]);
}

/**
 * Every cited path of a project with the blob ids it is cited at (what a client should fingerprint)
 * and the commit of its newest citation (where a client's rename search starts).
 */
export type CitedFile = { path: string; blobs: string[]; commit: string | null; stale?: true };

/** The cited files answers kept per store, per project and limit, until the store's next change. */
const keptCited = new WeakMap<object, { writes: number; answers: Map<string, { folder: string | null; files: CitedFile[] }> }>();
const MAX_KEPT_CITED = 64;

/**
 * A project's cited files (citedFiles) and the folder it was last worked in, as GET
 * /api/freshness/cited answers them: every context and file-context hook asks, most often with
 * nothing written since the last ask, so the answer is kept until the store's next change
 * (Store.writes) instead of grouping every citation of the project again.
 */
export function citedAnswer(store: Reader & Pick<Store, 'writes'>, project: string, limit: number): { folder: string | null; files: CitedFile[] } {
  let kept = keptCited.get(store);
  if (!kept || kept.writes !== store.writes) {
    kept = { writes: store.writes, answers: new Map() };
    keptCited.set(store, kept);
  }
  const key = `${limit}\0${project}`;
  const hit = kept.answers.get(key);
  if (hit) return hit;
  // The folder the project was last worked in: a client checking a project other than its own looks there.
  const folder = store.get<{ cwd: string }>('SELECT cwd FROM sessions WHERE project = ? AND cwd IS NOT NULL ORDER BY updated_at DESC LIMIT 1', [project])?.cwd ?? null;
  const answer = { folder, files: citedFiles(store, project, limit) };
  if (kept.answers.size >= MAX_KEPT_CITED) kept.answers.clear();
  kept.answers.set(key, answer);
  return answer;
}

export function citedFiles(db: Reader, project: string, limit: number): CitedFile[] {
  return db
    .all<{ path: string; blobs: string; commit_id: string | null; stale: number }>(
      `SELECT path, json_group_array(DISTINCT blob) AS blobs,
              (SELECT c2.commit_id FROM citations c2 WHERE c2.project = c.project AND c2.path = c.path AND c2.commit_id IS NOT NULL ORDER BY c2.cited_at DESC LIMIT 1) AS commit_id,
              max(state <> 'fresh' OR EXISTS (SELECT 1 FROM citation_verdicts v WHERE v.citation_id = c.id)) AS stale
         FROM citations c WHERE project = ? AND blob IS NOT NULL GROUP BY path ORDER BY max(cited_at) DESC LIMIT ?`,
      [project, limit],
    )
    .map((r) => ({ path: r.path, blobs: JSON.parse(r.blobs) as string[], commit: r.commit_id, ...(r.stale ? { stale: true as const } : {}) }));
}
