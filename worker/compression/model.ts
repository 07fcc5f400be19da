// What a model-backed provider (Anthropic, a VS Code window's language model) offers, and the two
// errors that steer the queue: ProviderError (retry, pause or fail) and NotNow (wait, uncounted).

export interface ModelRequest {
  /** verify: re-checking a stale memory against its changed file (worker/freshness/verify.ts); rerank: ordering search results (worker/search/modelRerank.ts). */
  purpose: 'observe' | 'summarize' | 'verify' | 'rerank';
  system: string;
  prompt: string;
  maxOutputTokens: number;
}

export interface ModelReply {
  text: string;
  inputTokens: number;
  outputTokens: number;
  model: string;
}

/** A one-off model call through the worker's compressor (CompressionService.ask): undefined when no model can take it now. */
export interface Asker {
  ask(req: ModelRequest): Promise<ModelReply | undefined>;
}

export function canAsk(x: unknown): x is Asker {
  return typeof (x as Partial<Asker> | undefined)?.ask === 'function';
}

export type Unavailable = { reason: 'no_key' | 'no_window'; message: string };

export interface ModelBackend {
  readonly name: 'anthropic' | 'vscode';
  readonly model: string;
  /** undefined when a call can be made now. */
  unavailable(): Unavailable | undefined;
  complete(req: ModelRequest): Promise<ModelReply>;
}

/**
 * retry: transient (network, timeout, 429, 5xx): back off and try again, counted against the job.
 * pause: the provider cannot work until someone acts (401/403, quota, unknown model): stop calling it.
 * fail: this request is bad (400): counted against the job, no provider-wide cooldown.
 */
export type ProviderErrorKind = 'retry' | 'pause' | 'fail';
export type PauseReason = 'auth' | 'quota' | 'config';

export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly opts: { retryAfterMs?: number; pause?: PauseReason; status?: number } = {},
  ) {
    super(message);
  }
}

/** The batch cannot run yet (no window connected, provider cooling down): try again at `until`. */
export class NotNow extends Error {
  constructor(
    readonly until: number,
    reason: string,
  ) {
    super(reason);
  }
}
