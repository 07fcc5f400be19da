// Minimal HTTP/1.1 client for the CLI, hooks and MCP server, written by hand over a node:net
// connection (./transport): `node:http` (and fetch/undici) cost a hook more to load than all its
// other work. One request per connection, a hard total deadline, the bearer token from the data dir.
// Before the token or any data goes out, the worker on the port proves it holds this data dir's
// token (common/node/identity.ts); a proof is cached in the data dir so most hooks skip that round trip.
import { readFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { defaultDataDir, defaultPort, isLoopbackHost } from '../common/node/config';
import { cachedProof, checkHealthProof, newNonce, processAlive as alive, saveProof } from '../common/node/identity';
import { openConnection, type Conn } from './transport';

export interface ClientTarget {
  host: string;
  port: number;
  dataDir: string;
}

export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): ClientTarget {
  const host = env.CLAUDE_MEM_WORKER_HOST || '127.0.0.1';
  return { host, port: defaultPort(env), dataDir: resolvePath(defaultDataDir(env)) };
}

export function readToken(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, 'auth.token'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface Reply<T = unknown> {
  status: number;
  /** Parsed JSON when the body is JSON, else the text. */
  body: T;
  headers: Record<string, string>;
}

/** Thrown for connection failures and timeouts (never for an HTTP status). */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface Parsed {
  status: number;
  headers: Record<string, string>;
  /** The body's bytes decoded as UTF-8. */
  body: string;
}

// The response is handled as bytes (Uint8Array) and decoded once. Every Node API a hook touches
// costs it the first-call compile of that API's JavaScript (Buffer.concat alone ~0.9 M
// instructions, Buffer#indexOf 0.35 M, toString with an encoding 0.3 M; measured with callgrind), so
// this scans bytes with plain loops and decodes with Buffer's native utf8Slice.

const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: (this: Uint8Array, start: number, end: number) => string }).utf8Slice;

/** UTF-8 text of bytes [start, end) (invalid sequences become U+FFFD). */
export function utf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  if (typeof utf8Slice === 'function') return utf8Slice.call(bytes, start, end);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end);
}

/** Index of the first CR LF (CR LF) at or after `from`, or -1. */
function crlf(bytes: Uint8Array, from: number, twice: boolean): number {
  for (let i = from; i + (twice ? 3 : 1) < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && (!twice || (bytes[i + 2] === 13 && bytes[i + 3] === 10))) return i;
  }
  return -1;
}

/** Joins byte chunks (TypedArray#set: no Buffer machinery). */
export function concatBytes(chunks: Uint8Array[], size?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size ?? chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Parses a complete HTTP/1.1 response; undefined while more bytes are needed. */
export function parseResponse(buf: Uint8Array, ended: boolean): Parsed | undefined {
  const end = crlf(buf, 0, true);
  if (end < 0) return undefined;
  const head = utf8(buf, 0, end).split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
  if (!m) throw new NetworkError(`malformed HTTP status line "${head[0].slice(0, 80)}"`, 'EPROTO');
  const headers: Record<string, string> = {};
  for (let k = 1; k < head.length; k++) {
    const line = head[k];
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const status = Number(m[1]);
  const start = end + 4;
  if (status === 204 || status === 304) return { status, headers, body: '' };
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Uint8Array[] = [];
    let at = start;
    for (;;) {
      const eol = crlf(buf, at, false);
      if (eol < 0) return undefined;
      const size = parseInt(utf8(buf, at, eol), 16);
      if (!Number.isFinite(size)) throw new NetworkError('malformed chunked body', 'EPROTO');
      if (size === 0) return { status, headers, body: utf8(concatBytes(parts.length ? parts : [new Uint8Array(0)])) };
      if (buf.length < eol + 2 + size + 2) return undefined;
      parts.push(buf.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  }
  const len = headers['content-length'];
  if (len !== undefined) {
    const n = Number(len);
    return buf.length - start >= n ? { status, headers, body: utf8(buf, start, start + n) } : undefined;
  }
  return ended ? { status, headers, body: utf8(buf, start) } : undefined;
}

/** A reply from a status, a content type and the body's text (JSON parsed when it is JSON). */
export function decodeReply<T>(p: Parsed): Reply<T> {
  const text = p.body;
  let body: unknown = text;
  if (text !== '' && /json/i.test(p.headers['content-type'] ?? 'json')) {
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
  }
  return { status: p.status, body: body as T, headers: p.headers };
}

/**
 * One request, one connection (`Connection: close`), sent only to a worker that proved it is ours.
 * Rejects with NetworkError on connection failure, when the whole exchange takes longer than
 * timeoutMs, or (code EIDENTITY) when what answers on the port is not this data dir's worker;
 * resolves with any status.
 */
export async function request<T = unknown>(t: ClientTarget, method: string, urlPath: string, body?: unknown, timeoutMs = 2000): Promise<Reply<T>> {
  const token = readToken(t.dataDir);
  await ensureProven(t, token, timeoutMs);
  return send<T>(t, method, urlPath, body, timeoutMs, token);
}

/**
 * The worker pid each target proved itself with ("host:port dataDir" -> pid). The proof holds while
 * that process lives (a long-lived client, the MCP server, re-proves after the worker is gone).
 */
const proven = new Map<string, number>();

async function ensureProven(t: ClientTarget, token: string | undefined, timeoutMs: number): Promise<void> {
  const key = `${t.host}:${t.port} ${t.dataDir}`;
  // A pid says something only about a worker on this machine: a remote one proves itself each time.
  const local = isLoopbackHost(t.host);
  const pid = proven.get(key);
  if (local && pid !== undefined && alive(pid)) return;
  proven.delete(key);
  const cached = local && token ? cachedProof(t.dataDir, t.host, t.port) : undefined;
  if (cached) {
    proven.set(key, cached.pid);
    return;
  }
  const p = await probe(t, timeoutMs, token);
  if (p.kind !== 'ours') throw new NetworkError(`refusing to send to ${t.host}:${t.port}: ${p.why}`, 'EIDENTITY');
}

export type Probe<H = HealthInfo> = { kind: 'ours'; health: H } | { kind: 'other'; why: string; health?: H };

/**
 * Asks what answers on the port to prove it is this data dir's worker, sending no token and no data.
 * Network errors reject (NetworkError), as for any request.
 */
export async function probe(t: ClientTarget, timeoutMs = 1000, token = readToken(t.dataDir)): Promise<Probe> {
  // The nonce is made once connected: with no worker there, a hook loads no node:crypto.
  let nonce = '';
  const r = await send<HealthInfo & { service?: string }>(t, 'GET', () => `/api/health?nonce=${(nonce = newNonce())}`, undefined, timeoutMs, undefined);
  const b = r.body;
  const health = r.status === 200 && b && typeof b === 'object' && b.service === 'claude-mem-vscode' ? b : undefined;
  if (r.status !== 200) return { kind: 'other', why: `it answered GET /api/health with HTTP ${r.status}, not a claude-mem worker's health reply` };
  const why = checkHealthProof(b, token, { nonce, port: t.port, dataDir: t.dataDir });
  if (why !== undefined || !health) return { kind: 'other', why: `the process there is not the claude-mem worker for ${t.dataDir}: ${why ?? 'no health reply'}`, health };
  proven.set(`${t.host}:${t.port} ${t.dataDir}`, health.pid);
  saveProof(t.dataDir, { host: t.host, port: t.port, pid: health.pid });
  return { kind: 'ours', health };
}

/** One exchange; the token only when the caller has made sure of the peer. */
function send<T>(t: ClientTarget, method: string, target: string | (() => string), body: unknown, timeoutMs: number, token: string | undefined): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const lazy = typeof target === 'function';
  let urlPath = lazy ? '/api/health' : target;
  const hostHeader = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
  // The whole request is one string, written as UTF-8 by the connection in one write.
  let head = `HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\nAccept: application/json\r\n`;
  if (token) head += `Authorization: Bearer ${token}\r\n`;
  if (payload !== undefined) head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
  else head += '\r\n';
  const message = () => {
    if (lazy) urlPath = target();
    return `${method} ${urlPath} ${head}`;
  };
  return new Promise<Reply<T>>((resolve, reject) => {
    let data: Uint8Array | undefined;
    let done = false;
    let conn: Conn | undefined;
    const finish = (err: Error | undefined, reply?: Reply<T>) => {
      if (done) return;
      done = true;
      cancel();
      conn?.close();
      if (err) reject(err);
      else resolve(reply as Reply<T>);
    };
    const cancel = deadline(timeoutMs, () => finish(new NetworkError(`${method} ${urlPath} timed out after ${timeoutMs} ms`, 'ETIMEDOUT')));
    const tryParse = (ended: boolean) => {
      if (done) return;
      try {
        const p = parseResponse(data ?? new Uint8Array(0), ended);
        if (p) finish(undefined, decodeReply<T>(p));
        else if (ended) finish(new NetworkError(`${method} ${urlPath}: connection closed before a full response`, 'ECONNRESET'));
      } catch (e) {
        finish(e as Error);
      }
    };
    try {
      conn = openConnection(t.host, t.port, {
        onConnect: () => conn?.write(message()),
        onData: (c) => {
          data = data ? concatBytes([data, c], data.length + c.length) : c;
          tryParse(false);
        },
        onEnd: () => tryParse(true),
        onError: (code, message) => finish(new NetworkError(`${method} ${urlPath}: ${message}`, code)),
      });
    } catch (e) {
      finish(new NetworkError(`${method} ${urlPath}: ${(e as Error).message}`, 'ECONNERROR'));
    }
  });
}

/**
 * Runs fn after ms unless the returned cancel is called first; does not keep the process alive by
 * itself (the request's socket does). Atomics.waitAsync's timeout is a V8 builtin; the first
 * setTimeout of a process costs a hook ~1.3 M instructions of timer-list JavaScript (1.4% of a bare
 * node start). setTimeout where waitAsync is missing.
 */
export function deadline(ms: number, fn: () => void): () => void {
  const waitAsync = (Atomics as unknown as { waitAsync?: (a: Int32Array, i: number, v: number, ms: number) => { async: boolean; value: Promise<string> | string } }).waitAsync;
  if (typeof waitAsync === 'function' && typeof SharedArrayBuffer === 'function') {
    try {
      const cell = new Int32Array(new SharedArrayBuffer(4));
      const r = waitAsync(cell, 0, 0, ms);
      if (r.async && typeof r.value === 'object') {
        let live = true;
        r.value.then(
          () => live && fn(),
          () => live && fn(),
        );
        return () => {
          live = false;
          Atomics.notify(cell, 0); // releases the waiter now rather than at its timeout
        };
      }
    } catch {
      /* fall through to a timer */
    }
  }
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
}

export interface HealthInfo {
  pid: number;
  port: number;
  version: string;
  queueDepth: number;
}

/** The worker's health, only when it proved it is this data dir's worker. */
export async function health(t: ClientTarget, timeoutMs = 1000): Promise<HealthInfo | undefined> {
  try {
    const p = await probe(t, timeoutMs);
    return p.kind === 'ours' ? p.health : undefined;
  } catch {
    return undefined;
  }
}

/** Query string from defined values only. */
export function query(params: Record<string, string | number | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}
