// Export and import: a self-describing JSON document. Import is one transaction: all or nothing,
// and idempotent (sessions by platform + id, the rest by their natural keys), so importing twice adds nothing.
import { BadRequest, asObject } from './protocol';
import { cleanText } from '../common/privacy';
import { insertObservation, parseList, type ObservationRow } from './store/repos/observations';
import { insertPrompt, type PromptRow } from './store/repos/prompts';
import { findSession, type SessionRow } from './store/repos/sessions';
import { insertSummary, type SummaryRow } from './store/repos/summaries';
import type { Store, WriteTx } from './store/store';

export const EXPORT_FORMAT = 'claude-mem-vscode/export';
export const EXPORT_VERSION = 1;

export interface ExportedSession {
  platform: string;
  contentSessionId: string;
  project: string;
  cwd: string | null;
  status: string;
  promptCounter: number;
  startedAt: number;
  updatedAt: number;
  completedAt: number | null;
  completionReason: string | null;
  prompts: { promptNumber: number; text: string; createdAt: number }[];
  observations: {
    type: string;
    title: string;
    subtitle: string | null;
    facts: string[];
    narrative: string | null;
    concepts: string[];
    filesRead: string[];
    filesModified: string[];
    toolName: string | null;
    promptNumber: number | null;
    contentHash: string;
    source: string;
    inputTokens: number;
    outputTokens: number;
    discoveryTokens: number;
    createdAt: number;
  }[];
  summaries: {
    request: string | null;
    investigated: string | null;
    learned: string | null;
    completed: string | null;
    nextSteps: string | null;
    notes: string | null;
    promptNumber: number | null;
    contentHash: string;
    inputTokens: number;
    outputTokens: number;
    createdAt: number;
  }[];
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: string;
  project: string | null;
  sessions: ExportedSession[];
}

export function exportMemory(store: Store, project: string | undefined): ExportDocument {
  const sessions = project
    ? store.all<SessionRow>('SELECT * FROM sessions WHERE project = ? ORDER BY id', [project])
    : store.all<SessionRow>('SELECT * FROM sessions ORDER BY id');
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: new Date().toISOString(),
    project: project ?? null,
    sessions: sessions.map((s) => ({
      platform: s.platform,
      contentSessionId: s.content_session_id,
      project: s.project,
      cwd: s.cwd,
      status: s.status,
      promptCounter: s.prompt_counter,
      startedAt: s.started_at,
      updatedAt: s.updated_at,
      completedAt: s.completed_at,
      completionReason: s.completion_reason,
      prompts: store
        .all<PromptRow>('SELECT * FROM user_prompts WHERE session_id = ? ORDER BY prompt_number', [s.id])
        .map((p) => ({ promptNumber: p.prompt_number, text: p.text, createdAt: p.created_at })),
      observations: store.all<ObservationRow>('SELECT * FROM observations WHERE session_id = ? ORDER BY id', [s.id]).map((o) => ({
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
        contentHash: o.content_hash,
        source: o.source,
        inputTokens: o.input_tokens,
        outputTokens: o.output_tokens,
        discoveryTokens: o.discovery_tokens,
        createdAt: o.created_at,
      })),
      summaries: store.all<SummaryRow>('SELECT * FROM session_summaries WHERE session_id = ? ORDER BY id', [s.id]).map((m) => ({
        request: m.request,
        investigated: m.investigated,
        learned: m.learned,
        completed: m.completed,
        nextSteps: m.next_steps,
        notes: m.notes,
        promptNumber: m.prompt_number,
        contentHash: m.content_hash,
        inputTokens: m.input_tokens,
        outputTokens: m.output_tokens,
        createdAt: m.created_at,
      })),
    })),
  };
}

// ---- import validation: every field checked, the path of the first bad one reported ----

type Obj = Record<string, unknown>;

function field<T>(o: Obj, key: string, at: string, check: (v: unknown) => v is T, what: string): T {
  const v = o[key];
  if (!check(v)) throw new BadRequest(`import: ${at}.${key} must be ${what}`);
  return v;
}
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNonEmptyStr = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= 256;
const isStrOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isIntOrNull = (v: unknown): v is number | null => v === null || isInt(v);
const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isArr = (v: unknown): v is unknown[] => Array.isArray(v);
// Every text of an import is cleaned like live ingest: private blocks stripped, secrets redacted.
const clean = (s: string) => cleanText(s).text;
const cleanOrNull = (s: string | null) => (s === null ? null : clean(s));

export function parseImport(body: unknown): ExportedSession[] {
  const doc = asObject(body, 'import document');
  if (doc.format !== EXPORT_FORMAT) throw new BadRequest(`import: format must be "${EXPORT_FORMAT}"`);
  if (doc.version !== EXPORT_VERSION) throw new BadRequest(`import: version ${String(doc.version)} is not supported (expected ${EXPORT_VERSION})`);
  const sessions = field(doc, 'sessions', '$', isArr, 'an array');
  return sessions.map((raw, i) => {
    const at = `sessions[${i}]`;
    const s = asObject(raw, at);
    const status = field(s, 'status', at, isStr, 'a string');
    if (!['initialized', 'active', 'completed'].includes(status)) throw new BadRequest(`import: ${at}.status must be initialized, active or completed`);
    return {
      platform: field(s, 'platform', at, isNonEmptyStr, 'a non-empty string'),
      contentSessionId: field(s, 'contentSessionId', at, isNonEmptyStr, 'a non-empty string'),
      project: clean(field(s, 'project', at, isNonEmptyStr, 'a non-empty string')).trim() || 'imported',
      cwd: cleanOrNull(field(s, 'cwd', at, isStrOrNull, 'a string or null')),
      status,
      promptCounter: field(s, 'promptCounter', at, isInt, 'a non-negative integer'),
      startedAt: field(s, 'startedAt', at, isInt, 'an epoch in ms'),
      updatedAt: field(s, 'updatedAt', at, isInt, 'an epoch in ms'),
      completedAt: field(s, 'completedAt', at, isIntOrNull, 'an epoch in ms or null'),
      completionReason: cleanOrNull(field(s, 'completionReason', at, isStrOrNull, 'a string or null')),
      prompts: field(s, 'prompts', at, isArr, 'an array').map((r, j) => {
        const pa = `${at}.prompts[${j}]`;
        const p = asObject(r, pa);
        return { promptNumber: field(p, 'promptNumber', pa, isInt, 'an integer'), text: clean(field(p, 'text', pa, isStr, 'a string')), createdAt: field(p, 'createdAt', pa, isInt, 'an epoch in ms') };
      }),
      observations: field(s, 'observations', at, isArr, 'an array').map((r, j) => {
        const oa = `${at}.observations[${j}]`;
        const o = asObject(r, oa);
        return {
          type: clean(field(o, 'type', oa, isNonEmptyStr, 'a non-empty string')),
          title: clean(field(o, 'title', oa, isStr, 'a string')),
          subtitle: cleanOrNull(field(o, 'subtitle', oa, isStrOrNull, 'a string or null')),
          facts: field(o, 'facts', oa, isStrList, 'an array of strings').map(clean),
          narrative: cleanOrNull(field(o, 'narrative', oa, isStrOrNull, 'a string or null')),
          concepts: field(o, 'concepts', oa, isStrList, 'an array of strings').map(clean),
          filesRead: field(o, 'filesRead', oa, isStrList, 'an array of strings').map(clean),
          filesModified: field(o, 'filesModified', oa, isStrList, 'an array of strings').map(clean),
          toolName: cleanOrNull(field(o, 'toolName', oa, isStrOrNull, 'a string or null')),
          promptNumber: field(o, 'promptNumber', oa, isIntOrNull, 'an integer or null'),
          contentHash: field(o, 'contentHash', oa, isNonEmptyStr, 'a non-empty string'),
          source: clean(field(o, 'source', oa, isNonEmptyStr, 'a non-empty string')),
          inputTokens: field(o, 'inputTokens', oa, isInt, 'an integer'),
          outputTokens: field(o, 'outputTokens', oa, isInt, 'an integer'),
          discoveryTokens: field(o, 'discoveryTokens', oa, isInt, 'an integer'),
          createdAt: field(o, 'createdAt', oa, isInt, 'an epoch in ms'),
        };
      }),
      summaries: field(s, 'summaries', at, isArr, 'an array').map((r, j) => {
        const ma = `${at}.summaries[${j}]`;
        const m = asObject(r, ma);
        const text = (k: string) => cleanOrNull(field(m, k, ma, isStrOrNull, 'a string or null'));
        return {
          request: text('request'),
          investigated: text('investigated'),
          learned: text('learned'),
          completed: text('completed'),
          nextSteps: text('nextSteps'),
          notes: text('notes'),
          promptNumber: field(m, 'promptNumber', ma, isIntOrNull, 'an integer or null'),
          contentHash: field(m, 'contentHash', ma, isNonEmptyStr, 'a non-empty string'),
          inputTokens: field(m, 'inputTokens', ma, isInt, 'an integer'),
          outputTokens: field(m, 'outputTokens', ma, isInt, 'an integer'),
          createdAt: field(m, 'createdAt', ma, isInt, 'an epoch in ms'),
        };
      }),
    };
  });
}

export interface ImportCounts {
  sessions: number;
  prompts: number;
  observations: number;
  summaries: number;
}

export function importSessions(tx: WriteTx, sessions: ExportedSession[]): ImportCounts {
  const n: ImportCounts = { sessions: 0, prompts: 0, observations: 0, summaries: 0 };
  for (const s of sessions) {
    let row = findSession(tx, s.platform, s.contentSessionId);
    if (!row) {
      tx.run(
        `INSERT INTO sessions (platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at, completed_at, completion_reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [s.platform, s.contentSessionId, s.project, s.cwd, s.status, s.promptCounter, s.startedAt, s.updatedAt, s.completedAt, s.completionReason],
      );
      row = findSession(tx, s.platform, s.contentSessionId) as SessionRow;
      n.sessions += 1;
    }
    for (const p of s.prompts) if (insertPrompt(tx, { sessionId: row.id, project: row.project, promptNumber: p.promptNumber, text: p.text, createdAt: p.createdAt }) !== undefined) n.prompts += 1;
    for (const o of s.observations) {
      if (insertObservation(tx, { ...o, sessionId: row.id, project: row.project }) !== undefined) n.observations += 1;
    }
    for (const m of s.summaries) {
      if (insertSummary(tx, { ...m, sessionId: row.id, project: row.project }) !== undefined) n.summaries += 1;
    }
  }
  return n;
}
