// The extension's connection to the worker: authenticated JSON requests, fire-and-forget posts
// (2 s timeout, never blocking the UI), and the SSE event stream with reconnection.
// Before the token or any data goes out, the worker proves it holds this data dir's token
// (common/node/identity.ts); the proof holds while that worker's process lives.
// Plain node:http: no vscode import, so it is unit-testable against a real worker.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { isLoopbackHost } from '../common/node/config';
import { checkHealthProof, newNonce, processAlive as alive } from '../common/node/identity';
import type { HealthResponse, StreamEvent } from '../common/contract';

/** What answers on the port is not this data dir's worker: nothing was sent to it. */
export class IdentityError extends Error {
  readonly code = 'EIDENTITY';
}

export interface WorkerTarget {
  host: string;
  port: number;
  dataDir: string;
}

export interface ClientLog {
  warn(msg: string): void;
  debug?(msg: string): void;
}

export interface Reply<T> {
  status: number;
  body: T;
}

export class WorkerClient {
  private token: string | undefined;
  /** The worker that last proved itself (its pid: the proof holds while that process lives). */
  private provenPid: number | undefined;
  /** Why the last probe refused what answers on the port (for the status bar and the log). */
  identityProblem: string | undefined;

  constructor(
    public target: WorkerTarget,
    private readonly log: ClientLog = { warn: () => undefined },
  ) {}

  get baseUrl(): string {
    return `http://${this.target.host}:${this.target.port}`;
  }

  private readToken(): string | undefined {
    try {
      this.token = fs.readFileSync(path.join(this.target.dataDir, 'auth.token'), 'utf8').trim() || undefined;
    } catch {
      this.token = undefined;
    }
    return this.token;
  }

  /** The bearer token (read from the data dir; re-read after a 401 in case the worker was reset). */
  authToken(): string | undefined {
    return this.token ?? this.readToken();
  }

  /**
   * Makes sure the worker on the port is ours before anything is sent to it. On loopback a proof
   * holds while the proven worker's process lives (no other process can take the port meanwhile);
   * elsewhere every request is preceded by a proof.
   */
  private async ensureProven(timeoutMs: number): Promise<void> {
    if (this.provenPid !== undefined && isLoopbackHost(this.target.host) && alive(this.provenPid)) return;
    this.provenPid = undefined;
    const p = await this.probe(timeoutMs);
    if (p.kind !== 'ours') throw new IdentityError(p.why);
  }

  /** Asks what answers on the port to prove it is this data dir's worker; sends no token, no data. */
  async probe(timeoutMs = 1000): Promise<{ kind: 'ours'; health: HealthResponse } | { kind: 'other'; why: string }> {
    const nonce = newNonce();
    this.identityProblem = undefined; // nothing answering (a network error) is not an impostor
    const r = await this.once<HealthResponse>('GET', `/api/health?nonce=${nonce}`, undefined, timeoutMs, true, false);
    const why =
      r.status !== 200
        ? `it answered GET /api/health with HTTP ${r.status}`
        : checkHealthProof(r.body, this.authToken() ?? this.readToken(), { nonce, port: this.target.port, dataDir: this.target.dataDir });
    if (why !== undefined) {
      this.provenPid = undefined;
      this.identityProblem = `${this.target.host}:${this.target.port} is not the claude-mem worker for ${this.target.dataDir}: ${why}; nothing was sent to it`;
      return { kind: 'other', why: this.identityProblem };
    }
    this.provenPid = r.body.pid;
    this.identityProblem = undefined;
    return { kind: 'ours', health: r.body };
  }

  async request<T = unknown>(method: string, urlPath: string, body?: unknown, timeoutMs = 2000): Promise<Reply<T>> {
    await this.ensureProven(timeoutMs);
    let r = await this.once<T>(method, urlPath, body, timeoutMs);
    if (r.status === 401 && this.readToken()) r = await this.once<T>(method, urlPath, body, timeoutMs);
    return r;
  }

  /** One request; `fresh` skips the socket pool (the resend after a stale socket: others may be stale too). */
  private once<T>(method: string, urlPath: string, body: unknown, timeoutMs: number, fresh = false, withToken = true): Promise<Reply<T>> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const token = withToken ? this.authToken() : undefined;
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.target.host,
          port: this.target.port,
          method,
          path: urlPath,
          timeout: timeoutMs,
          ...(fresh ? { agent: false } : {}),
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
          },
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
      req.on('timeout', () => req.destroy(new Error(`worker request timed out after ${timeoutMs} ms`)));
      req.on('error', (e: NodeJS.ErrnoException) => {
        // Node's documented keep-alive race: the worker closed an idle pooled socket just as this
        // request took it, so the worker never read the request. Sending it again loses nothing.
        if (!fresh && req.reusedSocket && e.code === 'ECONNRESET') resolve(this.once<T>(method, urlPath, body, timeoutMs, true, withToken));
        else reject(e);
      });
      req.end(payload);
    });
  }

  /** Posts without waiting; failures are logged, never thrown. */
  fire(urlPath: string, body: unknown): void {
    this.request('POST', urlPath, body, 2000).then(
      (r) => {
        if (r.status >= 400) this.log.warn(`POST ${urlPath} -> ${r.status} ${JSON.stringify(r.body)}`);
      },
      (e: Error) => this.log.warn(`POST ${urlPath} failed: ${e.message}`),
    );
  }

  /** The worker's health, only when it proved it is this data dir's worker. */
  async health(timeoutMs = 1000): Promise<HealthResponse | undefined> {
    try {
      const p = await this.probe(timeoutMs);
      return p.kind === 'ours' ? p.health : undefined;
    } catch {
      return undefined;
    }
  }

  /** Subscribes to /stream; reconnects with backoff until disposed. */
  subscribe(onEvent: (e: StreamEvent) => void, onState?: (connected: boolean) => void): { dispose(): void } {
    let disposed = false;
    let current: http.ClientRequest | undefined;
    let delay = 500;
    const connect = async () => {
      if (disposed) return;
      try {
        await this.ensureProven(2000);
      } catch (e) {
        this.log.debug?.(`event stream not opened: ${(e as Error).message}`);
        return retry();
      }
      if (disposed) return;
      const token = this.authToken() ?? '';
      // A header, never the URL: the token stays out of logs and process listings.
      current = http.get({ host: this.target.host, port: this.target.port, path: '/stream', headers: { authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          if (res.statusCode === 401) this.readToken();
          return retry();
        }
        delay = 500;
        onState?.(true);
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev = /^event: (.+)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (ev && data !== undefined && ev !== 'connected') {
              try {
                onEvent({ event: ev as StreamEvent['event'], data: JSON.parse(data) as Record<string, unknown> });
              } catch {
                /* malformed event: skip */
              }
            }
          }
        });
        res.on('end', retry);
        res.on('error', retry);
      });
      current.on('error', retry);
    };
    let retrying = false;
    const retry = () => {
      if (disposed || retrying) return;
      retrying = true;
      onState?.(false);
      setTimeout(() => {
        retrying = false;
        void connect();
      }, delay);
      delay = Math.min(delay * 2, 10_000);
    };
    void connect();
    return {
      dispose() {
        disposed = true;
        current?.destroy();
      },
    };
  }
}
