// The `vscode` provider: the worker cannot call vscode.lm, so connected extension windows pull
// model calls over HTTP (long-poll GET /api/agent/jobs) and post the replies back
// (POST /api/agent/results). Calls live in memory only: the durable queue holds the work, so a
// crash or a vanished window costs one call, never a job.
import { randomUUID } from 'node:crypto';
import { estimateTokens } from '../hash';
import { AGENT_WINDOW_GRACE_MS, type AgentJob, type AgentResultRequest, type AgentWindowInfo } from '../../common/contract';
import { NotNow, ProviderError, type ModelBackend, type ModelReply, type ModelRequest, type Unavailable } from './model';

interface Call {
  job: AgentJob;
  resolve: (r: ModelReply) => void;
  reject: (e: Error) => void;
  windowId?: string;
  timer: NodeJS.Timeout;
}

interface Poller {
  windowId: string;
  max: number;
  signal?: AbortSignal;
  deliver: (jobs: AgentJob[]) => void;
}

export class VscodeBridge implements ModelBackend {
  readonly name = 'vscode';
  model = 'vscode.lm';
  private readonly windows = new Map<string, number>();
  private pollers: Poller[] = [];
  private queue: Call[] = [];
  private readonly leased = new Map<string, Call>();
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly opts: { timeoutMs: number; now?: () => number }) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  connected(): boolean {
    if (this.pollers.length > 0) return true;
    const now = this.now();
    for (const seen of this.windows.values()) if (now - seen < AGENT_WINDOW_GRACE_MS) return true;
    return false;
  }

  unavailable(): Unavailable | undefined {
    return this.connected() ? undefined : { reason: 'no_window', message: 'no VS Code window is connected to lend its language model' };
  }

  /** Called when a window connects (so waiting work can go). */
  onAvailable(fn: () => void): void {
    this.listeners.push(fn);
  }

  private seen(windowId: string): void {
    const was = this.connected();
    const now = this.now();
    for (const [id, at] of this.windows) if (now - at > 10 * AGENT_WINDOW_GRACE_MS) this.windows.delete(id);
    this.windows.set(windowId, now);
    if (!was) for (const fn of this.listeners) fn();
  }

  complete(req: ModelRequest): Promise<ModelReply> {
    const timeoutMs = this.opts.timeoutMs;
    return new Promise<ModelReply>((resolve, reject) => {
      const job: AgentJob = { id: randomUUID(), purpose: req.purpose, system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens, deadline: this.now() + timeoutMs };
      const call: Call = {
        job,
        resolve: (r) => resolve({ ...r, inputTokens: r.inputTokens || estimateTokens(req.system) + estimateTokens(req.prompt) }),
        reject,
        timer: setTimeout(() => {
          this.queue = this.queue.filter((c) => c !== call);
          this.leased.delete(job.id);
          // Never taken: no window was there, not the job's fault. Taken and not answered: a failure.
          if (call.windowId === undefined) reject(new NotNow(this.now(), 'no VS Code window took the call'));
          else reject(new ProviderError(`timeout: window ${call.windowId} did not answer within ${timeoutMs} ms`, 'retry'));
        }, timeoutMs),
      };
      this.queue.push(call);
      this.dispatch();
    });
  }

  private lease(windowId: string, max: number): AgentJob[] {
    const out: AgentJob[] = [];
    while (out.length < max && this.queue.length > 0) {
      const call = this.queue.shift() as Call;
      call.windowId = windowId;
      this.leased.set(call.job.id, call);
      out.push(call.job);
    }
    return out;
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.pollers.length > 0) {
      const p = this.pollers.shift() as Poller;
      if (p.signal?.aborted) continue;
      p.deliver(this.lease(p.windowId, p.max));
    }
  }

  /** One long-poll: jobs as soon as there are any, else [] after waitMs (or when the client goes). */
  poll(windowId: string, o: { waitMs: number; max: number; signal?: AbortSignal }): Promise<AgentJob[]> {
    this.seen(windowId);
    if (this.queue.length > 0 || o.waitMs <= 0) return Promise.resolve(this.lease(windowId, o.max));
    return new Promise<AgentJob[]>((resolve) => {
      let done = false;
      const finish = (jobs: AgentJob[]) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        this.pollers = this.pollers.filter((x) => x !== poller);
        this.windows.set(windowId, this.now());
        resolve(jobs);
      };
      const onAbort = () => finish([]);
      const poller: Poller = { windowId, max: o.max, signal: o.signal, deliver: finish };
      const timer = setTimeout(() => finish([]), o.waitMs);
      o.signal?.addEventListener('abort', onAbort);
      this.pollers.push(poller);
    });
  }

  /** A window's answer. false: unknown job (expired, answered already, or leased to another window). */
  result(r: AgentResultRequest): boolean {
    const call = this.leased.get(r.id);
    if (!call || call.windowId !== r.windowId) return false;
    this.leased.delete(r.id);
    clearTimeout(call.timer);
    this.seen(r.windowId);
    if (r.model) this.model = r.model;
    if (r.error) {
      const msg = `window ${r.windowId}: ${r.error.kind}: ${r.error.message}`;
      const pause = r.error.kind === 'auth' ? 'auth' : r.error.kind === 'quota' ? 'quota' : r.error.kind === 'not_found' ? 'config' : undefined;
      call.reject(pause ? new ProviderError(msg, 'pause', { pause }) : new ProviderError(msg, 'retry'));
    } else {
      const text = r.text ?? '';
      call.resolve({ text, inputTokens: r.inputTokens ?? 0, outputTokens: r.outputTokens ?? estimateTokens(text), model: r.model ?? this.model });
    }
    return true;
  }

  /** The window leaves: its open polls end and the calls it held are offered to the others. */
  leave(windowId: string): number {
    for (const p of this.pollers.filter((x) => x.windowId === windowId)) p.deliver([]);
    this.windows.delete(windowId);
    let released = 0;
    for (const [id, call] of [...this.leased]) {
      if (call.windowId !== windowId) continue;
      this.leased.delete(id);
      call.windowId = undefined;
      this.queue.unshift(call);
      released += 1;
    }
    if (!this.connected()) {
      // Nobody left to take them: hand the work back to the queue, uncounted.
      for (const call of this.queue.splice(0)) {
        clearTimeout(call.timer);
        call.reject(new NotNow(this.now(), 'the last VS Code window left'));
      }
    } else this.dispatch();
    return released;
  }

  info(): AgentWindowInfo[] {
    return [...this.windows].map(([windowId, seen]) => ({
      windowId,
      lastSeen: new Date(seen).toISOString(),
      polling: this.pollers.some((p) => p.windowId === windowId),
      jobsInFlight: [...this.leased.values()].filter((c) => c.windowId === windowId).length,
    }));
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Ends every open poll (shutdown). */
  close(): void {
    for (const p of this.pollers.splice(0)) p.deliver([]);
  }
}
