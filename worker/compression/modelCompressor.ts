// A model-backed compressor (Anthropic or a VS Code window's model) with its fallback to the local
// heuristic. Order, per batch: the chosen model when it can take work; otherwise `local` when it is
// paused (401/403, quota, unknown model), the daily token budget is spent, or no key is set; a
// `vscode` batch waits up to vscodeWaitMs for a window before going local; a cooling-down provider
// (after 429/5xx/network) makes batches wait. Work never goes to a model the user did not choose.
// Scope `worth` (the default): every tool use gets its local note, and only the few that triage.ts
// finds worth it (failures, their fixes, stated choices) go to the model, shown as their note plus
// a failure's output; the model's observation is listed and the note it covers stays stored, quiet,
// as its evidence. A failed call keeps the local notes (cooling the provider down), so nothing
// waits or dies. The summary reads the local summary as its draft, and falls back to it.
// Scope `every`: every tool use goes to the model, failures are retried by the queue.
import { estimateTokens } from '../hash';
import type { Logger } from '../../common/node/log';
import type { ProviderStatus } from '../../common/contract';
import { searchPhrasesFact } from '../search/expansion';
import type { ObservationDraft } from '../store/repos/observations';
import type { SummaryDraft } from '../store/repos/summaries';
import { summarizeLocally } from './local';
import type { TokenBudget } from './budget';
import { observeAndTriage, observeLocally, type BatchObservation, type Compressor, type ObserveBatch, type ObserveResult, type QueuePolicy, type SummaryInput, type SummaryResult } from './compressor';
import { confirmedModified, evidenceOf, filesRead } from './evidence';
import type { ProviderGate } from './gate';
import { NotNow, ProviderError, type ModelBackend, type ModelReply, type ModelRequest } from './model';
import { parseObservations, parseSummary, type ParsedObservation } from './parser';
import { noteText, OBSERVER_SYSTEM, observerPrompt, SUMMARY_SYSTEM, summaryPrompt } from './prompts';

export interface ModelCompressorOptions {
  backend: ModelBackend;
  gate: ProviderGate;
  budget: TokenBudget;
  policy: QueuePolicy;
  /** Each tool field in a prompt is capped to this many characters. */
  fieldChars: number;
  maxOutputTokens: number;
  /** How long work waits for a VS Code window before going local. */
  vscodeWaitMs: number;
  /** worth: only the tool uses worth a model go to it; every: all of them (see the top of the file). */
  scope?: ModelScope;
  log: Logger;
  now?: () => number;
}

export type ModelScope = 'worth' | 'every';

/** Titles of the batch's other steps shown to the model beside the tool uses worth it. */
const AROUND = 10;

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string, max = 200) => clip(s.replace(/\s+/g, ' ').trim(), max);

/** Splits total into n integer shares that add up to it. */
export function shares(total: number, n: number): number[] {
  if (n <= 0) return [];
  const base = Math.floor(total / n);
  return Array.from({ length: n }, (_, i) => base + (i < total - base * n ? 1 : 0));
}

export class ModelCompressor implements Compressor {
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly o: ModelCompressorOptions) {}

  get name(): string {
    return this.o.backend.name;
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  policy(): QueuePolicy {
    return this.o.policy;
  }

  onAvailable(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Lifts a pause or cooldown (POST /api/agent/resume, new credentials). */
  resume(): void {
    this.o.gate.resume();
    for (const fn of this.listeners) fn();
  }

  cooldown(ms: number, message: string): void {
    this.o.gate.cooldown(message, ms);
  }

  state(): ProviderStatus {
    const { gate, backend, budget } = this.o;
    const base = { name: backend.name, model: backend.model, fallback: 'local' as const, ...(gate.lastError ? { lastError: gate.lastError } : {}) };
    const p = gate.paused();
    if (p) return { ...base, state: 'paused', pausedReason: p.reason, lastError: p.message, ...(p.until ? { until: p.until } : {}) };
    const u = backend.unavailable();
    if (u) return { ...base, state: u.reason === 'no_key' ? 'no_key' : 'waiting_for_window', lastError: gate.lastError ?? u.message };
    if (budget.exhausted()) return { ...base, state: 'budget_exhausted' };
    const c = gate.coolingUntil();
    if (c) return { ...base, state: 'backoff', until: c };
    return { ...base, state: 'ready' };
  }

  /** 'model' or 'local' for work queued at createdAt; throws NotNow when it should wait. */
  private route(createdAt: number): 'model' | 'local' {
    const { gate, backend, budget } = this.o;
    if (gate.paused() || budget.exhausted()) return 'local';
    const u = backend.unavailable();
    if (u?.reason === 'no_key') return 'local';
    if (u?.reason === 'no_window') {
      const until = createdAt + this.o.vscodeWaitMs;
      if (until > this.now()) throw new NotNow(until, u.message);
      return 'local';
    }
    const c = gate.coolingUntil();
    if (c) throw new NotNow(c, `provider cooling down: ${gate.lastError ?? ''}`);
    return 'model';
  }

  /** One model call; undefined when the provider got paused by it (the caller goes local). */
  private async call(req: ModelRequest): Promise<ModelReply | undefined> {
    try {
      const reply = await this.o.backend.complete(req);
      this.o.budget.add(reply.inputTokens + reply.outputTokens);
      return reply;
    } catch (e) {
      if (e instanceof ProviderError && e.kind === 'pause') {
        this.o.gate.pauseFor(e.opts.pause ?? 'auth', e.message);
        this.o.log.warn(`${this.name} provider paused (${e.opts.pause}): ${e.message}; work goes to local until resumed`);
        return undefined;
      }
      if (e instanceof ProviderError) this.o.gate.note(e.message);
      throw e;
    }
  }

  private pauseFromProse(kind: 'auth' | 'quota', text: string): void {
    const msg = `model replied with ${kind} prose: ${oneLine(text)}`;
    this.o.gate.pauseFor(kind, msg);
    this.o.log.warn(`${this.name} provider paused: ${msg}`);
  }

  private get worthOnly(): boolean {
    return (this.o.scope ?? 'worth') === 'worth';
  }

  /** A failed call in scope `worth`: the provider cools down, the caller keeps the local result. */
  private failedCall(e: unknown, what: string): void {
    if (e instanceof NotNow) throw e;
    const message = e instanceof Error ? e.message : String(e);
    if (!(e instanceof ProviderError) || e.kind === 'retry') this.o.gate.cooldown(message, Math.max(this.o.policy.retryBaseMs, e instanceof ProviderError ? (e.opts.retryAfterMs ?? 0) : 0));
    else this.o.gate.note(message);
    this.o.log.warn(`${this.name} ${what} call failed (${message}); the local one is kept`);
  }

  async observe(batch: ObserveBatch): Promise<ObserveResult> {
    if (this.worthOnly) return this.observeWorth(batch);
    if (this.route(batch.oldestCreatedAt) === 'local') return observeLocally(batch);
    const prompt = observerPrompt({ project: batch.project, request: batch.request, uses: batch.jobs, fieldChars: this.o.fieldChars });
    if (this.o.budget.exhausted(estimateTokens(OBSERVER_SYSTEM) + estimateTokens(prompt))) return observeLocally(batch);
    const reply = await this.call({ purpose: 'observe', system: OBSERVER_SYSTEM, prompt, maxOutputTokens: this.o.maxOutputTokens });
    if (!reply) return observeLocally(batch);
    const parsed = parseObservations(reply.text);
    for (const w of parsed.warnings) this.o.log.info(`observer reply: ${w}`);
    const tokens = { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens };
    switch (parsed.kind) {
      case 'observations':
        return { observations: this.build(batch, parsed.observations, reply), source: this.name, ...tokens };
      case 'skip':
      case 'idle':
        this.o.log.debug(`observer skipped ${batch.jobs.length} tool use(s): ${parsed.skipReason ?? oneLine(reply.text)}`);
        return { observations: [], source: this.name, ...tokens };
      case 'auth':
      case 'quota':
        this.pauseFromProse(parsed.kind, reply.text);
        return this.localWithTokens(batch, reply);
      default:
        this.o.gate.note(`observer reply had no usable observations (${parsed.kind}): ${oneLine(reply.text, 120)}`);
        this.o.log.warn(`observer reply had no usable observations (${parsed.kind}); ${batch.jobs.length} tool use(s) compressed locally`);
        return this.localWithTokens(batch, reply);
    }
  }

  /** Scope `worth`: local notes for all, the model's observations for the few tool uses worth it. */
  private async observeWorth(batch: ObserveBatch): Promise<ObserveResult> {
    const { result: local, notes, worth } = observeAndTriage(batch);
    const picked = worth.flatMap((w, i) => (w ? [i] : []));
    if (picked.length === 0 || this.route(batch.oldestCreatedAt) === 'local') return local;
    const around = notes.filter((_, i) => !worth[i] && !local.observations[i].quiet).map((n) => n.title).slice(-AROUND);
    const prompt = observerPrompt({
      project: batch.project,
      request: batch.request,
      uses: picked.map((i) => batch.jobs[i]),
      notes: picked.map((i) => noteText(notes[i])),
      failed: picked.map((i) => notes[i].concepts.includes('gotcha')),
      around,
      fieldChars: this.o.fieldChars,
    });
    if (this.o.budget.exhausted(estimateTokens(OBSERVER_SYSTEM) + estimateTokens(prompt))) return local;
    let reply: ModelReply | undefined;
    try {
      reply = await this.call({ purpose: 'observe', system: OBSERVER_SYSTEM, prompt, maxOutputTokens: this.o.maxOutputTokens });
    } catch (e) {
      this.failedCall(e, 'observer');
      return local;
    }
    if (!reply) return local;
    const parsed = parseObservations(reply.text);
    for (const w of parsed.warnings) this.o.log.info(`observer reply: ${w}`);
    const tokens = { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens };
    if (parsed.kind === 'auth' || parsed.kind === 'quota') this.pauseFromProse(parsed.kind, reply.text);
    else if (parsed.kind !== 'observations' && parsed.kind !== 'skip' && parsed.kind !== 'idle') this.o.gate.note(`observer reply had no usable observations (${parsed.kind}): ${oneLine(reply.text, 120)}`);
    if (parsed.kind !== 'observations') {
      // Nothing from the model: the local notes stand, the first worth one carrying the call's tokens.
      const first = local.observations[picked[0]];
      Object.assign(first, tokens);
      return { ...local, ...tokens };
    }
    const sub: ObserveBatch = { ...batch, jobs: picked.map((i) => batch.jobs[i]) };
    const model = this.build(sub, parsed.observations, reply).map((o) => ({ ...o, job: picked[o.job], source: this.name }));
    // The model's observation is what is listed; the local note of the tool use it covers stays
    // stored (first, so it keeps the tool use's hash) as its evidence, quiet.
    const covered = new Set(model.map((o) => o.job));
    const notesKept = local.observations.map((o) => ({ ...o, source: 'local', ...(covered.has(o.job) ? { quiet: true } : {}) }));
    const observations = [...notesKept, ...model].sort((a, b) => a.job - b.job || Number(a.source !== 'local') - Number(b.source !== 'local'));
    return { observations, source: this.name, ...tokens };
  }

  /** The local heuristic's observations, carrying the tokens the failed call cost. */
  private localWithTokens(batch: ObserveBatch, reply: ModelReply): ObserveResult {
    const r = observeLocally(batch);
    const ins = shares(reply.inputTokens, r.observations.length);
    const outs = shares(reply.outputTokens, r.observations.length);
    r.observations.forEach((o, i) => {
      o.inputTokens = ins[i];
      o.outputTokens = outs[i];
    });
    return { ...r, inputTokens: reply.inputTokens, outputTokens: reply.outputTokens };
  }

  private build(batch: ObserveBatch, parsed: ParsedObservation[], reply: ModelReply): BatchObservation[] {
    const n = batch.jobs.length;
    const evidence = batch.jobs.map(evidenceOf);
    const cwd = batch.jobs.find((j) => j.cwd)?.cwd;
    const ins = shares(reply.inputTokens, parsed.length);
    const outs = shares(reply.outputTokens, parsed.length);
    return parsed.map((p, k) => {
      const cited = p.toolUses.filter((u) => u >= 1 && u <= n).map((u) => u - 1);
      const job = cited.length > 0 ? Math.min(...cited) : Math.min(k, n - 1);
      const citedEvidence = (cited.length > 0 ? cited : [job]).map((i) => evidence[i]);
      const draft: ObservationDraft = {
        type: p.type,
        title: clip(p.title, 300),
        subtitle: p.subtitle ? clip(p.subtitle, 300) : null,
        facts: [...p.facts.slice(0, 20).map((f) => clip(f, 500)), ...searchPhrasesFact(p.searchPhrases)],
        narrative: p.narrative ? clip(p.narrative, 4000) : null,
        concepts: p.concepts.slice(0, 10),
        filesRead: filesRead(citedEvidence, p.filesRead, cwd),
        filesModified: confirmedModified(citedEvidence, evidence, p.filesModified, cwd),
      };
      return { draft, job, inputTokens: ins[k], outputTokens: outs[k] };
    });
  }

  /**
   * One call outside the queue (re-verifying a stale memory): the reply, or undefined when the model
   * cannot take work right now (paused, no key or window, budget spent, cooling down).
   */
  async ask(req: ModelRequest): Promise<ModelReply | undefined> {
    const { gate, backend, budget } = this.o;
    if (gate.paused() || backend.unavailable() || gate.coolingUntil() || budget.exhausted(estimateTokens(req.system) + estimateTokens(req.prompt))) return undefined;
    return this.call(req);
  }

  async summarize(input: SummaryInput): Promise<SummaryResult> {
    const draft = summarizeLocally(input);
    const local = (): SummaryResult => ({ summary: draft, inputTokens: 0, outputTokens: 0 });
    if (this.route(input.createdAt ?? this.now()) === 'local') return local();
    const prompt = summaryPrompt({ ...input, draft }, this.o.fieldChars);
    if (this.o.budget.exhausted(estimateTokens(SUMMARY_SYSTEM) + estimateTokens(prompt))) return local();
    let reply: ModelReply | undefined;
    try {
      reply = await this.call({ purpose: 'summarize', system: SUMMARY_SYSTEM, prompt, maxOutputTokens: this.o.maxOutputTokens });
    } catch (e) {
      if (!this.worthOnly) throw e;
      this.failedCall(e, 'summary');
      return local();
    }
    if (!reply) return local();
    const parsed = parseSummary(reply.text);
    for (const w of parsed.warnings) this.o.log.info(`summary reply: ${w}`);
    const tokens = { inputTokens: reply.inputTokens, outputTokens: reply.outputTokens };
    switch (parsed.kind) {
      case 'summary': {
        const s = parsed.summary as NonNullable<typeof parsed.summary>;
        const draft: SummaryDraft = {
          request: s.request ?? (input.request ? oneLine(input.request, 300) : null),
          investigated: s.investigated && clip(s.investigated, 4000),
          learned: s.learned && clip(s.learned, 4000),
          completed: s.completed && clip(s.completed, 4000),
          nextSteps: s.nextSteps && clip(s.nextSteps, 4000),
          notes: s.notes && clip(s.notes, 4000),
        };
        return { summary: draft, ...tokens };
      }
      case 'skip':
      case 'idle':
        // Scope worth: the local summary stands (its facts stay searchable).
        return this.worthOnly ? { ...local(), ...tokens } : { summary: null, ...tokens };
      case 'auth':
      case 'quota':
        this.pauseFromProse(parsed.kind, reply.text);
        return { ...local(), ...tokens };
      default:
        this.o.gate.note(`summary reply had no usable summary (${parsed.kind}): ${oneLine(reply.text, 120)}`);
        return { ...local(), ...tokens };
    }
  }
}
