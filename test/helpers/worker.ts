// Starts the real bundled worker (dist/worker.js) on an ephemeral loopback port with a temp data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const WORKER_JS = path.join(ROOT, 'dist', 'worker.js');
export const CLI_JS = path.join(ROOT, 'dist', 'cli.js');

export interface RunningWorker {
  url: string;
  port: number;
  token: string;
  dataDir: string;
  proc: ChildProcess;
  stdout: () => string;
  /** Authenticated JSON request. */
  req<T = any>(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  stop(): Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A file's bytes, or undefined when it is gone (a temp file the worker renamed while a test walked the data dir). */
export function readIfPresent(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A loopback port that was free a moment ago (another process may take it before it is used). */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

export function tempDir(prefix = 'cmem-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A copy of a stopped (or killed) worker's data dir in a new temp dir, without its lock file: a
 * state several cases start from is built once and copied, instead of built again by each.
 */
export function copyDataDir(src: string, prefix = 'cmem-'): string {
  const dataDir = tempDir(prefix);
  fs.cpSync(src, dataDir, { recursive: true });
  fs.rmSync(path.join(dataDir, 'worker.pid'), { force: true });
  return dataDir;
}

/**
 * How long a worker may take to say it listens. A start takes 1-3 s here, but 14 s was seen beside
 * other files on a machine at load 10+: the bound is for a start that never ends, not a slow one.
 */
export const START_TIMEOUT_MS = 60_000;

/**
 * Node options for a worker a test starts, kills and restarts many times, each living a few
 * seconds: WebAssembly compiled by V8's baseline compiler (Liftoff) only. By default V8 also
 * recompiles sql.js's hot functions with its optimizing compiler on background threads, 0.5-0.8 CPU s
 * per start (half of a start's CPU: `BENCH_NODE_ARGS=--liftoff-only node bench/worker-start.mjs`
 * against the same without), that a worker killed seconds later never uses. The same SQLite, store
 * code and files; only slower machine code, so not for a case that measures speed.
 */
export const SHORT_LIVED_WORKER_ARGS: readonly string[] = ['--liftoff-only'];

/**
 * Node options for every worker a test starts, from the environment (space-separated), to measure
 * a run: e.g. CLAUDE_MEM_TEST_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
function envNodeArgs(): string[] {
  return (process.env.CLAUDE_MEM_TEST_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** The argv of a worker process: Node options (the caller's, then the environment's), then the bundle. */
export function workerArgv(nodeArgs: readonly string[] = []): string[] {
  return [...nodeArgs, ...envNodeArgs(), WORKER_JS];
}

export async function startWorker(opts: { dataDir?: string; env?: Record<string, string>; port?: number; startTimeoutMs?: number; nodeArgs?: readonly string[] } = {}): Promise<RunningWorker> {
  const dataDir = opts.dataDir ?? tempDir();
  const proc = spawn(process.execPath, workerArgv(opts.nodeArgs), {
    env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(opts.port ?? 0), ANTHROPIC_API_KEY: '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const ms = opts.startTimeoutMs ?? START_TIMEOUT_MS;
    // A worker that did not start in time is killed: left running, its pipes would keep the test
    // file's process alive after the failure, for as long as the worker lives.
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`worker pid ${proc.pid} did not start in ${ms / 1000} s (killed):\n${out}`));
    }, ms);
    const check = () => {
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on('data', check);
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`worker exited with ${code}:\n${out}`));
    });
  });
  const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    url,
    port,
    token,
    dataDir,
    proc,
    stdout: () => out,
    async req(method, p, body, headers = {}) {
      let r: Response;
      try {
        r = await fetch(url + p, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
          body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        });
      } catch (e) {
        // "fetch failed" alone says nothing: name the socket error and the worker's state and output.
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const state = proc.exitCode !== null || proc.signalCode !== null ? `exited (code ${proc.exitCode}, signal ${proc.signalCode})` : 'running';
        throw new Error(`${method} ${p} failed: ${cause?.code ?? ''} ${cause?.message ?? (e as Error).message}; worker pid ${proc.pid} ${state}; its output ends:\n${out.slice(-2000)}`, { cause: e });
      }
      const text = await r.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: r.status, body: parsed as any };
    },
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      return exited;
    },
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill(signal);
      await exited;
    },
  };
}

/** A worker with SHORT_LIVED_WORKER_ARGS: for the fault cases that start, kill and restart hundreds of them. */
export function startShortLivedWorker(opts: Parameters<typeof startWorker>[0] = {}): Promise<RunningWorker> {
  return startWorker({ nodeArgs: SHORT_LIVED_WORKER_ARGS, ...opts });
}

/** Polls until fn returns a truthy value. */
type Falsy = undefined | null | false | 0 | '';
export async function until<T>(fn: () => Promise<T | Falsy> | T | Falsy, ms = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
