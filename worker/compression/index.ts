// CompressionService, the worker's compressor: chooses the compression provider and wires its
// fallback. The choice, first that applies:
//   CLAUDE_MEM_PROVIDER (anthropic | vscode | local), then settings.json "provider",
//   then anthropic when an API key is known (ANTHROPIC_API_KEY or one the extension passed),
// The extension's key (VS Code SecretStorage) arrives as CLAUDE_MEM_EXTENSION_API_KEY at fork or
// through POST /api/agent/credentials, and is kept apart from the user's own ANTHROPIC_API_KEY, so
// "Remove Anthropic API Key" (credentials null) drops it for good in a running worker.
//   then local, the heuristic that is always there.
// While the chosen model cannot take work (paused, budget spent, no key, no window for too long)
// the work goes to local; data never goes to a provider the user did not choose.
import type { Settings, WorkerConfig } from '../../common/node/config';
import type { EventBus } from '../events';
import type { Logger } from '../../common/node/log';
import type { AgentStatusResponse, ProviderName, ProviderStatus } from '../../common/contract';
import type { Store } from '../store/store';
import { AnthropicBackend, DEFAULT_MODEL } from './anthropic';
import { TokenBudget } from './budget';
import { LOCAL_POLICY, LocalCompressor, type Compressor, type ObserveBatch, type ObserveResult, type QueuePolicy, type SummaryInput, type SummaryResult } from './compressor';
import { ProviderGate } from './gate';
import type { ModelReply, ModelRequest } from './model';
import { ModelCompressor } from './modelCompressor';
import { VscodeBridge } from './vscode';

export interface CompressorDeps {
  config: WorkerConfig;
  env: NodeJS.ProcessEnv;
  store: Store;
  events: EventBus;
  log: Logger;
}

export type ChosenBy = AgentStatusResponse['chosenBy'];
/** How a window that forks the worker hands it the key from SecretStorage (never ANTHROPIC_API_KEY). */
export const EXTENSION_KEY_ENV = 'CLAUDE_MEM_EXTENSION_API_KEY';
const PROVIDERS: readonly ProviderName[] = ['anthropic', 'vscode', 'local'];

export function chooseProvider(
  env: NodeJS.ProcessEnv,
  settings: Pick<Settings, 'provider'>,
  hasKey: boolean,
): { provider: ProviderName; chosenBy: ChosenBy; problems: string[] } {
  const problems: string[] = [];
  const fromEnv = (env.CLAUDE_MEM_PROVIDER ?? '').trim().toLowerCase();
  if (fromEnv) {
    if ((PROVIDERS as readonly string[]).includes(fromEnv)) return { provider: fromEnv as ProviderName, chosenBy: 'env', problems };
    problems.push(`CLAUDE_MEM_PROVIDER="${fromEnv}" is not one of ${PROVIDERS.join(', ')}; ignored`);
  }
  const fromSettings = settings.provider.trim().toLowerCase();
  if (fromSettings) {
    if ((PROVIDERS as readonly string[]).includes(fromSettings)) return { provider: fromSettings as ProviderName, chosenBy: 'settings', problems };
    problems.push(`settings.json provider "${fromSettings}" is not one of ${PROVIDERS.join(', ')}; ignored`);
  }
  if (hasKey) return { provider: 'anthropic', chosenBy: 'api-key', problems };
  return { provider: 'local', chosenBy: 'default', problems };
}

const clampInt = (v: number, min: number, max: number, def: number) => (Number.isFinite(v) ? Math.min(max, Math.max(min, Math.round(v))) : def);

export function queuePolicy(s: Settings): QueuePolicy {
  return {
    batchMaxUses: clampInt(s.batchMaxUses, 1, 100, 10),
    batchMaxAgeMs: clampInt(s.batchMaxAgeMs, 0, 24 * 3600_000, 30_000),
    concurrency: clampInt(s.agentConcurrency, 1, 16, 2),
    maxAttempts: clampInt(s.agentMaxAttempts, 1, 100, 5),
    retryBaseMs: clampInt(s.agentRetryBaseMs, 1, 3600_000, 5000),
    retryMaxMs: clampInt(s.agentRetryMaxMs, 1, 24 * 3600_000, 600_000),
  };
}

/** Tokens stored today (observations and summaries), to seed the budget after a restart. */
function spentSince(store: Store, since: number): number {
  const q = (t: string) => Number(store.get<{ n: number }>(`SELECT coalesce(sum(input_tokens + output_tokens), 0) AS n FROM ${t} WHERE created_at >= ?`, [since])?.n ?? 0);
  return q('observations') + q('session_summaries');
}

/** The compressor the worker uses: the chosen provider with its fallback, switchable at run time. */
export class CompressionService implements Compressor {
  readonly bridge: VscodeBridge;
  readonly budget: TokenBudget;
  private apiKey: string | undefined;
  /** The key of the environment the worker was started in (the user's own), not the extension's. */
  private readonly envKey: string | undefined;
  private anthropicCompressor: ModelCompressor | undefined;
  private readonly vscodeCompressor: ModelCompressor;
  private readonly local: LocalCompressor;
  private readonly listeners: (() => void)[] = [];
  private choice: { provider: ProviderName; chosenBy: ChosenBy };
  private readonly basePolicy: QueuePolicy;

  constructor(private readonly deps: CompressorDeps) {
    const s = deps.config.settings;
    this.envKey = deps.env.ANTHROPIC_API_KEY?.trim() || undefined;
    this.apiKey = deps.env[EXTENSION_KEY_ENV]?.trim() || this.envKey;
    // Memory only from here on: not inherited by anything this process starts.
    delete deps.env[EXTENSION_KEY_ENV];
    this.basePolicy = queuePolicy(s);
    this.local = new LocalCompressor({ ...LOCAL_POLICY, maxAttempts: this.basePolicy.maxAttempts });
    this.budget = new TokenBudget({ dailyTokens: s.dailyTokenBudget, spentSince: (t) => spentSince(deps.store, t) });
    this.bridge = new VscodeBridge({ timeoutMs: clampInt(s.agentTimeoutMs, 100, 3600_000, 60_000) });
    this.vscodeCompressor = this.modelCompressor(this.bridge);
    this.bridge.onAvailable(() => this.notify());
    this.vscodeCompressor.onAvailable(() => this.notify());
    const c = chooseProvider(deps.env, s, this.apiKey !== undefined);
    for (const p of c.problems) deps.log.warn(p);
    this.choice = c;
    deps.log.info(`compression provider: ${c.provider} (chosen by ${c.chosenBy})${c.provider === 'anthropic' ? `, model ${this.model}` : ''}`);
  }

  private get model(): string {
    return (this.deps.env.CLAUDE_MEM_MODEL ?? '').trim() || this.deps.config.settings.model.trim() || DEFAULT_MODEL;
  }

  private modelCompressor(backend: AnthropicBackend | VscodeBridge): ModelCompressor {
    const s = this.deps.config.settings;
    return new ModelCompressor({
      backend,
      gate: new ProviderGate({ quotaPauseMs: clampInt(s.quotaPauseMs, 1000, 7 * 24 * 3600_000, 3600_000) }),
      budget: this.budget,
      policy: this.basePolicy,
      fieldChars: clampInt(s.promptFieldChars, 200, 200_000, 4000),
      maxOutputTokens: clampInt(s.modelMaxOutputTokens, 256, 64_000, 4096),
      vscodeWaitMs: clampInt(s.vscodeWaitMs, 0, 7 * 24 * 3600_000, 120_000),
      scope: s.modelObservations === 'every' ? 'every' : 'worth',
      log: this.deps.log,
    });
  }

  private get anthropic(): ModelCompressor {
    if (!this.anthropicCompressor) {
      const s = this.deps.config.settings;
      this.anthropicCompressor = this.modelCompressor(
        new AnthropicBackend({ apiKey: () => this.apiKey, baseURL: this.deps.env.ANTHROPIC_BASE_URL?.trim() || undefined, model: this.model, timeoutMs: clampInt(s.agentTimeoutMs, 100, 3600_000, 60_000) }),
      );
      this.anthropicCompressor.onAvailable(() => this.notify());
    }
    return this.anthropicCompressor;
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }

  /** The provider in charge now. */
  get current(): Compressor {
    if (this.choice.provider === 'anthropic') return this.anthropic;
    if (this.choice.provider === 'vscode') return this.vscodeCompressor;
    return this.local;
  }

  get provider(): ProviderName {
    return this.choice.provider;
  }

  get name(): string {
    return this.current.name;
  }

  state(): ProviderStatus {
    return this.current.state();
  }

  policy(): QueuePolicy {
    const p = this.current.policy();
    // While the model cannot take work anyway, do not hold partial batches back.
    const st = this.current.state().state;
    return st === 'paused' || st === 'budget_exhausted' || st === 'no_key' ? { ...p, batchMaxAgeMs: 0 } : p;
  }

  observe(batch: ObserveBatch): Promise<ObserveResult> {
    return this.current.observe(batch);
  }

  summarize(input: SummaryInput): Promise<SummaryResult> {
    return this.current.summarize(input);
  }

  cooldown(ms: number, message: string): void {
    this.current.cooldown?.(ms, message);
  }

  /** A one-off model call (re-verify); undefined with the local provider or when the model cannot take work now. */
  ask(req: ModelRequest): Promise<ModelReply | undefined> {
    const c = this.current;
    return c instanceof ModelCompressor ? c.ask(req) : Promise.resolve(undefined);
  }

  onAvailable(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** Lifts a pause or backoff of the current provider. */
  resume(): void {
    if (this.current instanceof ModelCompressor) this.current.resume();
    else this.notify();
  }

  /** An API key from the extension (VS Code SecretStorage), memory only; null forgets it. */
  setApiKey(key: string | null): void {
    this.apiKey = key ?? this.envKey;
    if (this.choice.chosenBy === 'api-key' || this.choice.chosenBy === 'default') {
      const c = chooseProvider({}, { provider: '' }, this.apiKey !== undefined);
      if (c.provider !== this.choice.provider) this.deps.log.info(`compression provider: ${c.provider} (chosen by ${c.chosenBy})`);
      this.choice = c;
    }
    if (this.anthropicCompressor) this.anthropicCompressor.resume();
    else this.notify();
  }

  status(): AgentStatusResponse {
    const { day, used } = this.budget.usedToday();
    const p = this.policy();
    return {
      provider: this.state(),
      chosenBy: this.choice.chosenBy,
      budget: { dailyTokens: this.budget.limit, usedToday: used, day },
      batching: { maxUses: p.batchMaxUses, maxAgeMs: p.batchMaxAgeMs },
      windows: this.bridge.info(),
      waitingJobs: this.bridge.waiting,
    };
  }
}

export function createCompressor(deps: CompressorDeps): CompressionService {
  return new CompressionService(deps);
}
