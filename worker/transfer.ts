// Export and import: a self-describing JSON document. Import is validated whole (a bad field stores
// nothing), then written in chunks so other requests are answered meanwhile; it is idempotent
// (sessions by platform + id, the rest by their natural keys), so importing twice adds nothing.
import { BadRequest, asObject, projectNameProblem, type ObservationContent, type SessionContent, type SummaryContent } from '../common/contract';
import { cleanIncoming, cleanIncomingText } from '../common/privacy';
import { insertObservation, observationContent, type ObservationRow } from './store/repos/observations';
import { insertPrompt, type PromptRow } from './store/repos/prompts';
import { findSession, type SessionRow } from './store/repos/sessions';
import { insertSummary, type SummaryRow } from './store/repos/summaries';
import type { Store, WriteTx } from './store/store';
import {
  exportSessionFreshness,
  exportSessionGit,
  importObservationFreshness,
  importSessionGit,
  linkReplacements,
  parseObservationFreshness,
  parseSessionGit,
  type ExportedSessionGit,
  type ObservationFreshness,
  type ReplacementRef,
} from './freshness/transfer';

export const EXPORT_FORMAT = 'claude-mem-vscode/export';
export const EXPORT_VERSION = 1;

export interface ExportedSession extends SessionContent {
  startedAt: number;
  updatedAt: number;
  completedAt: number | null;
  completionReason: string | null;
  /** The branch the session worked on (freshness; absent in older documents). */
  git?: ExportedSessionGit;
  prompts: { promptNumber: number; text: string; createdAt: number }[];
  /** With their citations and confirmed/retired state (freshness; absent in older documents). */
  observations: (ObservationFreshness &
    ObservationContent & {
    toolName: string | null;
    promptNumber: number | null;
    contentHash: string;
    source: string;
    inputTokens: number;
    outputTokens: number;
    discoveryTokens: number;
    createdAt: number;
    /** A quiet note (noise: stored and searchable, not listed or injected); absent when not. */
    quiet?: boolean;
  })[];
  summaries: (SummaryContent & {
    promptNumber: number | null;
    contentHash: string;
    inputTokens: number;
    outputTokens: number;
    createdAt: number;
  })[];
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
    sessions: sessions.map((s) => {
      const git = exportSessionGit(store, s.id);
      const fresh = exportSessionFreshness(store, s.id);
      return {
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
        ...(git ? { git } : {}),
        prompts: store
          .all<PromptRow>('SELECT * FROM user_prompts WHERE session_id = ? ORDER BY prompt_number', [s.id])
          .map((p) => ({ promptNumber: p.prompt_number, text: p.text, createdAt: p.created_at })),
        observations: store.all<ObservationRow>('SELECT * FROM observations WHERE session_id = ? ORDER BY id', [s.id]).map((o) => ({
          ...observationContent(o),
          contentHash: o.content_hash,
          source: o.source,
          inputTokens: o.input_tokens,
          outputTokens: o.output_tokens,
          discoveryTokens: o.discovery_tokens,
          createdAt: o.created_at,
          ...(o.quiet ? { quiet: true } : {}),
          ...fresh.get(o.id),
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
      };
    }),
  };
}

// ---- import validation: every field checked, the path of the first bad one reported ----

type Obj = Record<string, unknown>;

/** A project name as the API takes it (lifecycle.ts): no ".", "..", separators or control characters. */
function importedProject(name: string, at: string): string {
  const why = projectNameProblem(name);
  if (why !== undefined) throw new BadRequest(`import: ${at}.project ${why}`);
  return name;
}

function field<T>(o: Obj, key: string, at: string, check: (v: unknown) => v is T, what: string): T {
  const v = o[key];
  if (!check(v)) throw new BadRequest(`import: ${at}.${key} must be ${what}`);
  return v;
}
const isStr = (v: unknown): v is string => typeof v === 'string';
const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isIntOrNull = (v: unknown): v is number | null => v === null || isInt(v);
const isArr = (v: unknown): v is unknown[] => Array.isArray(v);
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';

// The limits the API applies to the same fields (lifecycle.ts, protocol.ts), so an import cannot
// store what a hook or a save could not.
const LIMITS = {
  /** Session ids, project names, platforms, sources, hashes, tool names (protocol.ts reqId). */
  id: 256,
  cwd: 4096,
  title: 1000,
  /** A prompt as the API keeps it (lifecycle MAX_PROMPT, after stripping), with room for private blocks. */
  prompt: 200_000,
  /** A saved memory's text (lifecycle saveMemory: 10 x MAX_PROMPT). */
  text: 1_000_000,
  listItems: 1000,
  listItem: 4096,
};
/** Observation types: the taxonomy's or a custom lower-case slug (as search accepts them). */
const TYPE_RE = /^[a-z][a-z0-9_-]{0,39}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f]/;

const isId = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '' && v.length <= LIMITS.id && !CONTROL.test(v);
const isIdOrNull = (v: unknown): v is string | null => v === null || isId(v);
const isType = (v: unknown): v is string => typeof v === 'string' && TYPE_RE.test(v);
const maxStr = (n: number) => (v: unknown): v is string => typeof v === 'string' && v.length <= n;
const maxStrOrNull = (n: number) => (v: unknown): v is string | null => v === null || (typeof v === 'string' && v.length <= n);
const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.length <= LIMITS.listItems && v.every((x) => typeof x === 'string' && x.length <= LIMITS.listItem);
const ID = 'a non-empty string of at most 256 characters without control characters';
const LIST = `an array of at most ${LIMITS.listItems} strings of at most ${LIMITS.listItem} characters`;

function importDocSessions(body: unknown): unknown[] {
  const doc = asObject(body, 'import document');
  if (doc.format !== EXPORT_FORMAT) throw new BadRequest(`import: format must be "${EXPORT_FORMAT}"`);
  if (doc.version !== EXPORT_VERSION) throw new BadRequest(`import: version ${String(doc.version)} is not supported (expected ${EXPORT_VERSION})`);
  return field(doc, 'sessions', '$', isArr, 'an array');
}

export function parseImport(body: unknown): ExportedSession[] {
  return importDocSessions(body).map(parseSession);
}

/** Records validated between two yields to the event loop (a 50 MB document takes about 0.3 s to validate). */
const VALIDATE_SLICE = 2000;

/** parseImport, letting other requests in every few thousand records. */
export async function parseImportYielding(body: unknown): Promise<ExportedSession[]> {
  const out: ExportedSession[] = [];
  let since = 0;
  for (const [i, raw] of importDocSessions(body).entries()) {
    const s = parseSession(raw, i);
    out.push(s);
    since += 1 + s.prompts.length + s.observations.length + s.summaries.length;
    if (since >= VALIDATE_SLICE) {
      since = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return out;
}

/**
 * One session of a document: validated as sent (errors name the field), then every string of it
 * through cleanIncoming like live ingest (ids, hashes, branches and citations included).
 */
function parseSession(raw: unknown, i: number): ExportedSession {
  const at = `sessions[${i}]`;
  const { value } = cleanIncoming(validateSession(raw, at));
  if (value.contentSessionId.trim() === '' || value.platform.trim() === '') throw new BadRequest(`import: ${at}.contentSessionId and platform must not be empty once private content is removed`);
  value.project = value.project.trim() || 'imported';
  return value;
}

function validateSession(raw: unknown, at: string): ExportedSession {
  const s = asObject(raw, at);
  const status = field(s, 'status', at, isStr, 'a string');
  if (!['initialized', 'active', 'completed'].includes(status)) throw new BadRequest(`import: ${at}.status must be initialized, active or completed`);
  return {
    platform: field(s, 'platform', at, isId, ID),
    contentSessionId: field(s, 'contentSessionId', at, isId, ID),
    // Cleaned here as well as with the rest (cleanIncoming below) so the name is checked as stored.
    project: importedProject(cleanIncomingText(field(s, 'project', at, isId, ID)).value.trim() || 'imported', at),
    cwd: field(s, 'cwd', at, maxStrOrNull(LIMITS.cwd), `a string of at most ${LIMITS.cwd} characters or null`),
    status,
    promptCounter: field(s, 'promptCounter', at, isInt, 'a non-negative integer'),
    startedAt: field(s, 'startedAt', at, isInt, 'an epoch in ms'),
    updatedAt: field(s, 'updatedAt', at, isInt, 'an epoch in ms'),
    completedAt: field(s, 'completedAt', at, isIntOrNull, 'an epoch in ms or null'),
    completionReason: field(s, 'completionReason', at, isIdOrNull, `${ID}, or null`),
    ...(s.git !== undefined ? { git: parseSessionGit(s.git, at) } : {}),
    prompts: field(s, 'prompts', at, isArr, 'an array').map((r, j) => {
      const pa = `${at}.prompts[${j}]`;
      const p = asObject(r, pa);
      return {
        promptNumber: field(p, 'promptNumber', pa, isInt, 'an integer'),
        text: field(p, 'text', pa, maxStr(LIMITS.prompt), `a string of at most ${LIMITS.prompt} characters`),
        createdAt: field(p, 'createdAt', pa, isInt, 'an epoch in ms'),
      };
    }),
    observations: field(s, 'observations', at, isArr, 'an array').map((r, j) => {
      const oa = `${at}.observations[${j}]`;
      const o = asObject(r, oa);
      return {
        type: field(o, 'type', oa, isType, 'an observation type (lower-case letters, digits, _ or -, at most 40)'),
        title: field(o, 'title', oa, maxStr(LIMITS.title), `a string of at most ${LIMITS.title} characters`),
        subtitle: field(o, 'subtitle', oa, maxStrOrNull(LIMITS.title), `a string of at most ${LIMITS.title} characters or null`),
        facts: field(o, 'facts', oa, isStrList, LIST),
        narrative: field(o, 'narrative', oa, maxStrOrNull(LIMITS.text), `a string of at most ${LIMITS.text} characters or null`),
        concepts: field(o, 'concepts', oa, isStrList, LIST),
        filesRead: field(o, 'filesRead', oa, isStrList, LIST),
        filesModified: field(o, 'filesModified', oa, isStrList, LIST),
        toolName: field(o, 'toolName', oa, isIdOrNull, `${ID}, or null`),
        promptNumber: field(o, 'promptNumber', oa, isIntOrNull, 'an integer or null'),
        contentHash: field(o, 'contentHash', oa, isId, ID),
        source: field(o, 'source', oa, isId, ID),
        inputTokens: field(o, 'inputTokens', oa, isInt, 'an integer'),
        outputTokens: field(o, 'outputTokens', oa, isInt, 'an integer'),
        discoveryTokens: field(o, 'discoveryTokens', oa, isInt, 'an integer'),
        createdAt: field(o, 'createdAt', oa, isInt, 'an epoch in ms'),
        ...(o.quiet !== undefined ? { quiet: field(o, 'quiet', oa, isBool, 'true or false') } : {}),
        ...parseObservationFreshness(o, oa),
      };
    }),
    summaries: field(s, 'summaries', at, isArr, 'an array').map((r, j) => {
      const ma = `${at}.summaries[${j}]`;
      const m = asObject(r, ma);
      const text = (k: string) => field(m, k, ma, maxStrOrNull(LIMITS.text), `a string of at most ${LIMITS.text} characters or null`);
      return {
        request: text('request'),
        investigated: text('investigated'),
        learned: text('learned'),
        completed: text('completed'),
        nextSteps: text('nextSteps'),
        notes: text('notes'),
        promptNumber: field(m, 'promptNumber', ma, isIntOrNull, 'an integer or null'),
        contentHash: field(m, 'contentHash', ma, isId, ID),
        inputTokens: field(m, 'inputTokens', ma, isInt, 'an integer'),
        outputTokens: field(m, 'outputTokens', ma, isInt, 'an integer'),
        createdAt: field(m, 'createdAt', ma, isInt, 'an epoch in ms'),
      };
    }),
  };
}

export interface ImportCounts {
  sessions: number;
  prompts: number;
  observations: number;
  summaries: number;
}

/** Retired memories whose replacement is linked once the whole document is stored. */
type Links = { observationId: number; ref: ReplacementRef }[];

function ensureImportedSession(tx: WriteTx, s: ExportedSession, n: ImportCounts): SessionRow {
  let row = findSession(tx, s.platform, s.contentSessionId);
  if (!row) {
    tx.run(
      `INSERT INTO sessions (platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at, completed_at, completion_reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.platform, s.contentSessionId, s.project, s.cwd, s.status, s.promptCounter, s.startedAt, s.updatedAt, s.completedAt, s.completionReason],
    );
    row = findSession(tx, s.platform, s.contentSessionId) as SessionRow;
    importSessionGit(tx, row.id, s.git, s.updatedAt);
    n.sessions += 1;
  }
  return row;
}

type ImportItem =
  | { kind: 'prompt'; p: ExportedSession['prompts'][number] }
  | { kind: 'observation'; o: ExportedSession['observations'][number] }
  | { kind: 'summary'; m: ExportedSession['summaries'][number] };

function importItem(tx: WriteTx, row: SessionRow, item: ImportItem, n: ImportCounts, links: Links): void {
  if (item.kind === 'prompt') {
    const p = item.p;
    if (insertPrompt(tx, { sessionId: row.id, project: row.project, promptNumber: p.promptNumber, text: p.text, createdAt: p.createdAt }) !== undefined) n.prompts += 1;
  } else if (item.kind === 'observation') {
    const id = insertObservation(tx, { ...item.o, sessionId: row.id, project: row.project });
    if (id === undefined) return; // already there, with its own citations
    n.observations += 1;
    const ref = importObservationFreshness(tx, id, row.project, item.o);
    if (ref) links.push({ observationId: id, ref });
  } else if (insertSummary(tx, { ...item.m, sessionId: row.id, project: row.project }) !== undefined) n.summaries += 1;
}

const itemsOf = (s: ExportedSession): ImportItem[] => [
  ...s.prompts.map((p) => ({ kind: 'prompt' as const, p })),
  ...s.observations.map((o) => ({ kind: 'observation' as const, o })),
  ...s.summaries.map((m) => ({ kind: 'summary' as const, m })),
];

/** Imports in one transaction (small imports, test fixtures). */
export function importSessions(tx: WriteTx, sessions: ExportedSession[]): ImportCounts {
  const n: ImportCounts = { sessions: 0, prompts: 0, observations: 0, summaries: 0 };
  const links: Links = [];
  for (const s of sessions) {
    const row = ensureImportedSession(tx, s, n);
    for (const item of itemsOf(s)) importItem(tx, row, item, n, links);
  }
  linkReplacements(tx, links);
  return n;
}

/** Records per transaction of a chunked import: each holds the event loop for tens of ms, not the whole import. */
export const IMPORT_CHUNK = 100;

/**
 * Imports in transactions of `chunk` records, letting other requests in between. The document is
 * validated whole before the first write (a bad field stores nothing); a storage failure midway
 * leaves the chunks before it, and importing the same document again completes it (import is
 * idempotent: sessions by platform + id, records by content hash or prompt number).
 */
export async function importChunked(store: Store, sessions: ExportedSession[], chunk = IMPORT_CHUNK): Promise<ImportCounts> {
  const n: ImportCounts = { sessions: 0, prompts: 0, observations: 0, summaries: 0 };
  const links: Links = [];
  let pending: { s: ExportedSession; item: ImportItem | null }[] = [];
  const flush = async () => {
    const work = pending;
    pending = [];
    const rows = new Map<ExportedSession, SessionRow>();
    await store.write((tx) => {
      for (const { s, item } of work) {
        let row = rows.get(s);
        if (!row) rows.set(s, (row = ensureImportedSession(tx, s, n)));
        if (item) importItem(tx, row, item, n, links);
      }
    });
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (const s of sessions) {
    const items = itemsOf(s);
    if (items.length === 0) pending.push({ s, item: null });
    for (const item of items) {
      pending.push({ s, item });
      if (pending.length >= chunk) await flush();
    }
    if (pending.length >= chunk) await flush();
  }
  if (pending.length > 0) await flush();
  if (links.length > 0) await store.write((tx) => linkReplacements(tx, links));
  return n;
}
