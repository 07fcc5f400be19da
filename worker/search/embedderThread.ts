// The model host's entry (bundled to dist/embedder.js), run as a child process of the worker
// (data as JSON in argv[2]) or as a worker thread (workerData): loads the sentence encoder once,
// then answers embed requests one at a time. embed/embedder.ts owns its lifetime (embed/host.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { runThisProcessInBackground, runThisThreadInBackground } from '../threadPriority';
import { locateEmbedderFiles } from './embed/assets';
import type { EmbedderThreadData, FromThread, ToThread } from './embed/protocol';
import { loadUseModel, type UseModel } from './embed/useModel';

interface Port {
  postMessage(msg: FromThread, transfer: ArrayBuffer[]): void;
  on(event: 'message', listener: (msg: ToThread) => void): void;
}

function hostPort(): { port: Port; data: EmbedderThreadData } {
  if (parentPort) {
    runThisThreadInBackground();
    return { port: parentPort, data: (workerData ?? {}) as EmbedderThreadData };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('embedder.js runs as a child process or a worker thread of the worker');
  // The worker going away (even killed) closes the channel: nobody is left to answer.
  process.on('disconnect', () => process.exit(0));
  runThisProcessInBackground();
  return {
    port: { postMessage: (msg) => send(msg), on: (event, listener) => process.on(event, listener) },
    data: JSON.parse(process.argv[2] ?? '{}') as EmbedderThreadData,
  };
}

const { port, data } = hostPort();
const post = (msg: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(msg, transfer);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

const started = performance.now();
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
      // Transfer only a buffer this array owns whole; a view into a larger one is copied (a
      // process always copies).
      const out = raw.byteOffset === 0 && raw.buffer.byteLength === raw.byteLength ? raw : raw.slice();
      post({ type: 'result', id: msg.id, dims: m.dims, data: out }, [out.buffer as ArrayBuffer]);
    } catch (e) {
      post({ type: 'error', id: msg.id, message: errorText(e) });
    }
  });
});
