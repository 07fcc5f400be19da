// Main-side handle on the local model thread. The thread (about 300 MB with the model) starts
// on first use and is terminated after idleMs without use; a crash fails the calls in flight
// and the next call starts a fresh thread.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../../common/node/log';
import { LOCAL_MODEL_DIMS, LOCAL_MODEL_NAME, type EmbedderThreadData, type FromThread, type ToThread } from './protocol';
import type { Embedder } from './types';

export interface LocalEmbedderOptions {
  /** dist/embedder.js, or worker/search/embedderThread.ts when running under tsx. */
  threadScript: string;
  /** Terminate the thread after this long without a call. Default 5 minutes. */
  idleMs?: number;
  /** Texts per message to the thread. Default 32. */
  batchSize?: number;
  /** Longer texts are cut: cost grows with length and the encoder averages meaning anyway. Default 2000. */
  maxChars?: number;
  /** A call not answered this long after the model is ready is treated as a hung thread. Default 2 minutes. */
  callTimeoutMs?: number;
  /** Thread start plus model load; a slow, loaded machine can take seconds. Default 2 minutes. */
  loadTimeoutMs?: number;
  /** Overrides where the thread looks for its wasm and model files. */
  threadData?: EmbedderThreadData;
  log?: Logger;
}

export interface LocalEmbedderStats {
  running: boolean;
  /** Threads started so far. */
  starts: number;
  lastLoadMs?: number;
  backend?: string;
}

export interface LocalEmbedder extends Embedder {
  stats(): LocalEmbedderStats;
}

interface Pending {
  count: number;
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
  /** Armed once the thread is ready, so model load time never counts against a call. */
  timer?: NodeJS.Timeout;
}

export function createLocalEmbedder(opts: LocalEmbedderOptions): LocalEmbedder {
  const idleMs = opts.idleMs ?? 5 * 60_000;
  const batchSize = Math.max(1, opts.batchSize ?? 32);
  const maxChars = opts.maxChars ?? 2000;
  const callTimeoutMs = opts.callTimeoutMs ?? 120_000;
  const loadTimeoutMs = opts.loadTimeoutMs ?? 120_000;
  const pending = new Map<number, Pending>();
  const stats: LocalEmbedderStats = { running: false, starts: 0 };
  let worker: Worker | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let loadTimer: NodeJS.Timeout | undefined;
  let ready = false;
  let nextId = 1;
  let closed = false;

  const start = (): Worker => {
    const w = spawn(opts.threadScript, opts.threadData ?? {});
    stats.starts++;
    stats.running = true;
    ready = false;
    loadTimer = setTimeout(() => crash(w, `model did not load within ${loadTimeoutMs} ms`), loadTimeoutMs);
    w.on('message', (msg: FromThread) => onMessage(w, msg));
    w.on('error', (err) => crash(w, err.message));
    w.on('exit', (code) => crash(w, `exited with code ${code}`));
    opts.log?.info('embedder thread started', { script: opts.threadScript });
    return w;
  };

  const onMessage = (w: Worker, msg: FromThread) => {
    if (w !== worker) return;
    if (msg.type === 'ready') {
      ready = true;
      clearTimeout(loadTimer);
      for (const p of pending.values()) p.timer ??= arm(w);
      stats.lastLoadMs = msg.loadMs;
      stats.backend = msg.backend;
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

  /** Drops the thread (if it is still the current one) and fails everything sent to it. */
  const crash = (w: Worker, why: string) => {
    if (w !== worker) return;
    stop();
    opts.log?.warn('embedder thread crashed', { why });
    failAll(new Error(`local embedder thread crashed: ${why}`));
  };

  const stop = () => {
    const w = worker;
    worker = undefined;
    stats.running = false;
    ready = false;
    clearTimeout(idleTimer);
    clearTimeout(loadTimer);
    // terminate() makes 'exit' fire; `w !== worker` makes crash() ignore it.
    return w ? w.terminate().then(() => undefined) : Promise.resolve();
  };

  const failAll = (err: Error) => {
    for (const [id, p] of [...pending]) {
      settle(id);
      p.reject(err);
    }
  };

  const settle = (id: number) => {
    const p = pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    pending.delete(id);
    if (pending.size === 0 && worker) {
      // An idle thread must not keep the process alive, nor stay loaded for long.
      worker.unref();
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (pending.size > 0) return;
        opts.log?.info('embedder thread unloaded after idle', { idleMs });
        void stop();
      }, idleMs);
      idleTimer.unref();
    }
  };

  const arm = (w: Worker) => setTimeout(() => crash(w, `no answer within ${callTimeoutMs} ms`), callTimeoutMs);

  const request = (texts: string[]): Promise<Float32Array[]> =>
    new Promise((resolve, reject) => {
      worker ??= start();
      const w = worker;
      clearTimeout(idleTimer);
      w.ref();
      const id = nextId++;
      pending.set(id, { count: texts.length, resolve, reject, timer: ready ? arm(w) : undefined });
      w.postMessage({ type: 'embed', id, texts } satisfies ToThread);
    });

  return {
    name: LOCAL_MODEL_NAME,
    dims: LOCAL_MODEL_DIMS,
    async embed(texts) {
      if (closed) throw new Error('local embedder is closed');
      if (texts.length === 0) return [];
      const cut = texts.map((t) => (t.length > maxChars ? t.slice(0, maxChars) : t));
      const batches: Promise<Float32Array[]>[] = [];
      for (let i = 0; i < cut.length; i += batchSize) batches.push(request(cut.slice(i, i + batchSize)));
      return (await Promise.all(batches)).flat();
    },
    async close() {
      closed = true;
      failAll(new Error('local embedder is closed'));
      await stop();
    },
    stats: () => ({ ...stats }),
  };
}

/** Under tsx a worker does not get the .ts loader from execArgv, so a tiny CJS bootstrap registers it. */
function spawn(script: string, workerData: EmbedderThreadData): Worker {
  if (!script.endsWith('.ts')) return new Worker(script, { workerData });
  const tsxApi = createRequire(script).resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(tsxApi)}).register(); require(${JSON.stringify(script)});`;
  return new Worker(code, { eval: true, workerData });
}

/** Copies, so one kept vector does not pin its whole batch's buffer. */
function split(data: Float32Array, dims: number, count: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < count; i++) out.push(data.slice(i * dims, (i + 1) * dims));
  return out;
}
