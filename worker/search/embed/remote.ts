// Optional remote embeddings: any OpenAI-compatible `POST /v1/embeddings` (OpenAI, Ollama,
// llama.cpp server, LM Studio...). Only used when the user configures a URL.
import type { Embedder } from './types';

interface RemoteEmbedderOptions {
  /** Base URL (`http://host:port`, `.../v1`) or the full `.../embeddings` endpoint. */
  url: string;
  apiKey?: string;
  /** Sent as `model`; omitted when unset (single-model servers ignore it). */
  model?: string;
  /** Expected vector length; otherwise learned from the first answer. */
  dims?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per request. Default 30 s. */
  timeoutMs?: number;
}

interface EmbeddingsResponse {
  data?: { embedding?: unknown; index?: unknown }[];
}

export function embeddingsEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  if (/\/embeddings$/.test(base)) return base;
  if (/\/v1$/.test(base)) return `${base}/embeddings`;
  return `${base}/v1/embeddings`;
}

export function createRemoteEmbedder(opts: RemoteEmbedderOptions): Embedder {
  const endpoint = embeddingsEndpoint(opts.url);
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  let dims = opts.dims ?? 0;

  const request = async (input: string[]): Promise<Float32Array[]> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    const body = JSON.stringify(opts.model ? { model: opts.model, input } : { input });
    let res: Response;
    try {
      res = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      throw new Error(`remote embedder: ${endpoint} unreachable: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!res.ok) {
      // The body usually says why (bad model, quota); keep it short and never echo the key.
      const text = (await res.text().catch(() => '')).slice(0, 300);
      throw new Error(`remote embedder: ${endpoint} answered ${res.status}${text ? `: ${text}` : ''}`);
    }
    return parse((await res.json()) as EmbeddingsResponse, input.length);
  };

  const parse = (json: EmbeddingsResponse, count: number): Float32Array[] => {
    const rows = json.data;
    if (!Array.isArray(rows) || rows.length !== count) throw new Error(`remote embedder: expected ${count} embeddings, got ${Array.isArray(rows) ? rows.length : 'none'}`);
    const ordered = rows.every((r) => typeof r.index === 'number') ? [...rows].sort((a, b) => (a.index as number) - (b.index as number)) : rows;
    return ordered.map((r) => {
      const e = r.embedding;
      if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number')) throw new Error('remote embedder: embedding is not a list of numbers');
      if (dims === 0) dims = e.length;
      if (e.length !== dims) throw new Error(`remote embedder: got ${e.length} dimensions, expected ${dims}`);
      return Float32Array.from(e as number[]);
    });
  };

  return {
    name: `remote:${opts.model ?? 'default'}@${new URL(endpoint).host}`,
    async embed(texts) {
      const out: Float32Array[] = [];
      // Sequential: a local server is usually single-queue, and a hosted one rate-limits.
      for (let i = 0; i < texts.length; i += batchSize) out.push(...(await request(texts.slice(i, i + batchSize))));
      return out;
    },
    async close() {},
  };
}
