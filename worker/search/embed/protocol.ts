// Messages between the main side (embedder.ts) and the model thread (embedderThread.ts).

/** Passed as `workerData`; every field is optional, the thread finds the shipped files itself. */
export interface EmbedderThreadData {
  /** Folder holding tfjs-backend-wasm*.wasm. */
  wasmDir?: string;
  /** Folder holding model.json, its weight shards and vocab.json. */
  modelDir?: string;
}

export type ToThread = { type: 'embed'; id: number; texts: string[] };

export type FromThread =
  | { type: 'ready'; backend: string; loadMs: number }
  /** `data` is all vectors back to back (texts.length * dims), transferred, not copied. */
  | { type: 'result'; id: number; dims: number; data: Float32Array }
  | { type: 'error'; id: number; message: string }
  /** The model could not load: the thread is useless and will be terminated. */
  | { type: 'fatal'; message: string };

export const LOCAL_MODEL_NAME = 'local:universal-sentence-encoder-lite';
export const LOCAL_MODEL_DIMS = 512;
