// user_prompts: what the user asked, numbered per session.
import type { Store, WriteTx } from '../store';

export interface PromptRow {
  id: number;
  session_id: number;
  project: string;
  prompt_number: number;
  text: string;
  created_at: number;
}

export function insertPrompt(tx: WriteTx, p: { sessionId: number; project: string; promptNumber: number; text: string; createdAt: number }): number | undefined {
  const r = tx.run('INSERT OR IGNORE INTO user_prompts (session_id, project, prompt_number, text, created_at) VALUES (?, ?, ?, ?, ?)', [
    p.sessionId,
    p.project,
    p.promptNumber,
    p.text,
    p.createdAt,
  ]);
  return r.changes > 0 ? r.lastId : undefined;
}

export function promptsOfSession(db: Pick<Store, 'all'>, sessionId: number): PromptRow[] {
  return db.all<PromptRow>('SELECT * FROM user_prompts WHERE session_id = ? ORDER BY prompt_number', [sessionId]);
}

export function lastPrompt(db: Pick<Store, 'get'>, sessionId: number): PromptRow | undefined {
  return db.get<PromptRow>('SELECT * FROM user_prompts WHERE session_id = ? ORDER BY prompt_number DESC LIMIT 1', [sessionId]);
}
