// session_summaries: what a session asked, found, did and left to do.
import type { Summary } from '../../../common/contract';
import type { Store, WriteTx } from '../store';

export interface SummaryRow {
  id: number;
  session_id: number;
  project: string;
  request: string | null;
  investigated: string | null;
  learned: string | null;
  completed: string | null;
  next_steps: string | null;
  notes: string | null;
  prompt_number: number | null;
  content_hash: string;
  input_tokens: number;
  output_tokens: number;
  created_at: number;
}

export interface SummaryDraft {
  request?: string | null;
  investigated?: string | null;
  learned?: string | null;
  completed?: string | null;
  nextSteps?: string | null;
  notes?: string | null;
}

export function insertSummary(
  tx: WriteTx,
  s: SummaryDraft & { sessionId: number; project: string; promptNumber: number | null; contentHash: string; createdAt: number; inputTokens?: number; outputTokens?: number },
): number | undefined {
  const r = tx.run(
    `INSERT OR IGNORE INTO session_summaries (session_id, project, request, investigated, learned, completed, next_steps, notes,
       prompt_number, content_hash, input_tokens, output_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      s.sessionId,
      s.project,
      s.request ?? null,
      s.investigated ?? null,
      s.learned ?? null,
      s.completed ?? null,
      s.nextSteps ?? null,
      s.notes ?? null,
      s.promptNumber,
      s.contentHash,
      s.inputTokens ?? 0,
      s.outputTokens ?? 0,
      s.createdAt,
    ],
  );
  return r.changes > 0 ? r.lastId : undefined;
}

export function summariesOfSession(db: Pick<Store, 'all'>, sessionId: number): SummaryRow[] {
  return db.all<SummaryRow>('SELECT * FROM session_summaries WHERE session_id = ? ORDER BY id', [sessionId]);
}

export function toSummary(r: SummaryRow): Summary {
  return {
    id: r.id,
    sessionId: r.session_id,
    project: r.project,
    request: r.request,
    investigated: r.investigated,
    learned: r.learned,
    completed: r.completed,
    nextSteps: r.next_steps,
    notes: r.notes,
    promptNumber: r.prompt_number,
    createdAt: new Date(r.created_at).toISOString(),
    createdAtEpoch: r.created_at,
  };
}
