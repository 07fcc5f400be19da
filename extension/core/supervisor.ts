// Finds a healthy worker on the configured port (one started by another window or by the Claude
// Code CLI) or forks dist/worker.js, waits for health with backoff, and restarts a worker that dies,
// with backoff. A worker this window forked is detached: it outlives the window and shuts itself
// down when idle. No vscode import: tested against the real worker.
import * as childProcess from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HealthResponse } from '../../common/contract';
import { rotateIfLarge } from '../../common/node/log';
import { WorkerClient, type WorkerTarget } from '../workerClient';

export type WorkerState =
  | { kind: 'starting'; attempt: number }
  | { kind: 'connected'; pid: number; version: string; owned: boolean; health: HealthResponse }
  | { kind: 'down'; error: string; retryInMs: number; attempt: number }
  | { kind: 'stopped' };

export interface SupervisorLog {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
  debug?(msg: string): void;
}

export interface SupervisorOptions {
  target: WorkerTarget;
  /** Absolute path of dist/worker.js. */
  workerScript: string;
  /** Extra environment for a forked worker (ANTHROPIC_API_KEY, CLAUDE_MEM_IDLE_SHUTDOWN_MS…). Never logged. */
  env: () => Record<string, string | undefined>;
  /** The runtime: in desktop VS Code the Electron binary, run as Node through ELECTRON_RUN_AS_NODE. */
  execPath?: string;
  log: SupervisorLog;
  /** How long one start may take to become healthy. */
  startupTimeoutMs?: number;
  /** First and largest retry delay. */
  backoffMs?: { initial: number; max: number };
  /** Health poll while connected (catches a worker that dies without our noticing otherwise). */
  pollMs?: number;
  fork?: typeof childProcess.fork;
}


export class WorkerSupervisor {
  readonly client: WorkerClient;
  private stateNow: WorkerState = { kind: 'starting', attempt: 0 };
  private readonly listeners = new Set<(s: WorkerState) => void>();
  private child: childProcess.ChildProcess | undefined;
  private loop: Promise<void> | undefined;
  private poll: NodeJS.Timeout | undefined;
  private disposed = false;
  private failures = 0;
  private connectedAt = 0;
  private waiters: Array<(c: WorkerClient) => void> = [];
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  /** pids of every worker this supervisor forked (tests clean them up). */
  readonly forked: number[] = [];

  constructor(private readonly o: SupervisorOptions) {
    this.client = new WorkerClient(o.target, { warn: (m) => o.log.warn(m), debug: (m) => o.log.debug?.(m) });
  }

  /** A wait that dispose() cuts short, so a disposed supervisor holds no timer. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.sleeping = undefined;
        resolve();
      };
      this.sleeping = { timer: setTimeout(wake, ms), wake };
    });
  }

  get state(): WorkerState {
    return this.stateNow;
  }

  onState(fn: (s: WorkerState) => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  private set(s: WorkerState): void {
    this.stateNow = s;
    if (s.kind === 'connected') {
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w(this.client);
    }
    for (const l of [...this.listeners]) {
      try {
        l(s);
      } catch (e) {
        this.o.log.error(`worker state listener failed: ${(e as Error).message}`);
      }
    }
  }

  /** The client once a worker is healthy (resolves at once when connected). */
  ready(): Promise<WorkerClient> {
    if (this.stateNow.kind === 'connected') return Promise.resolve(this.client);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Starts the connect loop if it is not running; resolves when connected or disposed. */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    this.loop ??= this.connectLoop().finally(() => {
      this.loop = undefined;
    });
    return this.loop;
  }

  /** Something (a failed request, the event stream) suggests the worker is gone: check now. */
  async suspect(): Promise<void> {
    if (this.disposed || this.loop || this.stateNow.kind !== 'connected') return;
    const h = await this.client.health(1500);
    if (h) return;
    this.o.log.warn('worker stopped answering; reconnecting');
    await this.start();
  }

  private ownedAlive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async connectLoop(): Promise<void> {
    const backoff = this.o.backoffMs ?? { initial: 500, max: 30_000 };
    // A worker that was healthy for a while and then died starts with a fresh backoff.
    if (this.connectedAt && Date.now() - this.connectedAt > 60_000) this.failures = 0;
    this.stopPoll();
    while (!this.disposed) {
      this.set({ kind: 'starting', attempt: this.failures });
      let h = await this.client.health(1000);
      let error = '';
      // Something that is not this data dir's worker holds the port: send it nothing, and do not
      // fork a worker that could not bind the port anyway. Say what to do.
      if (!h && this.client.identityProblem) error = `${this.client.identityProblem}. Stop that program or set claudeMem.worker.port to a free port.`;
      if (!h && !error) {
        if (!this.ownedAlive()) {
          try {
            this.spawn();
          } catch (e) {
            error = `cannot start the worker: ${(e as Error).message}`;
          }
        }
        if (!error) {
          const r = await this.waitHealthy(this.o.startupTimeoutMs ?? 20_000);
          h = r.health;
          error = r.error ?? '';
        }
      }
      if (this.disposed) return;
      if (h) {
        this.connectedAt = Date.now();
        const owned = !!this.child && this.child.pid === h.pid;
        this.o.log.info(`worker ${owned ? 'started' : 'found'}: pid ${h.pid}, version ${h.version}, ${this.client.baseUrl}`);
        this.set({ kind: 'connected', pid: h.pid, version: h.version, owned, health: h });
        this.startPoll();
        return;
      }
      const delay = Math.min(backoff.initial * 2 ** this.failures, backoff.max);
      this.failures++;
      this.o.log.warn(`worker not healthy (${error || 'no answer'}); retrying in ${delay} ms`);
      this.set({ kind: 'down', error: error || 'no answer', retryInMs: delay, attempt: this.failures });
      await this.sleep(delay);
    }
  }

  /** Polls health with a growing interval until healthy, the deadline, or our child exiting with an error. */
  private async waitHealthy(timeoutMs: number): Promise<{ health?: HealthResponse; error?: string }> {
    const end = Date.now() + timeoutMs;
    let every = 50;
    while (!this.disposed && Date.now() < end) {
      const h = await this.client.health(1000);
      if (h) return { health: h };
      const c = this.child;
      if (c && (c.exitCode !== null || c.signalCode !== null)) {
        // Exit 0 means "another worker already serves this data dir": it should answer soon.
        if (c.exitCode !== 0) return { error: `worker exited with ${c.exitCode ?? c.signalCode}${this.client.identityProblem ? ` (${this.client.identityProblem})` : ''}; see ${this.logFile()}` };
      }
      await this.sleep(every);
      every = Math.min(every * 2, 250);
    }
    return { error: `no healthy worker after ${timeoutMs} ms` };
  }

  private logFile(): string {
    return path.join(this.o.target.dataDir, 'logs', 'worker.out');
  }

  private spawn(): void {
    const script = this.o.workerScript;
    if (!fs.existsSync(script)) throw new Error(`${script} is missing`);
    fs.mkdirSync(path.join(this.o.target.dataDir, 'logs'), { recursive: true, mode: 0o700 });
    rotateIfLarge(this.logFile());
    const out = fs.openSync(this.logFile(), 'a', 0o600);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(this.o.env())) {
      if (v === undefined) delete env[k];
      else env[k] = v;
    }
    Object.assign(env, {
      CLAUDE_MEM_DATA_DIR: this.o.target.dataDir,
      CLAUDE_MEM_WORKER_PORT: String(this.o.target.port),
      CLAUDE_MEM_WORKER_HOST: this.o.target.host,
      ELECTRON_RUN_AS_NODE: '1',
    });
    const fork = this.o.fork ?? childProcess.fork;
    let child: childProcess.ChildProcess;
    try {
      child = fork(script, [], {
        execPath: this.o.execPath ?? process.execPath,
        execArgv: [],
        env,
        cwd: this.o.target.dataDir,
        detached: true, // its own process group: it outlives this window and serves others
        stdio: ['ignore', out, out, 'ipc'],
      });
    } finally {
      fs.closeSync(out);
    }
    this.child = child;
    if (child.pid) this.forked.push(child.pid);
    this.o.log.info(`forked worker pid ${child.pid} (${script})`);
    child.on('error', (e) => this.o.log.error(`worker process error: ${e.message}`));
    child.on('exit', (code, signal) => {
      if (this.child === child) this.onChildExit(code, signal);
    });
    // Neither the process nor its IPC channel may keep the extension host alive.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  private onChildExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.disposed) return;
    this.o.log.warn(`worker pid ${this.child?.pid} exited (${signal ?? code})`);
    if (this.stateNow.kind === 'connected' && this.stateNow.owned) void this.start();
  }

  private startPoll(): void {
    this.stopPoll();
    const every = this.o.pollMs ?? 15_000;
    if (every <= 0) return;
    this.poll = setInterval(() => void this.suspect(), every);
    this.poll.unref?.();
  }

  private stopPoll(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }

  /** Restart Worker: stops the worker (ours or not) and starts a fresh one. */
  async restart(): Promise<void> {
    this.stopPoll();
    const h = await this.client.health(1000);
    if (h) {
      try {
        await this.client.request('POST', '/api/admin/shutdown', {}, 3000);
      } catch {
        /* it may close the connection as it goes */
      }
      const end = Date.now() + 15_000;
      while (Date.now() < end && (await this.client.health(500))) await this.sleep(100);
    } else if (this.ownedAlive()) {
      this.child?.kill('SIGTERM');
    }
    this.failures = 0;
    this.child = undefined;
    await this.start();
  }

  /** Stops watching; leaves the worker running (it idles out when no client is left). */
  dispose(): void {
    this.disposed = true;
    this.stopPoll();
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.wake();
    }
    this.child?.removeAllListeners('exit');
    if (this.child?.connected) this.child.disconnect();
    this.set({ kind: 'stopped' });
    this.listeners.clear();
  }
}
