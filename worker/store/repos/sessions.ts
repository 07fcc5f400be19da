// sessions: one row per (platform, content session id); every other table hangs off it.
import type { SessionInfo } from '../../../common/contract';
import type { Store, WriteTx } from '../store';

export interface SessionRow {
  id: number;
  platform: string;
  content_session_id: string;
  project: string;
  cwd: string | null;
  status: string;
  prompt_counter: number;
  prompt_private: number;
  started_at: number;
  updated_at: number;
  completed_at: number | null;
  completion_reason: string | null;
}

export function findSession(db: Pick<Store, 'get'>, platform: string, contentSessionId: string): SessionRow | undefined {
  return db.get<SessionRow>('SELECT * FROM sessions WHERE platform = ? AND content_session_id = ?', [platform, contentSessionId]);
}

export function sessionById(db: Pick<Store, 'get'>, id: number): SessionRow | undefined {
  return db.get<SessionRow>('SELECT * FROM sessions WHERE id = ?', [id]);
}

/** Returns the session, creating it when unknown (never an orphan observation). */
export function ensureSession(
  tx: WriteTx,
  s: { platform: string; contentSessionId: string; project: string; cwd?: string; now: number },
): { row: SessionRow; created: boolean } {
  const found = findSession(tx, s.platform, s.contentSessionId);
  if (found) return { row: found, created: false };
  tx.run(
    `INSERT INTO sessions (platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at)
     VALUES (?, ?, ?, ?, 'initialized', 0, ?, ?)`,
    [s.platform, s.contentSessionId, s.project, s.cwd ?? null, s.now, s.now],
  );
  return { row: findSession(tx, s.platform, s.contentSessionId) as SessionRow, created: true };
}

/** Counts a prompt; a prompt that was private throughout marks the session so its tool uses are dropped. */
export function nextPrompt(tx: WriteTx, id: number, isPrivate: boolean, now: number): number {
  tx.run(
    `UPDATE sessions SET prompt_counter = prompt_counter + 1, prompt_private = ?, status = 'active',
       completed_at = NULL, completion_reason = NULL, updated_at = ? WHERE id = ?`,
    [isPrivate ? 1 : 0, now, id],
  );
  return Number(tx.get<{ n: number }>('SELECT prompt_counter AS n FROM sessions WHERE id = ?', [id])?.n ?? 0);
}

export function completeSession(tx: WriteTx, id: number, reason: string, now: number): void {
  tx.run(`UPDATE sessions SET status = 'completed', completed_at = ?, completion_reason = ?, updated_at = ? WHERE id = ?`, [now, reason, now, id]);
}

export function touchSession(tx: WriteTx, id: number, now: number): void {
  tx.run(`UPDATE sessions SET updated_at = ?, status = CASE WHEN status = 'completed' THEN status ELSE 'active' END WHERE id = ?`, [now, id]);
}

export function listSessions(db: Pick<Store, 'all'>, project: string | undefined, limit: number, offset: number): SessionRow[] {
  return project
    ? db.all<SessionRow>('SELECT * FROM sessions WHERE project = ? ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?', [project, limit, offset])
    : db.all<SessionRow>('SELECT * FROM sessions ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?', [limit, offset]);
}

/** Deletes sessions and everything that belongs to them. Explicit, not FK cascades: replay must not depend on a pragma. */
export function deleteSessionsWhere(tx: WriteTx, where: string, params: (string | number)[]): number {
  const sub = `SELECT id FROM sessions WHERE ${where}`;
  tx.erased();
  for (const table of ['user_prompts', 'observations', 'session_summaries', 'pending_work']) {
    tx.run(`DELETE FROM ${table} WHERE session_id IN (${sub})`, params);
  }
  return tx.run(`DELETE FROM sessions WHERE ${where}`, params).changes;
}

export function toSessionInfo(r: SessionRow): SessionInfo {
  return {
    id: r.id,
    platform: r.platform,
    contentSessionId: r.content_session_id,
    project: r.project,
    cwd: r.cwd,
    status: r.status,
    promptCounter: r.prompt_counter,
    startedAt: new Date(r.started_at).toISOString(),
    completedAt: r.completed_at === null ? null : new Date(r.completed_at).toISOString(),
  };
}
