// Minimal HTTP client for the CLI and hooks: node:http (cheaper to load than fetch), a hard timeout,
// the bearer token read from the data dir.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { defaultDataDir, defaultPort } from '../config';

export interface ClientTarget {
  host: string;
  port: number;
  dataDir: string;
}

export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): ClientTarget {
  const host = env.CLAUDE_MEM_WORKER_HOST || '127.0.0.1';
  return { host, port: defaultPort(env), dataDir: path.resolve(defaultDataDir(env)) };
}

export function readToken(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface Reply<T = unknown> {
  status: number;
  body: T;
}

export function request<T = unknown>(t: ClientTarget, method: string, urlPath: string, body?: unknown, timeoutMs = 2000): Promise<Reply<T>> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const token = readToken(t.dataDir);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: t.host,
        port: t.port,
        method,
        path: urlPath,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export async function health(t: ClientTarget, timeoutMs = 1000): Promise<{ pid: number; port: number; version: string; queueDepth: number } | undefined> {
  try {
    const r = await request<{ service?: string; pid: number; port: number; version: string; queueDepth: number }>(t, 'GET', '/api/health', undefined, timeoutMs);
    return r.status === 200 && r.body.service === 'claude-mem-vscode' ? r.body : undefined;
  } catch {
    return undefined;
  }
}
