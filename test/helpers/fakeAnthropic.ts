// Loopback fake of the Anthropic Messages API for tests: the official SDK and
// Claude Code (via ANTHROPIC_BASE_URL) talk to it as to the real service.
// Wire format follows https://docs.anthropic.com/en/api/messages-streaming.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export type Reply =
  | { kind: 'text'; text: string; stopReason?: StopReason }
  | { kind: 'tool_use'; name: string; input: Record<string, unknown>; id?: string; text?: string }
  | { kind: 'error'; status: number; type?: string; message?: string; retryAfter?: number; headers?: Record<string, string> }
  | { kind: 'delay'; ms: number; then: Reply }
  | { kind: 'raw'; status?: number; headers?: Record<string, string>; body: string };

export interface ContentBlockLike {
  type: string;
  text?: string;
  [key: string]: unknown;
}
export interface MessageLike {
  role: string;
  content: string | ContentBlockLike[];
}
/** The fields of a Messages request the fake reads; the rest is kept as sent. */
export interface MessagesBody {
  model: string;
  messages: MessageLike[];
  system?: string | ContentBlockLike[];
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface ScriptRequest {
  body: MessagesBody;
  headers: http.IncomingHttpHeaders;
  /** 0-based index among POST /v1/messages requests. */
  index: number;
}
export type Script = (req: ScriptRequest) => Reply | Promise<Reply>;

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path with the query string, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
  inputTokens: number;
}

export interface FakeAnthropic {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Approximate input tokens summed over every Messages request so far. */
  readonly inputTokens: number;
  setScript(fn: Script): void;
  close(): Promise<void>;
}

export interface FakeOptions {
  /** When set, any other key (or none) gets a 401 like the real API. */
  apiKey?: string;
}

export const text = (t: string, stopReason?: StopReason): Reply => ({ kind: 'text', text: t, stopReason });
export const toolUse = (name: string, input: Record<string, unknown>, id?: string): Reply => ({ kind: 'tool_use', name, input, id });
export const httpError = (
  status: number,
  opts: { type?: string; message?: string; retryAfter?: number; headers?: Record<string, string> } = {},
): Reply => ({ kind: 'error', status, ...opts });
export const delay = (ms: number, then: Reply): Reply => ({ kind: 'delay', ms, then });
export const raw = (body: string, status = 200, headers: Record<string, string> = {}): Reply => ({ kind: 'raw', body, status, headers });
/** Plays replies in order by request index; the last one repeats. */
export const sequence = (...replies: Reply[]): Script => ({ index }) => replies[Math.min(index, replies.length - 1)];

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error',
};

const MODELS = {
  data: [{ type: 'model', id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' }],
  has_more: false, first_id: 'claude-haiku-4-5', last_id: 'claude-haiku-4-5',
};

/** Rough token count (chars/4): close enough for budget and accounting tests. */
export function approxTokens(body: MessagesBody): number {
  const chars = JSON.stringify(body.system ?? '').length + JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
  return Math.ceil(chars / 4);
}

/** All text of a request (system, messages, tool results) flattened, for assertions. */
export function allText(body: MessagesBody): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(body.system);
  walk(body.messages);
  return parts.join('\n');
}

function isMessagesBody(v: unknown): v is MessagesBody {
  if (!v || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  return typeof o.model === 'string' && Array.isArray(o.messages);
}

function parseJson(s: string): unknown {
  try {
    return s ? JSON.parse(s) : undefined;
  } catch {
    return undefined;
  }
}

/** Waits ms, or less if the client hangs up, so no timer outlives close(). */
function waitUnlessGone(ms: number, res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

function sendError(res: http.ServerResponse, status: number, type: string | undefined, message: string, headers: Record<string, string> = {}): void {
  const body = { type: 'error', error: { type: type ?? ERROR_TYPES[status] ?? 'api_error', message } };
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Splits a string into a few pieces so clients must accumulate deltas. */
function chunks(s: string, n = 3): string[] {
  if (s.length <= n) return [s];
  const size = Math.ceil(s.length / n);
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocksOf(reply: Extract<Reply, { kind: 'text' | 'tool_use' }>, n: number): { blocks: Block[]; stop: StopReason } {
  if (reply.kind === 'text') return { blocks: [{ type: 'text', text: reply.text }], stop: reply.stopReason ?? 'end_turn' };
  const blocks: Block[] = reply.text ? [{ type: 'text', text: reply.text }] : [];
  blocks.push({ type: 'tool_use', id: reply.id ?? `toolu_fake${String(n).padStart(4, '0')}`, name: reply.name, input: reply.input });
  return { blocks, stop: 'tool_use' };
}

function writeMessage(res: http.ServerResponse, body: MessagesBody, reply: Extract<Reply, { kind: 'text' | 'tool_use' }>, n: number, inputTokens: number): void {
  const { blocks, stop } = blocksOf(reply, n);
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(blocks).length / 4));
  const id = `msg_fake${String(n).padStart(4, '0')}`;
  const usage = { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const headers = { 'request-id': `req_fake${n}` };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({
      id, type: 'message', role: 'assistant', model: body.model, content: blocks,
      stop_reason: stop, stop_sequence: null, usage: { ...usage, output_tokens: outputTokens },
    }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  const ev = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  ev('message_start', {
    message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  ev('ping', {});
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const t of chunks(b.text)) ev('content_block_delta', { index, delta: { type: 'text_delta', text: t } });
    } else {
      ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      for (const j of chunks(JSON.stringify(b.input))) ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: j } });
    }
    ev('content_block_stop', { index });
  });
  ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  ev('message_stop', {});
  res.end();
}

export async function startFakeAnthropic(script?: Script, opts: FakeOptions = {}): Promise<FakeAnthropic> {
  let current: Script = script ?? (() => text('ok'));
  const requests: RecordedRequest[] = [];
  let messagesCount = 0;
  let totalInput = 0;

  const authorized = (h: http.IncomingHttpHeaders): boolean => {
    const bearer = /^Bearer (.+)$/.exec(h.authorization ?? '')?.[1];
    const key = (typeof h['x-api-key'] === 'string' ? h['x-api-key'] : undefined) ?? bearer;
    return key !== undefined && (opts.apiKey === undefined || key === opts.apiKey);
  };

  const play = async (res: http.ServerResponse, reply: Reply, body: MessagesBody, n: number, tokens: number): Promise<void> => {
    switch (reply.kind) {
      case 'delay':
        await waitUnlessGone(reply.ms, res);
        // A client that timed out is gone; writing would only raise EPIPE noise.
        if (res.destroyed || res.writableEnded) return;
        return play(res, reply.then, body, n, tokens);
      case 'error': {
        const headers = { ...reply.headers };
        if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
        return sendError(res, reply.status, reply.type, reply.message ?? `fake ${reply.status}`, headers);
      }
      case 'raw':
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end(reply.body);
        return;
      default:
        return writeMessage(res, body, reply, n, tokens);
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const chunksIn: Buffer[] = [];
    for await (const c of req) chunksIn.push(c as Buffer);
    const rawBody = Buffer.concat(chunksIn).toString('utf8');
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    const body = parseJson(rawBody);
    const rec: RecordedRequest = { method: req.method ?? 'GET', path, url, headers: req.headers, rawBody, body, inputTokens: 0 };
    requests.push(rec);

    // Harmless answers for what Claude Code may probe when non-essential traffic is on;
    // with it off, 2.1.x only calls POST /v1/messages?beta=true.
    if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'GET' && (path === '/api/hello' || path === '/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(path === '/v1/models' ? MODELS : { message: 'hello' }));
      return;
    }
    const isMessages = req.method === 'POST' && path === '/v1/messages';
    const isCount = req.method === 'POST' && path === '/v1/messages/count_tokens';
    if (!isMessages && !isCount) return sendError(res, 404, undefined, `fake: no route ${req.method} ${path}`);
    if (!authorized(req.headers)) return sendError(res, 401, undefined, 'invalid x-api-key');
    if (!isMessagesBody(body)) return sendError(res, 400, undefined, 'model and messages are required');

    rec.inputTokens = approxTokens(body);
    if (isCount) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: rec.inputTokens }));
      return;
    }
    totalInput += rec.inputTokens;
    const index = messagesCount++;
    const reply = await current({ body, headers: req.headers, index });
    await play(res, reply, body, index, rec.inputTokens);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'api_error', `fake script failed: ${String(err)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get inputTokens() {
      return totalInput;
    },
    setScript(fn) {
      current = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // delayed replies would otherwise hold close() open
        server.close(() => resolve());
      }),
  };
}
