// Drains the durable queue. A batch's results and the removal of its jobs are one transaction, so a
// crash at any point either re-runs the jobs or keeps their results, never both and never neither;
// observations are also unique per (session, content hash), derived from the job's own hash.
// Failures back off exponentially with jitter and end in the dead-letter state after N attempts;
// NotNow (no window yet, provider cooling down) waits in memory without counting an attempt.
import type { EventBus } from '../events';
import type { ObservationJob, SummaryJob } from '../lifecycle';
import type { Logger } from '../../common/node/log';
import { contentHash, estimateTokens } from '../hash';
import type { Compressor, QueuePolicy } from '../compression/compressor';
import { shares } from '../compression/modelCompressor';
import { NotNow, ProviderError } from '../compression/model';
import { insertObservation, parseList } from '../store/repos/observations';
import type { TriageNote } from '../compression/triage';
import { lastPrompt } from '../store/repos/prompts';
import { failJob, finishJob, jobExists, pendingJobMeta, pendingJobsById, type JobRow } from '../store/repos/queue';
import { sessionById } from '../store/repos/sessions';
import { insertSummary } from '../store/repos/summaries';
import type { Store } from '../store/store';
import { plan, type JobMeta, type Unit } from './plan';

/**
 * Pending jobs looked at per planning pass (payloads are loaded only for the jobs that run). A pass
 * runs after every finished batch, so during a burst this scan is paid often: 500 rows still hold
 * many passes' worth of work (a pass starts at most concurrency × batch size = 100 jobs).
 */
const SCAN = 500;
/**
 * One pass plans more units than can start; the rest wait in memory for a free slot instead of a
 * new scan per finished unit (which cost a 500-row read per observation in a 200-session burst).
 * They are re-planned after this long, so work queued meanwhile is batched and ordered as usual.
 */
const READY_TTL_MS = 250;
/**
 * Batches start when no write request is being answered (for QUIET_MS): a batch's transaction
 * blocks the event loop for a few ms, and a hook waiting behind it is what users feel. During a
 * burst a batch still starts at least every MAX_YIELD_MS, and the backlog is worked off after it.
 */
const QUIET_MS = 2;
const MAX_YIELD_MS = 50;
/** On shutdown, in-flight calls get this long; their jobs are durable either way. */
const STOP_GRACE_MS = 2000;

export function backoffMs(attempts: number, policy: Pick<QueuePolicy, 'retryBaseMs' | 'retryMaxMs'>, retryAfterMs = 0, random = Math.random): number {
  const exp = Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(Math.max(retryAfterMs, exp * (0.5 + random() / 2)));
}

/** The session's local notes triage compares a batch with (worker/compression/triage.ts): the latest, oldest first. */
const EARLIER_NOTES = 60;

function earlierNotes(store: Store, sessionId: number): TriageNote[] {
  return store
    .all<{ type: string; title: string; subtitle: string | null; facts: string; concepts: string; narrative: string | null; files_read: string; files_modified: string }>(
      "SELECT type, title, subtitle, facts, concepts, narrative, files_read, files_modified FROM observations WHERE session_id = ? AND source = 'local' ORDER BY id DESC LIMIT ?",
      [sessionId, EARLIER_NOTES],
    )
    .reverse()
    .map((r) => ({ type: r.type, title: r.title, subtitle: r.subtitle, facts: parseList(r.facts), concepts: parseList(r.concepts), narrative: r.narrative, filesRead: parseList(r.files_read), filesModified: parseList(r.files_modified) }));
}

export class Processor {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private poke: (() => void) | undefined;
  private wakeAt = Infinity;
  /** Jobs told to wait (NotNow) until epoch ms; memory only, a restart simply tries them again. */
  private readonly deferred = new Map<number, number>();
  /** Units planned but not started yet, and when they were planned. Loading a unit re-reads its jobs. */
  private ready: Unit[] = [];
  private readyAt = -Infinity;
  /** Jobs being worked on right now (kept in memory only: after a crash they are simply pending). */
  readonly inFlight = new Set<number>();
  processed = 0;
  /** Queue scans so far (each reads up to SCAN rows); tests check bursts need few. */
  plans = 0;
  private writesInFlight = 0;
  private lastWriteAt = -Infinity;
  private gap: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly events: EventBus,
    private readonly log: Logger,
    private readonly compressor: Compressor,
  ) {
    compressor.onAvailable?.(() => this.wake());
  }

  /** The HTTP layer brackets every write request with these (reads and streams do not count). */
  writeStarted(): void {
    this.writesInFlight += 1;
    this.lastWriteAt = performance.now();
  }

  writeEnded(): void {
    this.writesInFlight = Math.max(0, this.writesInFlight - 1);
    this.lastWriteAt = performance.now();
  }

  private get answeringWrites(): boolean {
    return this.writesInFlight > 0 || performance.now() - this.lastWriteAt < QUIET_MS;
  }

  /**
   * Resolves in the next gap between write requests (or after MAX_YIELD_MS), one caller per gap:
   * background work (a compression unit, a team push) goes there, not in front of a hook's answer.
   */
  nextGap(): Promise<void> {
    this.gap = this.gap.then(async () => {
      const start = performance.now();
      while (!this.stopped && this.answeringWrites && performance.now() - start < MAX_YIELD_MS) {
        await new Promise((r) => setTimeout(r, QUIET_MS));
      }
    });
    return this.gap;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      this.poke?.();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    // Start after the request that queued the job has answered: a spool answer takes a few turns of
    // the loop, and planning in front of it made a hook wait (a batch waits for a quiet gap anyway).
    this.running = new Promise<void>((r) => setTimeout(r, QUIET_MS)).then(() => this.drain()).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      } else this.schedule();
    });
  }

  /** Work that waited (for a window, a cooldown) may go now. */
  wake(): void {
    this.deferred.clear();
    this.ready = [];
    this.kick();
  }

  /** Resolves when nothing is ready to run (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.poke?.();
    let t: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((r) => (t = setTimeout(r, STOP_GRACE_MS)))]);
    if (t) clearTimeout(t);
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.stopped || !Number.isFinite(this.wakeAt)) return;
    this.timer = setTimeout(() => this.kick(), Math.min(2 ** 31 - 1, Math.max(10, this.wakeAt - Date.now())));
    this.timer.unref();
  }

  /** Up to `n` units to start now: from the last plan while it is fresh, else from a new one. */
  private nextUnits(policy: QueuePolicy, n: number): Unit[] {
    if (this.ready.length === 0 || performance.now() - this.readyAt > READY_TTL_MS) {
      this.ready = this.planNow(policy);
      this.readyAt = performance.now();
    }
    return this.ready.splice(0, n);
  }

  private planNow(policy: QueuePolicy): Unit[] {
    this.plans += 1;
    const now = Date.now();
    for (const [id, until] of this.deferred) if (until <= now) this.deferred.delete(id);
    const pending: JobMeta[] = pendingJobMeta(this.store, SCAN);
    const p = plan({ pending, inFlight: this.inFlight, deferred: this.deferred, maxUses: policy.batchMaxUses, maxAgeMs: policy.batchMaxAgeMs, now });
    this.wakeAt = p.wakeAt;
    return p.units;
  }

  private async drain(): Promise<void> {
    const running = new Set<Promise<void>>();
    for (;;) {
      if (this.stopped || this.store.broken) break;
      this.again = false;
      const policy = this.compressor.policy();
      // Every queued observation pokes this loop; planning scans the queue, so it runs only when
      // a unit could start (during a burst all slots are busy and the pokes cost nothing).
      if (running.size < policy.concurrency) {
        for (const u of this.nextUnits(policy, policy.concurrency - running.size)) {
          const p: Promise<void> = this.runUnit(u).finally(() => running.delete(p));
          running.add(p);
        }
      }
      if (running.size === 0) break;
      // Wait for a unit to finish, new work (kick), or a batch coming of age.
      let sleep: NodeJS.Timeout | undefined;
      await Promise.race([
        ...running,
        new Promise<void>((r) => {
          this.poke = r;
          if (Number.isFinite(this.wakeAt)) sleep = setTimeout(r, Math.min(60_000, Math.max(10, this.wakeAt - Date.now())));
        }),
      ]);
      if (sleep) clearTimeout(sleep);
      this.poke = undefined;
      // Let requests in between passes.
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(running);
  }

  private loadRows(ids: number[]): JobRow[] {
    return pendingJobsById(this.store, ids);
  }

  private async runUnit(u: Unit): Promise<void> {
    const ids = u.kind === 'observe' ? u.jobs.map((j) => j.id) : [u.job.id];
    for (const id of ids) this.inFlight.add(id);
    let rows: JobRow[] = [];
    try {
      await this.nextGap();
      rows = this.loadRows(ids);
      if (rows.length === 0) return;
      if (u.kind === 'observe') await this.runObservations(u.sessionId, rows);
      else await this.runSummary(rows[0]);
      this.processed += rows.length;
    } catch (e) {
      // Units planned before this answer would meet the same wait or cooldown: plan afresh.
      this.ready = [];
      if (e instanceof NotNow) {
        for (const r of rows) this.deferred.set(r.id, e.until);
        this.log.debug(`${rows.length} job(s) wait until ${new Date(e.until).toISOString()}: ${e.message}`);
        return;
      }
      await this.fail(rows, e);
    } finally {
      for (const id of ids) this.inFlight.delete(id);
    }
  }

  private async fail(rows: JobRow[], e: unknown): Promise<void> {
    const policy = this.compressor.policy();
    const message = e instanceof Error ? e.message : String(e);
    const retryAfter = e instanceof ProviderError ? e.opts.retryAfterMs : undefined;
    const now = Date.now();
    const updates = rows.map((j) => {
      const attempts = j.attempts + 1;
      return { id: j.id, attempts, dead: attempts >= policy.maxAttempts, next: now + backoffMs(attempts, policy, retryAfter) };
    });
    // A transient provider error holds back every batch, not just this one: no storm.
    if (e instanceof ProviderError && e.kind === 'retry' && updates.length > 0) this.compressor.cooldown?.(Math.min(...updates.map((x) => x.next - now)), message);
    const dead = updates.filter((x) => x.dead).length;
    this.log.warn(`${rows.length} job(s) failed (attempt ${updates[0]?.attempts ?? '?'}${dead ? `, ${dead} now dead` : ''}): ${message}`);
    try {
      await this.store.write((tx) => updates.forEach((x) => failJob(tx, x.id, message, x.next, x.dead)));
    } catch (we) {
      this.log.error(`could not record the failure of job(s) ${rows.map((r) => r.id).join(',')}: ${(we as Error).message}`);
      return;
    }
    for (const x of updates) this.events.emit('queue_changed', { jobId: x.id, state: x.dead ? 'dead' : 'retry', attempts: x.attempts, error: message.slice(0, 300) });
  }

  private async finishOrphans(rows: JobRow[]): Promise<void> {
    await this.store.write((tx) => rows.forEach((r) => finishJob(tx, r.id)));
  }

  private async runObservations(sessionId: number, rows: JobRow[]): Promise<void> {
    const session = sessionById(this.store, sessionId);
    if (!session) return this.finishOrphans(rows); // forgotten meanwhile
    const payloads = rows.map((r) => JSON.parse(r.payload) as ObservationJob);
    const result = await this.compressor.observe({
      project: session.project,
      request: lastPrompt(this.store, session.id)?.text,
      jobs: payloads,
      oldestCreatedAt: Math.min(...rows.map((r) => r.created_at)),
      earlier: earlierNotes(this.store, session.id),
    });
    const discovery = shares(payloads.reduce((n, p) => n + estimateTokens(p.toolInput) + estimateTokens(p.toolResponse), 0), result.observations.length);
    const inserted = await this.store.write((tx) => {
      const out: { id: number; index: number }[] = [];
      const s = sessionById(tx, sessionId);
      const alive = new Set(rows.filter((r) => jobExists(tx, r.id)).map((r) => r.id));
      const ordinal = new Map<number, number>();
      result.observations.forEach((o, index) => {
        const row = rows[o.job];
        const job = payloads[o.job];
        if (!s || !row || !alive.has(row.id)) return;
        const k = ordinal.get(o.job) ?? 0;
        ordinal.set(o.job, k + 1);
        const id = insertObservation(tx, {
          ...o.draft,
          sessionId: s.id,
          project: s.project,
          toolName: job.toolName,
          promptNumber: job.promptNumber,
          // The first observation of a tool use carries the tool use's own hash (so the same tool
          // use posted again is recognised); later ones a hash derived from it.
          contentHash: k === 0 ? row.content_hash : contentHash(row.content_hash, String(k)),
          source: o.source ?? result.source,
          quiet: o.quiet,
          inputTokens: o.inputTokens,
          outputTokens: o.outputTokens,
          discoveryTokens: discovery[index],
          createdAt: row.created_at,
        });
        if (id !== undefined) out.push({ id, index });
      });
      for (const r of rows) finishJob(tx, r.id);
      return out;
    });
    for (const { id, index } of inserted) {
      const o = result.observations[index];
      const row = rows[o.job];
      this.events.emit('new_observation', {
        id,
        sessionDbId: session.id,
        project: session.project,
        type: o.draft.type,
        title: o.draft.title,
        toolName: payloads[o.job].toolName,
        source: o.source ?? result.source,
        createdAt: new Date(row.created_at).toISOString(),
      });
    }
  }

  private async runSummary(row: JobRow): Promise<void> {
    const session = sessionById(this.store, row.session_id);
    if (!session) return this.finishOrphans([row]);
    const payload = JSON.parse(row.payload) as SummaryJob;
    const observations = this.store.all<{ type: string; title: string; subtitle: string | null; facts: string | null; narrative: string | null; files_read: string; files_modified: string; source: string }>(
      'SELECT type, title, subtitle, facts, narrative, files_read, files_modified, source FROM observations WHERE session_id = ? ORDER BY id',
      [session.id],
    );
    const request = payload.lastUserMessage ?? lastPrompt(this.store, session.id)?.text;
    const prompts = this.store.all<{ text: string }>('SELECT text FROM user_prompts WHERE session_id = ? ORDER BY prompt_number, id', [session.id]).map((p) => p.text);
    const result = await this.compressor.summarize({ request, prompts, lastAssistantMessage: payload.lastAssistantMessage, observations, project: session.project, createdAt: row.created_at });
    const id = await this.store.write((tx) => {
      const alive = jobExists(tx, row.id);
      const sid =
        result.summary && alive && sessionById(tx, session.id)
          ? insertSummary(tx, {
              ...result.summary,
              sessionId: session.id,
              project: session.project,
              promptNumber: payload.promptNumber,
              contentHash: row.content_hash,
              inputTokens: result.inputTokens,
              outputTokens: result.outputTokens,
              createdAt: row.created_at,
            })
          : undefined;
      finishJob(tx, row.id);
      return sid;
    });
    if (id !== undefined) this.events.emit('new_summary', { id, sessionDbId: session.id, project: session.project, request: result.summary?.request ?? null });
  }
}

export type { Unit };
