// Messages between the main side (embedder.ts) and the model thread (embedderThread.ts).

/** Passed as JSON in argv[2]; every field is optional, the host finds the shipped files itself. */
export interface EmbedderThreadData {
  /** Folder holding model.json, its weight shards and vocab.json. */
  modelDir?: string;
  /** Texts are cut to this many tokens before their run; 0: no cut. Default MAX_TOKENS. */
  maxTokens?: number;
  /** How long background runs hold back after a query is answered; 0: not at all. Default 500. */
  queryHoldMs?: number;
}

/** `background`: the indexer's; a query's message goes first, waiting at most for the run under way. */
export type ToThread = { type: 'embed'; id: number; texts: string[]; background?: boolean };

export type FromThread =
  | { type: 'ready'; backend: string; loadMs: number; simd?: boolean }
  /** `data` is all vectors back to back (texts.length * dims). */
  | { type: 'result'; id: number; dims: number; data: Float32Array }
  | { type: 'error'; id: number; message: string }
  /** The model could not load: the thread is useless and will be terminated. */
  | { type: 'fatal'; message: string };

export const LOCAL_MODEL_NAME = 'local:universal-sentence-encoder-lite';
export const LOCAL_MODEL_DIMS = 512;

/**
 * Rows x longest text of one graph run. The model's cost is per token (about 0.3-0.45 ms of CPU
 * each on a small shared machine, bench/embed.mjs), plus a fixed part per run that runs of
 * similar length share; 128 bounds a query's wait behind an indexing run to about 40-60 ms of
 * CPU and keeps the model's working memory small.
 */
export const RUN_TOKENS = 128;
/**
 * The bundled encoder reads only its input's first 128 tokens (a text's vector equals its first
 * 128 tokens' to 1e-5, bench/embed.mjs): the cut changes no vector, and a long text is planned
 * into a run at the size the graph really computes.
 */
export const MAX_TOKENS = 128;
