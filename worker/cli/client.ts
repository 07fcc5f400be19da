// Minimal HTTP/1.1 client for the CLI, hooks and MCP server, written by hand over a bare TCP
// connection (./transport): `node:http` (and fetch/undici) cost a hook more to load than all its
// other work. One request per connection, a hard total deadline, the bearer token from the data dir.
import { readFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { defaultDataDir, defaultPort } from '../config';
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

const CRLF2 = Buffer.from('\r\n\r\n');

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Parses a complete HTTP/1.1 response; undefined while more bytes are needed. */
export function parseResponse(buf: Buffer, ended: boolean): Parsed | undefined {
  const end = buf.indexOf(CRLF2);
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
  if (!m) throw new NetworkError(`malformed HTTP status line "${head[0].slice(0, 80)}"`, 'EPROTO');
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const status = Number(m[1]);
  const rest = buf.subarray(end + 4);
  if (status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = rest.indexOf('\r\n', at);
      if (eol < 0) return undefined;
      const size = parseInt(rest.subarray(at, eol).toString('latin1'), 16);
      if (!Number.isFinite(size)) throw new NetworkError('malformed chunked body', 'EPROTO');
      if (size === 0) return { status, headers, body: Buffer.concat(parts) };
      if (rest.length < eol + 2 + size + 2) return undefined;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  }
  const len = headers['content-length'];
  if (len !== undefined) {
    const n = Number(len);
    return rest.length >= n ? { status, headers, body: rest.subarray(0, n) } : undefined;
  }
  return ended ? { status, headers, body: rest } : undefined;
}

function decode<T>(p: Parsed): Reply<T> {
  const text = p.body.toString('utf8');
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
 * One request, one connection (`Connection: close`). Rejects with NetworkError on connection
 * failure or when the whole exchange takes longer than timeoutMs; resolves with any status.
 */
export function request<T = unknown>(t: ClientTarget, method: string, urlPath: string, body?: unknown, timeoutMs = 2000): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  const token = readToken(t.dataDir);
  const hostHeader = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
  let head = `${method} ${urlPath} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\nAccept: application/json\r\n`;
  if (token) head += `Authorization: Bearer ${token}\r\n`;
  if (payload) head += `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n`;
  head += '\r\n';
  return new Promise<Reply<T>>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    let conn: Conn | undefined;
    const finish = (err: Error | undefined, reply?: Reply<T>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn?.close();
      if (err) reject(err);
      else resolve(reply as Reply<T>);
    };
    const timer = setTimeout(() => finish(new NetworkError(`${method} ${urlPath} timed out after ${timeoutMs} ms`, 'ETIMEDOUT')), timeoutMs);
    const tryParse = (ended: boolean) => {
      if (done) return;
      try {
        const p = parseResponse(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), ended);
        if (p) finish(undefined, decode<T>(p));
        else if (ended) finish(new NetworkError(`${method} ${urlPath}: connection closed before a full response`, 'ECONNRESET'));
      } catch (e) {
        finish(e as Error);
      }
    };
    try {
      conn = openConnection(t.host, t.port, {
        onConnect: () => conn?.write(payload ? Buffer.concat([Buffer.from(head, 'latin1'), payload]) : Buffer.from(head, 'latin1')),
        onData: (c) => {
          chunks.push(c);
          size += c.length;
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

export interface HealthInfo {
  pid: number;
  port: number;
  version: string;
  queueDepth: number;
}

export async function health(t: ClientTarget, timeoutMs = 1000): Promise<HealthInfo | undefined> {
  try {
    const r = await request<{ service?: string } & HealthInfo>(t, 'GET', '/api/health', undefined, timeoutMs);
    return r.status === 200 && r.body && typeof r.body === 'object' && r.body.service === 'claude-mem-vscode' ? r.body : undefined;
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
