// pending_work: the durable queue. A job is deleted in the same transaction that stores its result,
// so a crash either keeps the job (it runs again) or keeps the result (and the job is gone).
import type { Store, WriteTx } from '../store';

export type JobKind = 'observation' | 'summary';

export interface JobRow {
  id: number;
  session_id: number;
  kind: JobKind;
  payload: string;
  content_hash: string;
  status: 'pending' | 'dead';
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: number;
}

/** Returns the job id, or undefined when the same content is already queued for the session. */
export function enqueue(tx: WriteTx, j: { sessionId: number; kind: JobKind; payload: unknown; contentHash: string; now: number }): number | undefined {
  const r = tx.run('INSERT OR IGNORE INTO pending_work (session_id, kind, payload, content_hash, created_at) VALUES (?, ?, ?, ?, ?)', [
    j.sessionId,
    j.kind,
    JSON.stringify(j.payload),
    j.contentHash,
    j.now,
  ]);
  return r.changes > 0 ? r.lastId : undefined;
}

export function isQueued(db: Pick<Store, 'get'>, sessionId: number, hash: string): boolean {
  return db.get('SELECT 1 AS x FROM pending_work WHERE session_id = ? AND content_hash = ?', [sessionId, hash]) !== undefined;
}

/** The queue's pending jobs without their payloads, oldest first: what the processor plans with. */
export function pendingJobMeta(db: Pick<Store, 'all'>, limit: number): Pick<JobRow, 'id' | 'session_id' | 'kind' | 'attempts' | 'next_attempt_at' | 'created_at'>[] {
  return db.all(`SELECT id, session_id, kind, attempts, next_attempt_at, created_at FROM pending_work WHERE status = 'pending' ORDER BY id LIMIT ?`, [limit]);
}

/** The pending jobs among `ids`, in id order (a job finished or dead meanwhile is left out). */
export function pendingJobsById(db: Pick<Store, 'all'>, ids: number[]): JobRow[] {
  if (ids.length === 0) return [];
  return db.all<JobRow>(`SELECT * FROM pending_work WHERE status = 'pending' AND id IN (${ids.map(() => '?').join(',')}) ORDER BY id`, ids);
}

/** The job is still queued (not finished, nor deleted with its session). */
export function jobExists(db: Pick<Store, 'get'>, id: number): boolean {
  return db.get('SELECT 1 AS x FROM pending_work WHERE id = ?', [id]) !== undefined;
}

/** A summary job is queued for the session. */
export function summaryQueued(db: Pick<Store, 'get'>, sessionId: number): boolean {
  return db.get(`SELECT 1 AS x FROM pending_work WHERE session_id = ? AND kind = 'summary' LIMIT 1`, [sessionId]) !== undefined;
}

export function readyJobs(db: Pick<Store, 'all'>, now: number, limit: number): JobRow[] {
  return db.all<JobRow>(`SELECT * FROM pending_work WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?`, [now, limit]);
}

export function nextDueAt(db: Pick<Store, 'get'>): number | undefined {
  const r = db.get<{ t: number | null }>(`SELECT min(next_attempt_at) AS t FROM pending_work WHERE status = 'pending'`);
  return r?.t ?? undefined;
}

export function finishJob(tx: WriteTx, id: number): void {
  tx.run('DELETE FROM pending_work WHERE id = ?', [id]);
}

export function failJob(tx: WriteTx, id: number, error: string, nextAttemptAt: number, dead: boolean): void {
  tx.run(`UPDATE pending_work SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, status = ? WHERE id = ?`, [
    error.slice(0, 2000),
    nextAttemptAt,
    dead ? 'dead' : 'pending',
    id,
  ]);
}

export function retryDead(tx: WriteTx, ids: number[] | 'all', now: number): number {
  if (ids === 'all') return tx.run(`UPDATE pending_work SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE status = 'dead'`, [now]).changes;
  let n = 0;
  for (const id of ids) n += tx.run(`UPDATE pending_work SET status = 'pending', attempts = 0, next_attempt_at = ? WHERE status = 'dead' AND id = ?`, [now, id]).changes;
  return n;
}

export function queueCounts(db: Pick<Store, 'all'>): { pending: number; dead: number } {
  const out = { pending: 0, dead: 0 };
  for (const r of db.all<{ status: 'pending' | 'dead'; n: number }>('SELECT status, count(*) AS n FROM pending_work GROUP BY status')) out[r.status] = r.n;
  return out;
}

export function deadJobs(db: Pick<Store, 'all'>, limit: number): JobRow[] {
  return db.all<JobRow>(`SELECT * FROM pending_work WHERE status = 'dead' ORDER BY id LIMIT ?`, [limit]);
}
