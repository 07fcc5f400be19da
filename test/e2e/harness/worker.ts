// The memory worker the extension under test started, seen from the test process: its HTTP API
// on the suite's own CLAUDE_MEM_WORKER_PORT, with the token from the suite's CLAUDE_MEM_DATA_DIR
// (docs/api.md). Nothing here waits by the clock: callers poll with `poll`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CodeServer } from './codeServer';

export interface Health {
  status: string;
  pid: number;
  port: number;
  queueDepth: number;
  provider?: { name: string; state: string };
}

export interface WorkerObservation {
  id: number;
  sessionId: number;
  project: string;
  type: string;
  title: string;
  facts: string[];
  narrative: string | null;
  filesModified: string[];
  toolName: string | null;
  source: string | null;
}

export interface WorkerSession {
  id: number;
  platform: string;
  contentSessionId: string;
  project: string;
  status: string;
}

export class WorkerApi {
  readonly base: string;

  constructor(
    readonly port: number,
    readonly dataDir: string,
  ) {
    this.base = `http://127.0.0.1:${port}`;
  }

  static of(server: CodeServer): WorkerApi {
    return new WorkerApi(server.workerPort, server.claudeMemDataDir);
  }

  /** The token file appears when the worker first starts; undefined before that. */
  token(): string | undefined {
    try {
      return fs.readFileSync(path.join(this.dataDir, 'auth.token'), 'utf8').trim();
    } catch {
      return undefined;
    }
  }

  /** GET /api/health (no token); undefined while nothing answers on the port. */
  async health(): Promise<Health | undefined> {
    try {
      const r = await fetch(`${this.base}/api/health`, { signal: AbortSignal.timeout(5_000) });
      return r.ok ? ((await r.json()) as Health) : undefined;
    } catch {
      return undefined;
    }
  }

  async get<T>(urlPath: string): Promise<T> {
    const token = this.token();
    if (!token) throw new Error(`no ${path.join(this.dataDir, 'auth.token')} yet`);
    const r = await fetch(`${this.base}${urlPath}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
    const text = await r.text();
    if (!r.ok) throw new Error(`GET ${urlPath}: HTTP ${r.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  async observations(project?: string): Promise<WorkerObservation[]> {
    const q = new URLSearchParams({ limit: '200', ...(project ? { project } : {}) });
    return (await this.get<{ items: WorkerObservation[] }>(`/api/observations?${q}`)).items;
  }

  async sessions(project?: string): Promise<WorkerSession[]> {
    const q = new URLSearchParams({ limit: '50', ...(project ? { project } : {}) });
    return (await this.get<{ items: WorkerSession[] }>(`/api/sessions?${q}`)).items;
  }
}

/** Whether a process exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Polls check() until it returns a truthy value. The error names what was awaited and the state
 * at the end (state(), else the last value or error), so a timeout says more than "timed out".
 */
export async function poll<T>(what: string, check: () => T | Promise<T>, timeoutMs = 60_000, everyMs = 250, state?: () => unknown): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (e) {
      last = e instanceof Error ? `error: ${e.message}` : e;
    }
    if (Date.now() > end) {
      const seen = state ? await Promise.resolve().then(state).catch((e: Error) => `error: ${e.message}`) : last;
      const text = typeof seen === 'string' ? seen : JSON.stringify(seen)?.slice(0, 1500);
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (state: ${text})`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
