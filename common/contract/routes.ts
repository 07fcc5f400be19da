// The request and response of every worker route (the table ROUTES at the end names them all),
// shared by every process: worker, hook CLI, MCP server, extension, panel. Types and request
// validators only; no Node, vscode or DOM imports (the webview bundles this).
import { asObject, BadRequest, optId, optString, parseIdList, reqId, reqString } from './validate';
import type { Platform } from './taxonomy';

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
  /** With ?nonce=: HMAC-SHA256 under the token of nonce, port, data dir and pid (common/node/identity.ts). */
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

/** What an observation says: written by the compressor, stored, exported, served (one list of fields). */
export interface ObservationContent {
  type: string;
  title: string;
  subtitle: string | null;
  facts: string[];
  narrative: string | null;
  concepts: string[];
  filesRead: string[];
  filesModified: string[];
}

/** What a session summary says. */
export interface SummaryContent {
  request: string | null;
  investigated: string | null;
  learned: string | null;
  completed: string | null;
  nextSteps: string | null;
  notes: string | null;
}

export interface Observation extends ObservationContent {
  id: number;
  sessionId: number;
  project: string;
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
  /** In GET /api/observations, GET /api/observation/:id and POST /api/observations/batch when the memory is not simply fresh (docs/freshness.md). */
  freshness?: { status: FreshnessStatus; reason?: string; branch: string | null; otherBranch?: true; replacedBy?: number; decidedBy?: string };
}

export interface Summary extends SummaryContent {
  id: number;
  sessionId: number;
  project: string;
  promptNumber: number | null;
  createdAt: string;
  createdAtEpoch: number;
}

/** What a session is, wherever it is sent (a route's reply, an export). */
export interface SessionContent {
  platform: string;
  contentSessionId: string;
  project: string;
  cwd: string | null;
  status: string;
  promptCounter: number;
}

export interface SessionInfo extends SessionContent {
  id: number;
  startedAt: string;
  completedAt: string | null;
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
  purpose: 'observe' | 'summarize' | 'verify' | 'rerank';
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
//   GET  /api/search?query&project&type&kind&concepts&file&dateStart&dateEnd&limit&offset&mode&rerank=model -> SearchResponse
//   GET  /api/timeline?anchor=<id>|S<summaryId>|<ISO time>&depth_before&depth_after&project    -> TimelineResponse
//   POST /api/observations/batch {ids}                                                          -> ObservationsBatchResponse
//   GET  /api/search/by-file?path&project&limit&offset                                          -> FileHistoryResponse
//   POST /api/search/by-file?<the same> {FreshnessCheckRequest}: the check applied, then the same reply
//   GET  /api/search/status, POST /api/search/reindex {project?, reembed?}                      -> SearchStatus
//   GET  /api/context/inject?project&budget&observations&sessions&full&types&concepts&teammates=0|1&format=markdown|json
//   POST /api/context/inject?<the same> {FreshnessCheckRequest}: the check applied, then the same reply

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
  /** The teammate whose confirm or retire the memory's state came from (team sync). */
  decidedBy?: string;
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
  /**
   * With `rerank=model`: "model" when the worker's compression model reordered the best rows, else
   * why the plain order stands ("no model", "model timed out", "model call failed", …).
   */
  rerank?: string;
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
  scan: { loaded: boolean; items: number; bytes: number };
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
  /** Projects whose part of the vector scan was reloaded from the stored vectors. */
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
  /** A file a tool moved (a patch's "Move to") is gone with movedTo: memories citing it follow it. */
  files: CheckFile[];
}

export interface CheckFile extends CitationFile {
  /** The file is gone from path but the same content is at movedTo (a rename). */
  movedTo?: string;
  /** Where a different content is (the client asked git): in a commit on the branch, or only in the work tree or index. */
  change?: 'committed' | 'uncommitted';
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
  /** The folder the project was last worked in (the newest session's cwd), when known. */
  folder?: string | null;
  /**
   * Each cited path with the blob ids memories cite it at, the commit of its newest citation (a
   * client asks git for renames since then: a file renamed and edited in one commit), and `stale`
   * when some citation of it holds a verdict (a client that finds the cited content reports it then
   * only, so the verdict clears; a file at its cited content with no verdict is not sent).
   */
  files: { path: string; blobs: string[]; commit?: string | null; stale?: true }[];
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
  /** The teammate whose confirm or retire this state came from (team sync); absent for the user's own. */
  decidedBy?: string;
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

// ---- status, queue, lists and admin --------------------------------------------------------

export interface ReadinessResponse {
  ready: boolean;
  schemaVersion: number;
  /** 'ok', 'degraded', or 'read-only: <why>'. */
  storage: string;
  /** One sentence for people when not ready: what is wrong and what to do. */
  message: string | null;
  /** The store's recovery report (worker/store/recovery.ts): diagnostics. */
  recovery: unknown;
  snapshotReplica: boolean;
}

export interface ProjectInfo {
  name: string;
  sessions: number;
  observations: number;
  lastActivity: string;
}

export interface ProjectsResponse {
  projects: ProjectInfo[];
}

export interface QueueCounts {
  pending: number;
  dead: number;
  inFlight: number;
}

export interface DeadJob {
  id: number;
  kind: string;
  sessionDbId: number;
  attempts: number;
  lastError: string | null;
  createdAt: string;
}

export interface StatsResponse {
  sessions: number;
  prompts: number;
  observations: number;
  summaries: number;
  queue: QueueCounts;
  tokens: { modelInput: number; modelOutput: number; discovery: number };
  worker: { pid: number; version: string; uptimeMs: number; rssBytes: number; heapUsedBytes: number; streamClients: number };
  /** state: 'ok', 'degraded' (acknowledged data missing) or 'read-only'; message says what to do.
   * The journal and snapshot figures are diagnostics for people and benches. */
  storage: { state: 'ok' | 'degraded' | 'read-only'; message: string | null; journalBytes: number; journalGen: number; lastSnapshot: unknown; fdatasync: unknown; pageCache?: { size: number; cachedBytes: number; dirtyBytes: number; reads: number; evictions: number; headGen: number } };
}

/** GET /api/queue: counts, and the dead jobs themselves. */
export interface QueueResponse {
  pending: number;
  dead: DeadJob[];
  inFlight: number;
}

export interface RetryResponse {
  retried: number;
}

export interface ListResponse<T> {
  items: T[];
  limit: number;
  offset: number;
}

export type ObservationListResponse = ListResponse<Observation>;
export type SessionListResponse = ListResponse<SessionInfo>;

export interface DeletedResponse {
  deleted: number;
}

export interface ProjectDeletedResponse {
  deleted: string;
  sessions: number;
}

export type InitReply = InitResponse | (SkippedResponse & { project: string });
export type QueuedOrSkipped = QueuedResponse | SkippedResponse;

export interface CompleteResponse {
  sessionDbId: number;
  status: 'completed';
  summaryQueued: boolean;
}

export interface SaveMemoryResponse {
  id: number;
  duplicate: boolean;
  project: string;
}

export interface ImportResponse {
  imported: { sessions: number; prompts: number; observations: number; summaries: number };
}

/** GET /api/export: every session of a project (or all) with its prompts, observations, summaries and
 * freshness; POST /api/import takes the same document. The session shape is worker/transfer.ts's
 * ExportedSession (it depends on the freshness export, not yet in the contract). */
export interface ExportDocument {
  format: 'claude-mem-vscode/export';
  version: number;
  exportedAt: string;
  project: string | null;
  sessions: unknown[];
}

export interface ViewerCodeResponse {
  code: string;
  expiresInMs: number;
  path: string;
}

export interface ProviderReply {
  provider: ProviderStatus;
}

export interface ReleasedResponse {
  released: number;
}

// ---- team memory (docs/team.md) ----------------------------------------------------------

export type TeamState = 'off' | 'connecting' | 'connected' | 'offline' | 'error';

export interface TeamShareInfo {
  project: string;
  team: string;
  cursor: number;
  /** 1 when prompts are shared too (a separate opt-in). */
  prompts: number;
  waiting: number;
}

export interface TeamStatus {
  state: TeamState;
  /** Where the connection string came from (never the string itself). */
  source: 'extension' | 'env' | 'file' | null;
  /** host:port/database of the hub, no user or password. */
  hub: string | null;
  author: string | null;
  machine: string;
  machineId: string | null;
  /** Outbox entries not yet acknowledged by the hub. */
  waiting: number;
  shares: TeamShareInfo[];
  lastError: string | null;
  lastPushAt: string | null;
  lastPullAt: string | null;
  injectTeammates: boolean;
}

export interface TeamShareResponse {
  project: string;
  team: string;
  queued: number;
  prompts: boolean;
  status: TeamStatus;
}

/** POST /api/team/forget: the project forgotten for the whole team (a maintainer's right). */
export interface TeamForgetResponse {
  project: string;
  team: string;
  /** Records tombstoned on the hub (0 for a share that never held one: it is removed from the hub). */
  tombstoned: number;
}

export interface TeamUnshareResponse {
  project: string;
  unshared: boolean;
}

export interface TeamRecordsResponse {
  project: string;
  items: { kind: string; localId: number; gid: string; origin: string; author: string | null; machine: string | null; title: string | null }[];
}

// ---- every route and its reply ---------------------------------------------------------------
// A route the worker serves that is missing here fails test/unit/contract-routes.test.ts.

export interface RouteReplies {
  'GET /api/health': HealthResponse;
  'GET /api/readiness': ReadinessResponse;
  'GET /api/stats': StatsResponse;
  'GET /api/queue': QueueResponse;
  'POST /api/queue/retry': RetryResponse;
  'POST /api/noop': { ok: true };
  'POST /api/admin/snapshot': unknown;
  'POST /api/admin/shutdown': { stopping: true; pid: number };
  'POST /api/sessions/init': InitReply;
  'POST /api/sessions/observations': QueuedOrSkipped;
  'POST /api/sessions/summarize': QueuedOrSkipped;
  'POST /api/sessions/complete': CompleteResponse;
  'GET /api/sessions': SessionListResponse;
  'GET /api/observations': ObservationListResponse;
  'GET /api/observation/:id': Observation;
  'DELETE /api/observation/:id': DeletedResponse;
  'GET /api/projects': ProjectsResponse;
  'DELETE /api/projects/:name': ProjectDeletedResponse;
  'DELETE /api/session/:id': DeletedResponse;
  'POST /api/memory/save': SaveMemoryResponse;
  'GET /api/export': ExportDocument;
  'POST /api/import': ImportResponse;
  /** Server-sent events, each a TypedStreamEvent (common/contract/stream.ts). */
  'GET /stream': 'text/event-stream';
  'GET /api/search': SearchResponse;
  'GET /api/timeline': TimelineResponse;
  'POST /api/observations/batch': ObservationsBatchResponse;
  'GET /api/search/by-file': FileHistoryResponse;
  /** The same, after applying the body's freshness check (FreshnessCheckRequest). */
  'POST /api/search/by-file': FileHistoryResponse;
  'GET /api/search/status': SearchStatus;
  'POST /api/search/reindex': ReindexResponse;
  /** Markdown by default; ContextInjectResponse with format=json. */
  'GET /api/context/inject': string | ContextInjectResponse;
  /** The same, after applying the body's freshness check (FreshnessCheckRequest). */
  'POST /api/context/inject': string | ContextInjectResponse;
  'GET /api/agent/status': AgentStatusResponse;
  'POST /api/agent/resume': ProviderReply;
  'POST /api/agent/credentials': ProviderReply;
  'GET /api/agent/jobs': AgentJobsResponse;
  'POST /api/agent/results': AgentResultResponse;
  'DELETE /api/agent/windows/:windowId': ReleasedResponse;
  /** The viewer page (HTML). */
  'GET /': 'text/html';
  'POST /api/viewer/code': ViewerCodeResponse;
  'GET /api/team/status': TeamStatus;
  'POST /api/team/share': TeamShareResponse;
  'POST /api/team/unshare': TeamUnshareResponse;
  'POST /api/team/forget': TeamForgetResponse;
  'POST /api/team/sync': TeamStatus;
  'POST /api/team/connection': TeamStatus;
  'GET /api/team/records': TeamRecordsResponse;
  /** Tests only (CLAUDE_MEM_TEST_HOOKS=1). */
  'POST /api/team/test/clock': { now: string };
  'POST /api/freshness/check': FreshnessCheckResponse;
  'GET /api/freshness/cited': CitedFilesResponse;
  'GET /api/freshness/file': FileMemoriesResponse;
  'GET /api/freshness/observation/:id': MemoryFreshness;
  'POST /api/freshness/confirm': MemoryFreshness;
  'POST /api/freshness/retire': MemoryFreshness;
  'POST /api/freshness/verify': VerifyResponse;
}

export type RouteKey = keyof RouteReplies;
export type RouteReply<K extends RouteKey> = RouteReplies[K];

/** The keys of RouteReplies at run time (the compiler checks that none is missing or extra). */
export const ROUTE_KEYS = [
  'GET /api/health', 'GET /api/readiness', 'GET /api/stats', 'GET /api/queue', 'POST /api/queue/retry', 'POST /api/noop', 'POST /api/admin/snapshot', 'POST /api/admin/shutdown',
  'POST /api/sessions/init', 'POST /api/sessions/observations', 'POST /api/sessions/summarize', 'POST /api/sessions/complete', 'GET /api/sessions',
  'GET /api/observations', 'GET /api/observation/:id', 'DELETE /api/observation/:id', 'GET /api/projects', 'DELETE /api/projects/:name', 'DELETE /api/session/:id', 'POST /api/memory/save',
  'GET /api/export', 'POST /api/import', 'GET /stream',
  'GET /api/search', 'GET /api/timeline', 'POST /api/observations/batch', 'GET /api/search/by-file', 'POST /api/search/by-file', 'GET /api/search/status', 'POST /api/search/reindex', 'GET /api/context/inject', 'POST /api/context/inject',
  'GET /api/agent/status', 'POST /api/agent/resume', 'POST /api/agent/credentials', 'GET /api/agent/jobs', 'POST /api/agent/results', 'DELETE /api/agent/windows/:windowId',
  'GET /', 'POST /api/viewer/code',
  'GET /api/team/status', 'POST /api/team/share', 'POST /api/team/unshare', 'POST /api/team/forget', 'POST /api/team/sync', 'POST /api/team/connection', 'GET /api/team/records', 'POST /api/team/test/clock',
  'POST /api/freshness/check', 'GET /api/freshness/cited', 'GET /api/freshness/file', 'GET /api/freshness/observation/:id', 'POST /api/freshness/confirm', 'POST /api/freshness/retire', 'POST /api/freshness/verify',
] as const satisfies readonly RouteKey[];

type Unlisted = Exclude<RouteKey, (typeof ROUTE_KEYS)[number]>;
/** Compile-time: every key of RouteReplies is in ROUTE_KEYS. */
export const ROUTE_KEYS_COMPLETE: [Unlisted] extends [never] ? true : Unlisted = true;
