// Worker-thread entry (bundled to dist/embedder.js): loads the sentence encoder once, then
// answers embed requests one at a time. embed/embedder.ts owns its lifetime.
import { parentPort, workerData } from 'node:worker_threads';
import { runThisThreadInBackground } from '../threadPriority';
import { locateEmbedderFiles } from './embed/assets';
import type { EmbedderThreadData, FromThread, ToThread } from './embed/protocol';
import { loadUseModel, type UseModel } from './embed/useModel';

const port = parentPort;
if (!port) throw new Error('embedderThread must run in a worker thread');
runThisThreadInBackground();

const post = (msg: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const started = performance.now();
const data = (workerData ?? {}) as EmbedderThreadData;
const model: Promise<UseModel> = Promise.resolve().then(() => loadUseModel(locateEmbedderFiles(__dirname, data)));
model.then(
  (m) => post({ type: 'ready', backend: m.backend, loadMs: Math.round(performance.now() - started) }),
  (e: unknown) => post({ type: 'fatal', message: errorText(e) }),
);

// Requests run strictly in order: tfjs on one wasm thread gains nothing from overlap.
let chain: Promise<void> = Promise.resolve();
port.on('message', (msg: ToThread) => {
  if (msg.type !== 'embed') return;
  chain = chain.then(async () => {
    try {
      const m = await model;
      const raw = await m.embed(msg.texts);
      // Transfer only a buffer this array owns whole; a view into a larger one is copied.
      const out = raw.byteOffset === 0 && raw.buffer.byteLength === raw.byteLength ? raw : raw.slice();
      post({ type: 'result', id: msg.id, dims: m.dims, data: out }, [out.buffer as ArrayBuffer]);
    } catch (e) {
      post({ type: 'error', id: msg.id, message: errorText(e) });
    }
  });
});
