// The wire protocol between clients (extension, hook CLI, panel, viewer) and the worker.
// One module, no runtime dependencies: imported by every bundle. Inputs are validated
// here at the edge and never trusted past it.

export const PLATFORMS = ['claude-code', 'vscode', 'manual', 'import', 'vscode-agent', 'copilot-cli', 'codex', 'gemini-cli'] as const;
export type Platform = string;

export const OBSERVATION_TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security_alert', 'security_note'] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

export interface HealthResponse {
  status: 'ok';
  service: 'claude-mem-vscode';
  version: string;
  pid: number;
  port: number;
  uptimeMs: number;
  queueDepth: number;
  /** lastError only for a caller that sent the token. */
  provider: { name: string; state: string; lastError?: string };
  /** With ?nonce=: HMAC-SHA256 under the token of nonce, port, data dir and pid (worker/identity.ts). */
  proof?: string;
}

export interface InitRequest {
  contentSessionId: string;
  project?: string;
  cwd?: string;
  prompt?: string;
  platform?: Platform;
}
export interface InitResponse {
  sessionDbId: number;
  promptNumber: number;
  project: string;
  skipped?: string;
  /** The same prompt was already recorded for this session moments ago (ingest is idempotent). */
  duplicate?: true;
}

export interface ObservationRequest {
  contentSessionId: string;
  tool_name: string;
  tool_input?: unknown;
  tool_response?: unknown;
  cwd?: string;
  project?: string;
  platform?: Platform;
  tool_use_id?: string;
  /** Fingerprints of the files the tool use read or changed, taken by the client (see docs/freshness.md). */
  citations?: CitationsPayload;
}
export interface QueuedResponse {
  queued: true;
  jobId: number;
}
export interface SkippedResponse {
  skipped: string;
}

export interface SummarizeRequest {
  contentSessionId: string;
  platform?: Platform;
  last_user_message?: string;
  last_assistant_message?: string;
}

export interface CompleteRequest {
  contentSessionId: string;
  platform?: Platform;
  reason?: string;
}

export interface SaveMemoryRequest {
  text: string;
  title?: string;
  project?: string;
}

export interface Observation {
  id: number;
  sessionId: number;
  project: string;
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
  source: string;
  inputTokens: number;
  outputTokens: number;
  discoveryTokens: number;
  createdAt: string;
  createdAtEpoch: number;
  /** Set on records pulled from the team hub. */
  team?: TeamLabel;
  /** In POST /api/observations/batch when the memory is not simply fresh (docs/freshness.md). */
  freshness?: { status: FreshnessStatus; reason?: string; branch: string | null; otherBranch?: true; replacedBy?: number };
}

export interface Summary {
  id: number;
  sessionId: number;
  project: string;
  request: string | null;
  investigated: string | null;
  learned: string | null;
  completed: string | null;
  nextSteps: string | null;
  notes: string | null;
  promptNumber: number | null;
  createdAt: string;
  createdAtEpoch: number;
}

export interface SessionInfo {
  id: number;
  platform: string;
  contentSessionId: string;
  project: string;
  cwd: string | null;
  status: string;
  promptCounter: number;
  startedAt: string;
  completedAt: string | null;
}

export type StreamEventName = 'session_started' | 'new_prompt' | 'observation_queued' | 'new_observation' | 'new_summary' | 'session_completed' | 'observation_deleted' | 'project_deleted' | 'queue_changed' | 'memory_freshness';

export interface StreamEvent {
  event: StreamEventName;
  data: Record<string, unknown>;
}

// ---- validation -------------------------------------------------------------------------

export class BadRequest extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function asObject(body: unknown, what = 'body'): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest(`${what} must be a JSON object`);
  return body as Record<string, unknown>;
}

interface StrOpts {
  max?: number;
  allowEmpty?: boolean;
}

export function reqString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string {
  const v = o[key];
  if (typeof v !== 'string') throw new BadRequest(`field '${key}' is required and must be a string`);
  return checkString(key, v, opts);
}

export function optString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequest(`field '${key}' must be a string`);
  return checkString(key, v, { allowEmpty: true, ...opts });
}

function checkString(key: string, v: string, opts: StrOpts): string {
  if (!opts.allowEmpty && v.trim() === '') throw new BadRequest(`field '${key}' must not be empty`);
  if (opts.max !== undefined && v.length > opts.max) throw new BadRequest(`field '${key}' is longer than ${opts.max} characters`);
  return v;
}

/** Session ids, project names and similar identifiers: printable, bounded. */
export function reqId(o: Record<string, unknown>, key: string): string {
  const v = reqString(o, key, { max: 256 });
  if (/[\u0000-\u001f]/.test(v)) throw new BadRequest(`field '${key}' must not contain control characters`);
  return v;
}

export function optId(o: Record<string, unknown>, key: string): string | undefined {
  const v = optString(o, key, { max: 256 });
  if (v === undefined || v === '') return undefined;
  if (/[\u0000-\u001f]/.test(v)) throw new BadRequest(`field '${key}' must not contain control characters`);
  return v;
}

/** Integer query parameter with bounds; absent gives the default. */
export function intParam(raw: string | undefined, name: string, def: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw)) throw new BadRequest(`query '${name}' must be an integer`);
  const n = Number(raw);
  if (n < min || n > max) throw new BadRequest(`query '${name}' must be between ${min} and ${max}`);
  return n;
}

export function parseIdList(raw: unknown): number[] {
  let list: unknown = raw;
  if (typeof raw === 'string') {
    const s = raw.trim();
    if (s.startsWith('[')) {
      try {
        list = JSON.parse(s);
      } catch {
        throw new BadRequest('ids must be an array of integers, "1,2" or "[1,2]"');
      }
    } else {
      list = s === '' ? [] : s.split(',').map((x) => (/^\s*\d+\s*$/.test(x) ? Number(x) : NaN));
    }
  }
  if (!Array.isArray(list) || !list.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) {
    throw new BadRequest('ids must be an array of positive integers, "1,2" or "[1,2]"');
  }
  if (list.length > 500) throw new BadRequest('at most 500 ids per request');
  return list as number[];
}

// ---- agent: provider status and the `vscode` provider protocol --------------------------
// A VS Code window offers its language model (vscode.lm) as the compression provider:
//   GET  /api/agent/jobs?windowId=<id>&wait=<ms>&max=<n>   long-poll; answers AgentJobsResponse
//   POST /api/agent/results                                   body AgentResultRequest
//   DELETE /api/agent/windows/<windowId>                      the window leaves; its jobs go back
// A window counts as connected while a poll is open or for AGENT_WINDOW_GRACE_MS after its last one.
// The window sends `system` then `prompt` as user messages to its model and posts the reply text
// (or an error) back before `deadline`; after it the worker has given up on that job and re-queues it.

export const AGENT_PROTOCOL_VERSION = 1;
export const AGENT_WINDOW_GRACE_MS = 30_000;
export const AGENT_MAX_WAIT_MS = 60_000;

export type ProviderName = 'anthropic' | 'vscode' | 'local';
/** ready | backoff (cooling down after 429/5xx/network) | paused (auth, quota, config: needs a person)
 * | budget_exhausted (daily token budget spent) | waiting_for_window | no_key */
export type ProviderStateName = 'ready' | 'backoff' | 'paused' | 'budget_exhausted' | 'waiting_for_window' | 'no_key';

export interface ProviderStatus {
  /** The provider chosen by env / settings / key presence. */
  name: ProviderName;
  state: ProviderStateName;
  lastError?: string;
  /** Where work goes while the chosen provider cannot take it. */
  fallback?: 'local';
  model?: string;
  pausedReason?: 'auth' | 'quota' | 'config';
  /** Epoch ms: end of a backoff, or when a quota pause is probed again. */
  until?: number;
}

export interface AgentJob {
  /** Opaque; echo it in the result. */
  id: string;
  purpose: 'observe' | 'summarize' | 'verify';
  /** Instructions; vscode.lm has no system role, so send it as the first user message. */
  system: string;
  prompt: string;
  maxOutputTokens: number;
  /** Epoch ms after which a result is refused (410) and the work is offered again. */
  deadline: number;
}

export interface AgentJobsResponse {
  protocol: number;
  jobs: AgentJob[];
  /** false when the worker's provider is not `vscode`: stop polling until it is. */
  active: boolean;
  provider: ProviderName;
}

export type AgentErrorKind = 'auth' | 'quota' | 'rate_limit' | 'not_found' | 'unavailable' | 'other';

export interface AgentResultRequest {
  windowId: string;
  id: string;
  /** The model's reply text. Exactly one of text and error. */
  text?: string;
  /** auth (no consent / signed out), quota (quota or blocked), not_found (no such model) pause the
   * provider; rate_limit, unavailable and other are retried with backoff. */
  error?: { kind: AgentErrorKind; message: string };
  /** From LanguageModelChat.countTokens when the window has it; else the worker estimates. */
  inputTokens?: number;
  outputTokens?: number;
  /** e.g. "copilot/gpt-4o" */
  model?: string;
}

export interface AgentResultResponse {
  accepted: true;
}

export interface AgentWindowInfo {
  windowId: string;
  lastSeen: string;
  polling: boolean;
  jobsInFlight: number;
}

export interface AgentStatusResponse {
  provider: ProviderStatus;
  /** How the provider was chosen. */
  chosenBy: 'env' | 'settings' | 'api-key' | 'default';
  budget: { dailyTokens: number; usedToday: number; day: string };
  batching: { maxUses: number; maxAgeMs: number };
  windows: AgentWindowInfo[];
  /** Model calls waiting for a window to take them. */
  waitingJobs: number;
}

export interface AgentCredentialsRequest {
  /** An Anthropic API key from VS Code SecretStorage, kept in memory only; null forgets it. */
  anthropicApiKey: string | null;
}

const AGENT_ERROR_KINDS: readonly AgentErrorKind[] = ['auth', 'quota', 'rate_limit', 'not_found', 'unavailable', 'other'];

export function parseAgentResult(body: unknown): AgentResultRequest {
  const o = asObject(body);
  const windowId = reqId(o, 'windowId');
  const id = reqId(o, 'id');
  const text = optString(o, 'text', { max: 1_000_000 });
  let error: AgentResultRequest['error'];
  if (o.error !== undefined && o.error !== null) {
    const e = asObject(o.error, 'error');
    const kind = reqString(e, 'kind', { max: 40 });
    if (!(AGENT_ERROR_KINDS as readonly string[]).includes(kind)) throw new BadRequest(`error.kind must be one of ${AGENT_ERROR_KINDS.join(', ')}`);
    error = { kind: kind as AgentErrorKind, message: optString(e, 'message', { max: 4000 }) ?? '' };
  }
  if ((text === undefined) === (error === undefined)) throw new BadRequest('send exactly one of text and error');
  const count = (k: string): number | undefined => {
    const v = o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10_000_000) throw new BadRequest(`field '${k}' must be a non-negative integer`);
    return v;
  };
  return { windowId, id, text, error, inputTokens: count('inputTokens'), outputTokens: count('outputTokens'), model: optString(o, 'model', { max: 200 }) };
}

export function parseAgentCredentials(body: unknown): AgentCredentialsRequest {
  const o = asObject(body);
  const v = o.anthropicApiKey;
  if (v === null) return { anthropicApiKey: null };
  if (typeof v !== 'string' || v.trim() === '' || v.length > 1000 || /\s/.test(v.trim())) throw new BadRequest("field 'anthropicApiKey' must be a key string or null");
  return { anthropicApiKey: v.trim() };
}

// ---- search, timeline and context injection (progressive disclosure) ---------------------
//   GET  /api/search?query&project&type&kind&concepts&file&dateStart&dateEnd&limit&offset&mode  -> SearchResponse
//   GET  /api/timeline?anchor=<id>|S<summaryId>|<ISO time>&depth_before&depth_after&project    -> TimelineResponse
//   POST /api/observations/batch {ids}                                                          -> ObservationsBatchResponse
//   GET  /api/search/by-file?path&project&limit&offset                                          -> FileHistoryResponse
//   GET  /api/search/status, POST /api/search/reindex {project?, reembed?}                      -> SearchStatus
//   GET  /api/context/inject?project&budget&observations&sessions&full&types&concepts&format=markdown|json

export type SearchMode = 'keyword' | 'semantic' | 'hybrid';
export type SearchKind = 'observation' | 'summary' | 'prompt';

/** One compact result row: enough to decide whether to fetch the full record. */
export interface SearchRow {
  kind: SearchKind;
  id: number;
  /** How to refer to it: `123` for an observation, `S12` for a summary, `P7` for a prompt. */
  ref: string;
  /** The observation type; 'summary' or 'prompt' for those kinds. */
  type: string;
  title: string;
  project: string;
  sessionId: number;
  /** The platform of the record's session (claude-code, vscode, vscode-agent, copilot-cli, codex, gemini-cli, manual, import). */
  platform?: string;
  time: string;
  epoch: number;
  /** Higher is better; the scale depends on the mode (BM25, cosine, or fused rank). Null when browsing without a query. */
  score: number | null;
  /** Estimated tokens to read the full record (characters / 4). */
  readTokens: number;
  /** A short excerpt around the matched words (matches in **bold**). */
  snippet?: string;
  /** Set on records pulled from the team hub: who wrote it and on which machine (docs/team.md). */
  team?: TeamLabel;
  /** Freshness (observations only): 'stale' when a cited file changed since; 'retired' when retired. */
  freshness?: 'stale' | 'retired';
  /** What changed, e.g. "src/a.ts changed on main 2026-12-03". */
  staleReason?: string;
  /** The branch the memory was recorded on, when known. */
  branch?: string;
  /** Set when that branch is neither the asked-for branch nor one it came from. */
  otherBranch?: true;
}

export interface TeamLabel {
  author: string | null;
  machine: string | null;
}

export interface SearchResponse {
  query: string;
  /** The mode asked for. */
  mode: SearchMode;
  /** The mode that produced the rows: differs when the vector side was unavailable. */
  modeUsed: SearchMode | 'browse';
  /** Set when results are degraded, e.g. "semantic search unavailable (…); showing keyword results". */
  notice?: string;
  items: SearchRow[];
  limit: number;
  offset: number;
  hasMore: boolean;
  tookMs: number;
}

/** A search row without the score and snippet. */
export interface TimelineItem extends Omit<SearchRow, 'score' | 'snippet'> {
  /** The anchor record itself. */
  anchor?: true;
}

export interface TimelineResponse {
  anchor: { kind: SearchKind | 'time'; ref: string; time: string; epoch: number };
  project: string | null;
  items: TimelineItem[];
  depthBefore: number;
  depthAfter: number;
}

export interface ObservationsBatchResponse {
  items: Observation[];
  /** Requested ids that do not exist (or not in the given project). */
  missing: number[];
}

export interface FileHistoryItem extends TimelineItem {
  /** What the observation did with the file. */
  action: 'modified' | 'read';
  /** The stored path that matched. */
  path: string;
}

export interface FileHistoryResponse {
  path: string;
  project: string | null;
  items: FileHistoryItem[];
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface SearchStatus {
  embeddings: { provider: 'local' | 'remote' | 'off'; model: string | null; state: 'ready' | 'idle' | 'indexing' | 'unavailable' | 'off'; lastError?: string };
  /** Records with a current-model vector, and records still waiting for one. */
  indexed: { observations: number; summaries: number };
  pending: number;
  /**
   * The embedding backlog (absent when embeddings are off): records embedded since start, the
   * recent rate (records/s, null until two batches were stored) and the time left at that rate.
   */
  backlog?: { pending: number; embedded: number; ratePerSecond: number | null; etaMs: number | null };
  backend: 'auto' | 'vectra' | 'scan';
  scan: { loaded: boolean; items: number; bytes: number };
  vectra: { loadedProjects: string[]; maxItems: number };
  problems: string[];
}

export interface ReindexRequest {
  /** Only this project; all when absent. */
  project?: string;
  /** Drop stored vectors and embed every record again (e.g. after switching the model). */
  reembed?: boolean;
}

export interface ReindexResponse {
  project: string | null;
  reembed: boolean;
  /** Projects whose vectra index was rebuilt from SQLite. */
  rebuilt: string[];
  /** Vectors dropped for re-embedding. */
  dropped: number;
  status: SearchStatus;
}

/** GET /api/context/inject?format=json */
export interface ContextInjectResponse {
  project: string;
  markdown: string;
  tokens: number;
  budget: number;
  observations: number;
  summaries: number;
  /** True when the budget forced rows out. */
  truncated: boolean;
  /** Memories listed apart (or dropped, by setting) because a cited file changed since. */
  stale?: number;
}

export function parseReindexRequest(body: unknown): ReindexRequest {
  const o = body === undefined || body === null ? {} : asObject(body);
  const project = optId(o, 'project');
  const reembed = o.reembed;
  if (reembed !== undefined && typeof reembed !== 'boolean') throw new BadRequest("field 'reembed' must be a boolean");
  return { project, reembed: reembed === true };
}

export function parseBatchRequest(body: unknown): { ids: number[]; project?: string } {
  const o = asObject(body);
  if (!('ids' in o)) throw new BadRequest("field 'ids' is required: an array of integers, \"1,2\" or \"[1,2]\"");
  return { ids: parseIdList(o.ids), project: optId(o, 'project') };
}

// ---- freshness: citations with fingerprints, stale detection, re-verify (docs/freshness.md) ----
//   POST /api/freshness/check {project, branch?, bases?, commit?, files}                        -> FreshnessCheckResponse
//   GET  /api/freshness/cited?project&limit                                                     -> CitedFilesResponse
//   GET  /api/freshness/file?project&path&branch&bases                                          -> FileMemoriesResponse
//   GET  /api/freshness/observation/:id                                                         -> MemoryFreshness
//   POST /api/freshness/confirm {id, files?}, POST /api/freshness/retire {id, replacedBy?, note?} -> MemoryFreshness
//   POST /api/freshness/verify {id, files}                                                      -> VerifyResponse

/** One file as a client saw it. blob: git's blob id of the content (a content hash of the same formula outside git). */
export interface CitationFile {
  /** Repository-relative '/'-path (absolute outside a repository). */
  path: string;
  blob: string | null;
  tracked?: boolean;
  gone?: boolean;
}

/** What a client attaches to an observation: the workspace's git state and the files' fingerprints. */
export interface CitationsPayload {
  commit?: string | null;
  branch?: string | null;
  /** Branches the current one came from, nearest first. */
  bases?: string[];
  files: CitationFile[];
}

export interface CheckFile extends CitationFile {
  /** The file is gone from path but the same content is at movedTo (a rename). */
  movedTo?: string;
}

export interface FreshnessCheckRequest {
  project: string;
  branch?: string | null;
  bases?: string[];
  commit?: string | null;
  files: CheckFile[];
}

export interface FreshnessCheckResponse {
  /** Citations compared. */
  checked: number;
  /** Observations that became stale by this check. */
  stale: { id: number; path: string; change: 'changed' | 'deleted' }[];
  /** Observations fresh again (a file back to its cited content). */
  fresh: number[];
  moved: { id: number; from: string; to: string }[];
}

export interface CitedFilesResponse {
  project: string;
  /** Each cited path with the blob ids memories cite it at. */
  files: { path: string; blobs: string[] }[];
}

export type FreshnessStatus = 'fresh' | 'stale' | 'confirmed' | 'retired' | 'aged';

export interface CitationInfo {
  path: string;
  blob: string | null;
  commit: string | null;
  branch: string | null;
  state: 'fresh' | 'changed' | 'deleted';
  changedAt: string | null;
  changedOnBranch: string | null;
  movedFrom: string | null;
}

export interface MemoryFreshness {
  id: number;
  title: string;
  type: string;
  project: string;
  createdAt: string;
  status: FreshnessStatus;
  /** One line on what changed, when stale. */
  reason?: string;
  branch: string | null;
  otherBranch?: true;
  replacedBy?: number;
  citations: CitationInfo[];
}

export interface FileMemoriesResponse {
  project: string | null;
  path: string;
  items: MemoryFreshness[];
}

export interface VerifyFile {
  path: string;
  /** The file's blob id now (the memory is re-anchored to it when still true). */
  blob?: string | null;
  /** The changed lines (a unified diff), preferred. */
  diff?: string;
  /** Or the current content (capped by the worker). */
  content?: string;
}

export interface VerifyResponse {
  id: number;
  verdict: 'still-true' | 'changed' | 'wrong';
  /** The updated memory that replaces a changed one. */
  replacedBy?: number;
  memory: MemoryFreshness;
}
