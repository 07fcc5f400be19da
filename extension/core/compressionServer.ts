// The window side of the worker's `vscode` compression provider (protocol in common/contract/,
// "agent"): long-polls GET /api/agent/jobs, runs each model call with the window's language model
// through an LmPort, and posts the reply or a classified error to POST /api/agent/results. When
// the worker's provider is not `vscode` it answers at once with active=false and this loop backs
// off. No vscode import: the port is vscode.lm in the extension and a script in tests.
import type { AgentErrorKind, AgentJob, AgentJobsResponse, AgentResultRequest } from '../../common/contract';
import type { Requester } from './memoryApi';

export type LmOutcome = { text: string; model?: string; inputTokens?: number; outputTokens?: number } | { error: { kind: AgentErrorKind; message: string } };

export interface LmPort {
  complete(job: AgentJob, signal: { readonly isCancellationRequested: boolean }): Promise<LmOutcome>;
}

export interface CompressionServerOptions {
  requester: () => Requester | undefined;
  windowId: string;
  port: LmPort;
  /** Whether this window offers its model at all (the provider setting). */
  enabled: () => boolean;
  log: { info(m: string): void; warn(m: string): void; debug?(m: string): void };
  waitMs?: number;
  /** Pause after the worker said its provider is not `vscode`. */
  inactiveBackoffMs?: number;
  maxJobs?: number;
}

export class CompressionServer {
  private running = false;
  private loop: Promise<void> | undefined;
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  private lastActive: boolean | undefined;
  /** Jobs answered (tests and the log). */
  readonly stats = { served: 0, failed: 0, refused: 0 };

  constructor(private readonly o: CompressionServerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run().finally(() => (this.loop = undefined));
  }

  /** Poll again now (the setting changed or a worker connected). */
  kick(): void {
    if (!this.running) return this.start();
    this.wake();
  }

  private wake(): void {
    if (this.sleeping) {
      clearTimeout(this.sleeping.timer);
      this.sleeping.wake();
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.sleeping = undefined;
        resolve();
      };
      this.sleeping = { timer: setTimeout(wake, ms), wake };
    });
  }

  private async run(): Promise<void> {
    let backoff = 1000;
    const wait = this.o.waitMs ?? 25_000;
    while (this.running) {
      const c = this.o.requester();
      if (!this.o.enabled() || !c) {
        await this.sleep(this.o.enabled() ? 2000 : 30_000);
        continue;
      }
      let body: AgentJobsResponse;
      try {
        const r = await c.request<AgentJobsResponse>('GET', `/api/agent/jobs?windowId=${encodeURIComponent(this.o.windowId)}&wait=${wait}&max=${this.o.maxJobs ?? 2}`, undefined, wait + 10_000);
        if (r.status === 404 || r.status === 501) {
          this.o.log.debug?.('worker has no vscode provider protocol; not serving compression');
          await this.sleep(300_000);
          continue;
        }
        if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
        body = r.body;
        backoff = 1000;
      } catch (e) {
        this.o.log.debug?.(`compression poll failed: ${(e as Error).message}`);
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
        continue;
      }
      if (body.active !== this.lastActive) {
        this.lastActive = body.active;
        this.o.log.info(body.active ? 'serving compression jobs with this window\'s language model' : `worker compresses with "${body.provider}"; this window's model is not needed`);
      }
      if (!body.active) {
        await this.sleep(this.o.inactiveBackoffMs ?? 60_000);
        continue;
      }
      await Promise.all((body.jobs ?? []).map((job) => this.serve(job)));
    }
  }

  private async serve(job: AgentJob): Promise<void> {
    const cancelled = { isCancellationRequested: false };
    const timer = setTimeout(() => (cancelled.isCancellationRequested = true), Math.max(0, job.deadline - Date.now()));
    let outcome: LmOutcome;
    try {
      outcome = await this.o.port.complete(job, cancelled);
    } catch (e) {
      outcome = { error: { kind: 'other', message: (e as Error).message } };
    } finally {
      clearTimeout(timer);
    }
    const result: AgentResultRequest = { windowId: this.o.windowId, id: job.id, ...outcome };
    if ('error' in outcome) {
      this.stats.failed++;
      this.o.log.warn(`compression job ${job.id} (${job.purpose}) failed: ${outcome.error.kind}: ${outcome.error.message}`);
    }
    try {
      const r = await this.o.requester()?.request('POST', '/api/agent/results', result, 10_000);
      if (r && r.status === 200 && !('error' in outcome)) this.stats.served++;
      if (r && r.status === 410) this.stats.refused++;
    } catch (e) {
      this.o.log.warn(`posting compression result ${job.id} failed: ${(e as Error).message}`);
    }
  }

  /** Stops polling and tells the worker this window is gone (its jobs go to another window or wait). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    try {
      await this.o.requester()?.request('DELETE', `/api/agent/windows/${encodeURIComponent(this.o.windowId)}`, undefined, 1000);
    } catch {
      /* the worker may be gone */
    }
  }
}
