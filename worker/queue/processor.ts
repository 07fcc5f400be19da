// Drains the durable queue. A job's result and the job's removal are one transaction, so a crash
// at any point either re-runs the job or keeps its result, never both and never neither.
import type { EventBus } from '../events';
import type { ObservationJob, SummaryJob } from '../lifecycle';
import type { Logger } from '../log';
import { contentHash, estimateTokens } from '../hash';
import type { Compressor } from '../agent/compressor';
import { insertObservation } from '../store/repos/observations';
import { lastPrompt } from '../store/repos/prompts';
import { failJob, finishJob, nextDueAt, readyJobs, type JobRow } from '../store/repos/queue';
import { sessionById } from '../store/repos/sessions';
import { insertSummary } from '../store/repos/summaries';
import type { Store } from '../store/store';

const CHUNK = 25;
export const MAX_ATTEMPTS = 5;

export class Processor {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Jobs being worked on right now (kept in memory only: after a crash they are simply pending). */
  readonly inFlight = new Set<number>();
  processed = 0;

  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly compressor: Compressor,
  ) {}

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      } else this.scheduleRetry();
    });
  }

  /** Resolves when nothing is ready to run (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.idle();
  }

  private scheduleRetry(): void {
    if (this.timer) clearTimeout(this.timer);
    const due = nextDueAt(this.store);
    if (due === undefined || this.stopped) return;
    this.timer = setTimeout(() => this.kick(), Math.max(10, due - Date.now()));
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped || this.store.broken) return;
      const jobs = readyJobs(this.store, Date.now(), CHUNK).filter((j) => !this.inFlight.has(j.id));
      if (jobs.length === 0) return;
      await Promise.all(jobs.map((j) => this.run(j)));
      // Let requests in between chunks.
      await new Promise((r) => setImmediate(r));
    }
  }

  private async run(job: JobRow): Promise<void> {
    this.inFlight.add(job.id);
    try {
      if (job.kind === 'observation') await this.runObservation(job, JSON.parse(job.payload) as ObservationJob);
      else await this.runSummary(job, JSON.parse(job.payload) as SummaryJob);
      this.processed += 1;
    } catch (e) {
      const attempts = job.attempts + 1;
      const dead = attempts >= MAX_ATTEMPTS;
      const backoff = Math.min(60_000, 500 * 2 ** attempts) * (0.5 + Math.random() / 2);
      this.log.warn(`job ${job.id} failed (attempt ${attempts}${dead ? ', now dead' : ''}): ${(e as Error).message}`);
      await this.store.write((tx) => failJob(tx, job.id, (e as Error).message, Date.now() + backoff, dead)).catch(() => undefined);
      this.events.emit('queue_changed', { jobId: job.id, state: dead ? 'dead' : 'retry' });
    } finally {
      this.inFlight.delete(job.id);
    }
  }

  private async runObservation(job: JobRow, payload: ObservationJob): Promise<void> {
    const session = sessionById(this.store, job.session_id);
    if (!session) return; // forgotten meanwhile; the job went with it
    const result = await this.compressor.observe(payload);
    const discovery = estimateTokens(payload.toolInput) + estimateTokens(payload.toolResponse);
    const ids = await this.store.write((tx) => {
      const out: number[] = [];
      result.drafts.forEach((d, i) => {
        const id = insertObservation(tx, {
          ...d,
          sessionId: session.id,
          project: session.project,
          toolName: payload.toolName,
          promptNumber: payload.promptNumber,
          contentHash: i === 0 ? job.content_hash : contentHash(job.content_hash, String(i)),
          source: result.source,
          inputTokens: Math.round(result.inputTokens / result.drafts.length),
          outputTokens: Math.round(result.outputTokens / result.drafts.length),
          discoveryTokens: Math.round(discovery / result.drafts.length),
          createdAt: job.created_at,
        });
        if (id !== undefined) out.push(id);
      });
      finishJob(tx, job.id);
      return out;
    });
    ids.forEach((id, i) => {
      const d = result.drafts[i];
      this.events.emit('new_observation', { id, sessionDbId: session.id, project: session.project, type: d.type, title: d.title, toolName: payload.toolName, createdAt: new Date(job.created_at).toISOString() });
    });
  }

  private async runSummary(job: JobRow, payload: SummaryJob): Promise<void> {
    const session = sessionById(this.store, job.session_id);
    if (!session) return;
    const observations = this.store.all<{ type: string; title: string; files_read: string; files_modified: string }>(
      'SELECT type, title, files_read, files_modified FROM observations WHERE session_id = ? ORDER BY id',
      [session.id],
    );
    const request = payload.lastUserMessage ?? lastPrompt(this.store, session.id)?.text;
    const result = await this.compressor.summarize({ request, lastAssistantMessage: payload.lastAssistantMessage, observations, project: session.project });
    const id = await this.store.write((tx) => {
      const sid = result.summary
        ? insertSummary(tx, {
            ...result.summary,
            sessionId: session.id,
            project: session.project,
            promptNumber: payload.promptNumber,
            contentHash: job.content_hash,
            inputTokens: result.inputTokens,
            outputTokens: result.outputTokens,
            createdAt: job.created_at,
          })
        : undefined;
      finishJob(tx, job.id);
      return sid;
    });
    if (id !== undefined) this.events.emit('new_summary', { id, sessionDbId: session.id, project: session.project, request: result.summary?.request ?? null });
  }
}
