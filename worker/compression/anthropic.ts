// The Anthropic provider: the Messages API through @anthropic-ai/sdk. The SDK's own retries are
// off: the durable queue retries (with backoff and jitter, counted, dead-lettered), so a crash
// never loses a retry and a bad key never turns into a storm.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { ProviderError, type ModelBackend, type ModelReply, type ModelRequest, type Unavailable } from './model';

/** The default model: a current Haiku (fast and cheap, which compression wants). */
export const DEFAULT_MODEL = 'claude-haiku-5-5';

export interface AnthropicOptions {
  apiKey: () => string | undefined;
  baseURL: string | undefined;
  model: string;
  timeoutMs: number;
}

type Sdk = typeof import('@anthropic-ai/sdk');

let sdk: Promise<Sdk> | undefined;
/**
 * Loaded on first use and kept out of dist/worker.js (it is 1.4 MB, twice the rest of the worker, and
 * compiling it would slow every cold start): from dist/anthropic-sdk.js when the build makes that
 * bundle (entry worker/compression/sdkEntry.ts), else from node_modules.
 */
function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.resolve().then(() => {
    const load = createRequire(__filename);
    const bundled = path.join(path.dirname(__filename), 'anthropic-sdk.js');
    const id: string = fs.existsSync(bundled) ? bundled : ['@anthropic-ai', 'sdk'].join('/');
    return load(id) as Sdk;
  });
  return sdk;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const s = Number(raw);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

/** Maps anything the SDK throws onto retry / pause / fail. */
export function classifyError(e: unknown, S: Sdk, timeoutMs: number): ProviderError {
  if (e instanceof S.APIConnectionTimeoutError) return new ProviderError(`timeout: no reply within ${timeoutMs} ms`, 'retry');
  if (e instanceof S.APIConnectionError) return new ProviderError(`network: ${e.message}`, 'retry');
  if (e instanceof S.APIError) {
    const status = e.status ?? 0;
    const msg = `${status} ${e.type ?? ''} ${e.apiMessage ?? e.message}`.replace(/\s+/g, ' ').trim();
    const quotaWords = /credit balance|billing|quota|insufficient|spend limit/i.test(e.apiMessage ?? e.message);
    if (status === 401 || status === 403) return new ProviderError(msg, 'pause', { pause: 'auth', status });
    if (status === 402 || e.type === 'billing_error' || (status === 400 && quotaWords)) return new ProviderError(msg, 'pause', { pause: 'quota', status });
    if (status === 404) return new ProviderError(msg, 'pause', { pause: 'config', status });
    if (status === 429 || status === 408 || status === 409 || status >= 500) return new ProviderError(msg, 'retry', { status, retryAfterMs: retryAfterMs(e.headers) });
    return new ProviderError(msg, 'fail', { status });
  }
  const m = e instanceof Error ? e.message : String(e);
  return new ProviderError(m, 'retry');
}

export class AnthropicBackend implements ModelBackend {
  readonly name = 'anthropic';
  private client: { key: string; c: Anthropic } | undefined;

  constructor(private readonly opts: AnthropicOptions) {}

  get model(): string {
    return this.opts.model;
  }

  unavailable(): Unavailable | undefined {
    return this.opts.apiKey() ? undefined : { reason: 'no_key', message: 'no Anthropic API key (set ANTHROPIC_API_KEY or pass one from the extension)' };
  }

  private async clientFor(key: string): Promise<Anthropic> {
    if (this.client?.key === key) return this.client.c;
    const S = await loadSdk();
    const c = new S.Anthropic({ apiKey: key, baseURL: this.opts.baseURL || undefined, maxRetries: 0, timeout: this.opts.timeoutMs, logLevel: 'off' });
    this.client = { key, c };
    return c;
  }

  async complete(req: ModelRequest): Promise<ModelReply> {
    const key = this.opts.apiKey();
    if (!key) throw new ProviderError('no Anthropic API key', 'pause', { pause: 'auth' });
    let S: Sdk;
    try {
      S = await loadSdk();
    } catch (e) {
      sdk = undefined; // try again after a resume
      throw new ProviderError(`the Anthropic SDK could not be loaded (dist/anthropic-sdk.js missing from the build?): ${(e as Error).message}`, 'pause', { pause: 'config' });
    }
    const client = await this.clientFor(key);
    let msg: Anthropic.Message;
    try {
      msg = await client.messages.create(
        { model: this.opts.model, max_tokens: req.maxOutputTokens, system: req.system, messages: [{ role: 'user', content: req.prompt }] },
        { timeout: this.opts.timeoutMs, maxRetries: 0 },
      );
    } catch (e) {
      throw classifyError(e, S, this.opts.timeoutMs);
    }
    const text = msg.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    // A refusal or an auth/quota notice can come back as a 200 with prose: the caller classifies it.
    return { text, inputTokens: msg.usage?.input_tokens ?? 0, outputTokens: msg.usage?.output_tokens ?? 0, model: msg.model || this.opts.model };
  }
}
