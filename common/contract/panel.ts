// The Memory panel's protocol, shared by its two sides (the gitlens shape: a host side and an
// app side with one typed protocol between them):
//   - the app (media/panel, running in a VS Code webview or in the worker's browser viewer), and
//   - its host: the extension (extension/panel/host.ts) over postMessage, or, in the browser,
//     the worker itself over fetch + EventSource.
// Every worker call the app may make is an *operation* named here with its parameters; both
// transports turn an operation into the same HTTP request with `httpFor`, so the webview can
// reach only these routes, with validated parameters. No vscode, no DOM, no Node imports.
import type { RouteReply, SaveMemoryRequest, SearchMode } from './routes';
import { STREAM_EVENT_NAMES, type StreamEvent, type StreamEventName } from './stream';
import { FieldChecks } from './validate';

/** The stream events the panel follows: all of them. */
export const STREAM_EVENTS: readonly StreamEventName[] = STREAM_EVENT_NAMES;

/** The command the extension registers for "Pause/Resume Capture"; the page asks the host to run it. */
export const TOGGLE_CAPTURE_COMMAND = 'claudeMem.toggleCapture';

export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'keyword', 'semantic'];

export interface SearchParams {
  query?: string;
  /** Record kinds, comma-separated: observation, summary, prompt. */
  kind?: string;
  project?: string;
  /** Only sessions of this platform (claude-code, vscode, vscode-agent, copilot-cli, codex, gemini-cli). */
  platform?: string;
  type?: string;
  concepts?: string;
  file?: string;
  /** YYYY-MM-DD or an ISO time. */
  dateStart?: string;
  dateEnd?: string;
  limit?: number;
  offset?: number;
  mode?: SearchMode;
}

export interface TimelineParams {
  /** An observation id, `S<summaryId>`, or an ISO time. */
  anchor: string;
  depthBefore?: number;
  depthAfter?: number;
  project?: string;
}

export type SaveMemoryParams = SaveMemoryRequest;

/** Every operation: its parameters and the reply it resolves to (the reply of its route, RouteReplies). */
export interface Ops {
  health: { params: Record<string, never>; result: RouteReply<'GET /api/health'> };
  stats: { params: Record<string, never>; result: RouteReply<'GET /api/stats'> };
  queue: { params: Record<string, never>; result: RouteReply<'GET /api/queue'> };
  projects: { params: Record<string, never>; result: RouteReply<'GET /api/projects'> };
  observations: { params: { project?: string; limit?: number; offset?: number }; result: RouteReply<'GET /api/observations'> };
  sessions: { params: { project?: string; limit?: number; offset?: number }; result: RouteReply<'GET /api/sessions'> };
  observation: { params: { id: number }; result: RouteReply<'GET /api/observation/:id'> };
  /** Full records for many ids. */
  observationsBatch: { params: { ids: number[] }; result: RouteReply<'POST /api/observations/batch'> };
  /** Compact ranked rows. */
  search: { params: SearchParams; result: RouteReply<'GET /api/search'> };
  /** What happened around a point. */
  timeline: { params: TimelineParams; result: RouteReply<'GET /api/timeline'> };
  deleteObservation: { params: { id: number }; result: RouteReply<'DELETE /api/observation/:id'> };
  forgetSession: { params: { id: number }; result: RouteReply<'DELETE /api/session/:id'> };
  forgetProject: { params: { name: string }; result: RouteReply<'DELETE /api/projects/:name'> };
  saveMemory: { params: SaveMemoryParams; result: RouteReply<'POST /api/memory/save'> };
  retryQueue: { params: { ids?: number[] }; result: RouteReply<'POST /api/queue/retry'> };
  agentStatus: { params: Record<string, never>; result: RouteReply<'GET /api/agent/status'> };
  /** Lifts a paused or backed-off compression provider. */
  resumeProvider: { params: Record<string, never>; result: RouteReply<'POST /api/agent/resume'> };
  searchStatus: { params: Record<string, never>; result: RouteReply<'GET /api/search/status'> };
}

export type OpName = keyof Ops;
export type OpParams<K extends OpName> = Ops[K]['params'];
export type OpResult<K extends OpName> = Ops[K]['result'];

export const OP_NAMES: readonly OpName[] = [
  'health',
  'stats',
  'queue',
  'projects',
  'observations',
  'sessions',
  'observation',
  'observationsBatch',
  'search',
  'timeline',
  'deleteObservation',
  'forgetSession',
  'forgetProject',
  'saveMemory',
  'retryQueue',
  'agentStatus',
  'resumeProvider',
  'searchStatus',
];

export function isOpName(v: unknown): v is OpName {
  return typeof v === 'string' && (OP_NAMES as readonly string[]).includes(v);
}

// ---- operation -> HTTP ------------------------------------------------------------------

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
}

/** Bad parameters from the page: answered as a 400 without calling the worker. */
export class ProtocolError extends Error {}

type Params = Record<string, unknown>;

/** The panel's parameters: "project must be a string" (the worker's checks, named plainly). */
const fields = new FieldChecks({
  name: (key) => key,
  fail: (message) => {
    throw new ProtocolError(message);
  },
});

function obj(v: unknown): Params {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new ProtocolError('params must be an object');
  return v as Params;
}

function str(p: Params, key: string, max = 1000): string | undefined {
  const v = p[key];
  if (v === undefined || v === null || v === '') return undefined;
  fields.maxLength(key, fields.string(key, v), max);
  return key === 'text' ? (v as string) : fields.printable(key, v as string);
}

function reqStr(p: Params, key: string, max = 1000): string {
  const v = str(p, key, max);
  return fields.notBlank(key, v ?? '', 'is required');
}

function int(p: Params, key: string, min: number, max: number): number | undefined {
  const v = p[key];
  if (v === undefined || v === null) return undefined;
  return fields.int(key, v, min, max);
}

function reqId(p: Params, key = 'id'): number {
  const v = int(p, key, 1, Number.MAX_SAFE_INTEGER);
  return v ?? fields.fail(key, 'is required');
}

function ids(p: Params): number[] {
  const v = p.ids;
  if (!Array.isArray(v) || v.length === 0 || v.length > 500 || !v.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) {
    throw new ProtocolError('ids must be 1 to 500 positive integers');
  }
  return v as number[];
}

function query(pairs: [string, string | number | undefined][]): string {
  const q = pairs.filter((kv): kv is [string, string | number] => kv[1] !== undefined && kv[1] !== '');
  return q.length === 0 ? '' : '?' + q.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');
}

function empty(p: Params): void {
  if (Object.keys(p).length > 0) throw new ProtocolError('this operation takes no parameters');
}

/** Validates an operation's parameters and gives the worker request that carries it out. */
export function httpFor(op: OpName, rawParams: unknown): HttpCall {
  const p = obj(rawParams);
  switch (op) {
    case 'health':
      empty(p);
      return { method: 'GET', path: '/api/health' };
    case 'stats':
      empty(p);
      return { method: 'GET', path: '/api/stats' };
    case 'queue':
      empty(p);
      return { method: 'GET', path: '/api/queue' };
    case 'projects':
      empty(p);
      return { method: 'GET', path: '/api/projects' };
    case 'observations':
    case 'sessions':
      return {
        method: 'GET',
        path: `/api/${op}` + query([['project', str(p, 'project', 256)], ['limit', int(p, 'limit', 1, 1000)], ['offset', int(p, 'offset', 0, 1e9)]]),
      };
    case 'observation':
      return { method: 'GET', path: `/api/observation/${reqId(p)}` };
    case 'observationsBatch':
      return { method: 'POST', path: '/api/observations/batch', body: { ids: ids(p) } };
    case 'search': {
      const mode = str(p, 'mode', 20);
      if (mode !== undefined && !(SEARCH_MODES as readonly string[]).includes(mode)) throw new ProtocolError(`mode must be one of ${SEARCH_MODES.join(', ')}`);
      return {
        method: 'GET',
        path:
          '/api/search' +
          query([
            ['query', str(p, 'query', 2000)],
            ['kind', str(p, 'kind', 100)],
            ['project', str(p, 'project', 256)],
            ['platform', str(p, 'platform', 40)],
            ['type', str(p, 'type', 200)],
            ['concepts', str(p, 'concepts', 500)],
            ['file', str(p, 'file', 4096)],
            ['dateStart', str(p, 'dateStart', 40)],
            ['dateEnd', str(p, 'dateEnd', 40)],
            ['limit', int(p, 'limit', 1, 500)],
            ['offset', int(p, 'offset', 0, 1e9)],
            ['mode', mode],
          ]),
      };
    }
    case 'timeline':
      return {
        method: 'GET',
        path:
          '/api/timeline' +
          query([
            ['anchor', reqStr(p, 'anchor', 64)],
            ['depth_before', int(p, 'depthBefore', 0, 100)],
            ['depth_after', int(p, 'depthAfter', 0, 100)],
            ['project', str(p, 'project', 256)],
          ]),
      };
    case 'deleteObservation':
      return { method: 'DELETE', path: `/api/observation/${reqId(p)}` };
    case 'forgetSession':
      return { method: 'DELETE', path: `/api/session/${reqId(p)}` };
    case 'forgetProject':
      return { method: 'DELETE', path: `/api/projects/${encodeURIComponent(reqStr(p, 'name', 256))}` };
    case 'saveMemory': {
      const text = reqStr(p, 'text', 1_000_000);
      const title = str(p, 'title', 300);
      const project = str(p, 'project', 256);
      return { method: 'POST', path: '/api/memory/save', body: { text, ...(title ? { title } : {}), ...(project ? { project } : {}) } };
    }
    case 'retryQueue':
      return { method: 'POST', path: '/api/queue/retry', body: { ids: p.ids === undefined ? 'all' : ids(p) } };
    case 'agentStatus':
      empty(p);
      return { method: 'GET', path: '/api/agent/status' };
    case 'resumeProvider':
      empty(p);
      return { method: 'POST', path: '/api/agent/resume' };
    case 'searchStatus':
      empty(p);
      return { method: 'GET', path: '/api/search/status' };
  }
}

// ---- messages between the page and the extension host -----------------------------------

export interface Capabilities {
  /** File paths are links that open in the editor. */
  openFiles: boolean;
  /** Capture can be paused from the page (the extension's capture; the browser has none). */
  pauseCapture: boolean;
}

export type ConnectionState = 'connecting' | 'connected' | 'disconnected' | 'no-worker';

/** Page -> host. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'request'; id: number; op: OpName; params: unknown }
  | { type: 'openFile'; path: string; line?: number; project?: string }
  | { type: 'toggleCapture' };

/** Host -> page. */
export type HostMessage =
  | { type: 'hello'; capabilities: Capabilities; project?: string; capturePaused?: boolean }
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; status: number; error: string }
  | { type: 'event'; event: StreamEvent }
  | { type: 'connection'; state: ConnectionState; detail?: string }
  | { type: 'capture'; paused: boolean };

const isObj = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Validates a message from the page; anything else is undefined (and ignored by the host). */
export function parsePageMessage(raw: unknown): PageMessage | undefined {
  if (!isObj(raw)) return undefined;
  switch (raw.type) {
    case 'ready':
      return { type: 'ready' };
    case 'toggleCapture':
      return { type: 'toggleCapture' };
    case 'request':
      if (!isId(raw.id) || !isOpName(raw.op)) return undefined;
      return { type: 'request', id: raw.id, op: raw.op, params: raw.params };
    case 'openFile': {
      if (typeof raw.path !== 'string' || raw.path === '' || raw.path.length > 4096 || /[\u0000-\u001f]/.test(raw.path)) return undefined;
      const line = isId(raw.line) && raw.line > 0 ? raw.line : undefined;
      const project = typeof raw.project === 'string' && raw.project.length <= 256 ? raw.project : undefined;
      return { type: 'openFile', path: raw.path, ...(line ? { line } : {}), ...(project ? { project } : {}) };
    }
    default:
      return undefined;
  }
}

const CONNECTION_STATES: readonly ConnectionState[] = ['connecting', 'connected', 'disconnected', 'no-worker'];

/** Validates a message from the host; anything else is undefined (and ignored by the page). */
export function parseHostMessage(raw: unknown): HostMessage | undefined {
  if (!isObj(raw)) return undefined;
  switch (raw.type) {
    case 'hello': {
      const c = isObj(raw.capabilities) ? raw.capabilities : {};
      return {
        type: 'hello',
        capabilities: { openFiles: c.openFiles === true, pauseCapture: c.pauseCapture === true },
        ...(typeof raw.project === 'string' && raw.project !== '' ? { project: raw.project } : {}),
        ...(typeof raw.capturePaused === 'boolean' ? { capturePaused: raw.capturePaused } : {}),
      };
    }
    case 'reply':
      if (!isId(raw.id)) return undefined;
      if (raw.ok === true) return { type: 'reply', id: raw.id, ok: true, result: raw.result };
      if (raw.ok === false) return { type: 'reply', id: raw.id, ok: false, status: typeof raw.status === 'number' ? raw.status : 0, error: typeof raw.error === 'string' ? raw.error : 'request failed' };
      return undefined;
    case 'event': {
      const e = raw.event;
      if (!isObj(e) || !(STREAM_EVENTS as readonly unknown[]).includes(e.event) || !isObj(e.data)) return undefined;
      return { type: 'event', event: { event: e.event as StreamEventName, data: e.data } };
    }
    case 'connection':
      if (!(CONNECTION_STATES as readonly unknown[]).includes(raw.state)) return undefined;
      return { type: 'connection', state: raw.state as ConnectionState, ...(typeof raw.detail === 'string' ? { detail: raw.detail } : {}) };
    case 'capture':
      return typeof raw.paused === 'boolean' ? { type: 'capture', paused: raw.paused } : undefined;
    default:
      return undefined;
  }
}

/** The message a worker error body carries, or a fallback that names the status. */
export function errorText(status: number, body: unknown): string {
  if (isObj(body) && typeof body.error === 'string') return body.error;
  if (typeof body === 'string' && body.trim() !== '' && body.length < 300) return body;
  return `the worker answered ${status}`;
}
