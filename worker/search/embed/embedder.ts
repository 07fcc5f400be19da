// Main-side handle on the local model's host, a child process (worker/childProcess.ts). The host
// (about 300 MB with the model) starts on first use and is ended after idleMs without use; a
// crash fails the calls in flight and the next call starts a fresh one.
import type { Logger } from '../../../common/node/log';
import { type Child, startChild } from '../../childProcess';
import { LOCAL_MODEL_NAME, type EmbedderThreadData, type FromThread, type ToThread } from './protocol';
import type { Embedder } from './types';

export interface LocalEmbedderOptions {
  /** dist/embedder.js, or worker/search/embedderThread.ts when running under tsx. */
  threadScript: string;
  /** End the host after this long without a call. Default 5 minutes. */
  idleMs?: number;
  /** Texts per message to the host. Default 32. */
  batchSize?: number;
  /** Longer texts are cut: cost grows with length and the encoder averages meaning anyway. Default 2000. */
  maxChars?: number;
  /** A call not answered this long after the model is ready is treated as a hung host. Default 2 minutes. */
  callTimeoutMs?: number;
  /** Host start plus model load; a slow, loaded machine can take seconds. Default 2 minutes. */
  loadTimeoutMs?: number;
  /** Overrides where the host looks for its wasm and model files. */
  threadData?: EmbedderThreadData;
  /** The name vectors are stored under (a model folder's). Default LOCAL_MODEL_NAME. */
  name?: string;
  log?: Logger;
}

export interface LocalEmbedderStats {
  running: boolean;
  /** Threads started so far. */
  starts: number;
  lastLoadMs?: number;
  backend?: string;
  /** Whether the model runs the wasm binary with SIMD instructions. */
  simd?: boolean;
}

export interface LocalEmbedder extends Embedder {
  stats(): LocalEmbedderStats;
  /**
   * A second handle on the same model process (one process for queries and indexing, never two of
   * 200-300 MB): it sends `batchSize` texts a message, one message at a time, marked background:
   * the host runs a query's texts before the rest of such a message, so a query waits for at most
   * one graph run; after its calls the process stays up `idleMs` (the indexer's shorter idle
   * time). Closing it closes nothing: its owner does.
   */
  serial(batchSize: number, idleMs: number): Embedder;
}

interface Pending {
  count: number;
  /** How long the host stays up after this call (its handle's idle time). */
  idleMs: number;
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
  /** Armed once the host is ready, so model load time never counts against a call. */
  timer?: NodeJS.Timeout;
}

export function createLocalEmbedder(opts: LocalEmbedderOptions): LocalEmbedder {
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const batchSize = Math.max(1, opts.batchSize ?? 32);
  const maxChars = opts.maxChars ?? 2000;
  const cut = (t: string) => (t.length > maxChars ? t.slice(0, maxChars) : t);
  const callTimeoutMs = opts.callTimeoutMs ?? 120_000;
  const loadTimeoutMs = opts.loadTimeoutMs ?? 120_000;
  const name = opts.name ?? LOCAL_MODEL_NAME;
  const pending = new Map<number, Pending>();
  const stats: LocalEmbedderStats = { running: false, starts: 0 };
  let worker: Child<ToThread> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let loadTimer: NodeJS.Timeout | undefined;
  let ready = false;
  let nextId = 1;
  let closed = false;

  const start = (): Child<ToThread> => {
    const w: Child<ToThread> = startChild<FromThread, ToThread>(opts.threadScript, opts.threadData ?? {}, {
      message: (msg) => onMessage(w, msg),
      died: (why) => crash(w, why),
    });
    stats.starts++;
    stats.running = true;
    ready = false;
    loadTimer = setTimeout(() => crash(w, `model did not load within ${loadTimeoutMs} ms`), loadTimeoutMs);
    opts.log?.info('embedder process started', { script: opts.threadScript });
    return w;
  };

  const onMessage = (w: Child<ToThread>, msg: FromThread) => {
    if (w !== worker) return;
    if (msg.type === 'ready') {
      ready = true;
      clearTimeout(loadTimer);
      for (const p of pending.values()) p.timer ??= arm(w);
      stats.lastLoadMs = msg.loadMs;
      stats.backend = msg.backend;
      stats.simd = msg.simd;
      opts.log?.info('embedder model loaded', { ms: msg.loadMs, backend: msg.backend });
    } else if (msg.type === 'fatal') {
      crash(w, `model failed to load: ${msg.message}`);
    } else {
      const p = pending.get(msg.id);
      if (!p) return;
      settle(msg.id);
      if (msg.type === 'error') p.reject(new Error(`local embedder: ${msg.message}`));
      else if (msg.data.length !== p.count * msg.dims) p.reject(new Error(`local embedder: got ${msg.data.length} values for ${p.count} texts`));
      else p.resolve(split(msg.data, msg.dims, p.count));
    }
  };

  /** Drops the host (if it is still the current one) and fails everything sent to it. */
  const crash = (w: Child<ToThread>, why: string) => {
    if (w !== worker) return;
    void stop();
    opts.log?.warn('embedder process crashed', { why });
    failAll(new Error(`local embedder process crashed: ${why}`));
  };

  const stop = () => {
    const w = worker;
    worker = undefined;
    stats.running = false;
    ready = false;
    clearTimeout(idleTimer);
    clearTimeout(loadTimer);
    return w ? w.terminate() : Promise.resolve();
  };

  const failAll = (err: Error) => {
    for (const [id, p] of [...pending]) {
      settle(id);
      p.reject(err);
    }
  };

  /** When the host may go: the latest of each call's end plus its handle's idle time. */
  let keepUntil = 0;
  const settle = (id: number) => {
    const p = pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    pending.delete(id);
    keepUntil = Math.max(keepUntil, Date.now() + p.idleMs);
    if (pending.size === 0 && worker) {
      // An idle host must not keep the worker alive, nor stay loaded for long.
      worker.unref();
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (pending.size > 0) return;
        opts.log?.info('embedder process unloaded after idle', { idleMs: keepUntil - Date.now() + idleMs });
        void stop();
      }, Math.max(0, keepUntil - Date.now()));
      idleTimer.unref();
    }
  };

  const arm = (w: Child<ToThread>) => setTimeout(() => crash(w, `no answer within ${callTimeoutMs} ms`), callTimeoutMs);

  const request = (texts: string[], keepMs = idleMs, background = false): Promise<Float32Array[]> =>
    new Promise((resolve, reject) => {
      worker ??= start();
      const w = worker;
      clearTimeout(idleTimer);
      w.ref();
      const id = nextId++;
      pending.set(id, { count: texts.length, idleMs: keepMs, resolve, reject, timer: ready ? arm(w) : undefined });
      w.send({ type: 'embed', id, texts, ...(background ? { background } : {}) } satisfies ToThread);
    });

  return {
    name,
    async embed(texts) {
      if (closed) throw new Error('local embedder is closed');
      if (texts.length === 0) return [];
      const batches: Promise<Float32Array[]>[] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(request(texts.slice(i, i + batchSize).map(cut)));
      return (await Promise.all(batches)).flat();
    },
    async close() {
      closed = true;
      failAll(new Error('local embedder is closed'));
      await stop();
    },
    stats: () => ({ ...stats }),
    serial(serialBatch, serialIdleMs) {
      const size = Math.max(1, serialBatch);
      return {
        name,
            async embed(texts) {
          if (closed) throw new Error('local embedder is closed');
          const out: Float32Array[] = [];
          for (let i = 0; i < texts.length; i += size) {
            out.push(...(await request(texts.slice(i, i + size).map(cut), serialIdleMs, true)));
          }
          return out;
        },
        close: async () => undefined,
      };
    },
  };
}

/** Copies, so one kept vector does not pin its whole batch's buffer. */
function split(data: Float32Array, dims: number, count: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) out.push(data.slice(i * dims, (i + 1) * dims));
  return out;
}
