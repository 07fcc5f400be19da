// observations: the compressed memory. Lists are stored as JSON text (also indexed by FTS4).
import type { Observation } from '../../../common/contract';
import type { Store, WriteTx } from '../store';

export interface ObservationRow {
  id: number;
  session_id: number;
  project: string;
  type: string;
  title: string;
  subtitle: string | null;
  facts: string;
  narrative: string | null;
  concepts: string;
  files_read: string;
  files_modified: string;
  tool_name: string | null;
  prompt_number: number | null;
  content_hash: string;
  source: string;
  input_tokens: number;
  output_tokens: number;
  discovery_tokens: number;
  created_at: number;
  /** 1: noise (triage.ts), not listed or injected. */
  quiet?: number;
}

export interface ObservationDraft {
  type: string;
  title: string;
  subtitle?: string | null;
  facts?: string[];
  narrative?: string | null;
  concepts?: string[];
  filesRead?: string[];
  filesModified?: string[];
}

export interface NewObservation extends ObservationDraft {
  sessionId: number;
  project: string;
  toolName: string | null;
  promptNumber: number | null;
  contentHash: string;
  source: string;
  inputTokens?: number;
  outputTokens?: number;
  discoveryTokens?: number;
  createdAt: number;
  /** Noise (triage.ts): stored and searchable, not listed or injected. */
  quiet?: boolean;
}

/** Inserts unless (session, content hash) is already stored; returns the new id or undefined. */
export function insertObservation(tx: WriteTx, o: NewObservation): number | undefined {
  const r = tx.run(
    `INSERT OR IGNORE INTO observations (session_id, project, type, title, subtitle, facts, narrative, concepts, files_read, files_modified,
       tool_name, prompt_number, content_hash, source, input_tokens, output_tokens, discovery_tokens, created_at, quiet)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      o.sessionId,
      o.project,
      o.type,
      o.title,
      o.subtitle ?? null,
      JSON.stringify(o.facts ?? []),
      o.narrative ?? null,
      JSON.stringify(o.concepts ?? []),
      JSON.stringify(o.filesRead ?? []),
      JSON.stringify(o.filesModified ?? []),
      o.toolName,
      o.promptNumber,
      o.contentHash,
      o.source,
      o.inputTokens ?? 0,
      o.outputTokens ?? 0,
      o.discoveryTokens ?? 0,
      o.createdAt,
      o.quiet ? 1 : 0,
    ],
  );
  return r.changes > 0 ? r.lastId : undefined;
}

export function observationById(db: Pick<Store, 'get'>, id: number): ObservationRow | undefined {
  return db.get<ObservationRow>('SELECT * FROM observations WHERE id = ?', [id]);
}

/** Newest first; quiet notes (noise) only when asked for. */
export function listObservations(db: Pick<Store, 'all'>, project: string | undefined, limit: number, offset: number, includeQuiet = false): ObservationRow[] {
  const where = [...(project ? ['project = ?'] : []), ...(includeQuiet ? [] : ['quiet = 0'])];
  return db.all<ObservationRow>(`SELECT * FROM observations${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`, [...(project ? [project] : []), limit, offset]);
}

export function hasObservationHash(db: Pick<Store, 'get'>, sessionId: number, hash: string): boolean {
  return db.get('SELECT 1 AS x FROM observations WHERE session_id = ? AND content_hash = ?', [sessionId, hash]) !== undefined;
}

export function deleteObservation(tx: WriteTx, id: number): boolean {
  tx.erased();
  return tx.run('DELETE FROM observations WHERE id = ?', [id]).changes > 0;
}

export function parseList(text: string | null): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** What an observation says, as export and team sync carry it (lists parsed, no ids or hashes). */
export function observationContent(o: ObservationRow) {
  return {
    type: o.type,
    title: o.title,
    subtitle: o.subtitle,
    facts: parseList(o.facts),
    narrative: o.narrative,
    concepts: parseList(o.concepts),
    filesRead: parseList(o.files_read),
    filesModified: parseList(o.files_modified),
    toolName: o.tool_name,
    promptNumber: o.prompt_number,
  };
}

export function toObservation(r: ObservationRow): Observation {
  return {
    id: r.id,
    sessionId: r.session_id,
    project: r.project,
    type: r.type,
    title: r.title,
    subtitle: r.subtitle,
    facts: parseList(r.facts),
    narrative: r.narrative,
    concepts: parseList(r.concepts),
    filesRead: parseList(r.files_read),
    filesModified: parseList(r.files_modified),
    toolName: r.tool_name,
    promptNumber: r.prompt_number,
    source: r.source,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    discoveryTokens: r.discovery_tokens,
    createdAt: new Date(r.created_at).toISOString(),
    createdAtEpoch: r.created_at,
  };
}
