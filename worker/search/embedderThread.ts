// The model host's entry (bundled to dist/embedder.js), run as a child process of the worker
// (data as JSON in argv[2]) or as a worker thread (workerData): loads the sentence encoder once,
// then answers embed requests. Each message's texts are tokenized and grouped into graph runs of
// similar length (embed/runs.ts); runs go one at a time, a query's before the indexer's
// (background) ones, so a query waits for at most the run under way. embed/embedder.ts owns the
// host's lifetime (embed/host.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { runThisProcessInBackground, runThisThreadInBackground } from '../threadPriority';
import { locateEmbedderFiles } from './embed/assets';
import { MAX_TOKENS, RUN_TOKENS, type EmbedderThreadData, type FromThread, type ToThread } from './embed/protocol';
import { capTokens, planRuns } from './embed/runs';
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
const runTokens = data.runTokens ?? RUN_TOKENS;
const maxTokens = data.maxTokens ?? MAX_TOKENS;

const started = performance.now();
const model: Promise<UseModel> = Promise.resolve().then(() => loadUseModel(locateEmbedderFiles(__dirname, data), { simd: data.simd }));
model.then(
  (m) => post({ type: 'ready', backend: m.backend, simd: m.simd, loadMs: Math.round(performance.now() - started) }),
  (e: unknown) => post({ type: 'fatal', message: errorText(e) }),
);

/** One message: its texts' tokens, its runs, the vectors so far. */
interface Job {
  msg: ToThread;
  encodings?: number[][];
  runs?: number[][];
  done: number;
  out?: Float32Array;
}

const jobs: Job[] = [];
let pumping = false;

port.on('message', (msg: ToThread) => {
  if (msg.type !== 'embed') return;
  jobs.push({ msg, done: 0 });
  void pump();
});

/** Runs one graph run at a time (tfjs on one wasm thread gains nothing from overlap), queries first. */
async function pump(): Promise<void> {
  if (pumping) return;
  pumping = true;
  try {
    for (;;) {
      // A graph run resolves without a turn of the event loop: let a query's message in first.
      await new Promise((resolve) => setImmediate(resolve));
      const job = jobs.find((j) => !j.msg.background) ?? jobs[0];
      if (!job) return;
      try {
        const m = await model;
        if (!job.encodings) {
          job.encodings = job.msg.texts.map((t) => capTokens(m.tokenize(t), maxTokens));
          job.runs = planRuns(
            job.encodings.map((e) => e.length),
            runTokens,
          );
        }
        const run = (job.runs as number[][])[job.done];
        if (run) {
          const raw = await m.run(run.map((i) => (job.encodings as number[][])[i]));
          const dims = raw.length / run.length;
          job.out ??= new Float32Array(job.msg.texts.length * dims);
          run.forEach((i, k) => (job.out as Float32Array).set(raw.subarray(k * dims, (k + 1) * dims), i * dims));
          job.done++;
        }
        if (job.done >= (job.runs as number[][]).length) {
          jobs.splice(jobs.indexOf(job), 1);
          const out = job.out ?? new Float32Array(0);
          post({ type: 'result', id: job.msg.id, dims: m.dims, data: out }, [out.buffer as ArrayBuffer]);
        }
      } catch (e) {
        jobs.splice(jobs.indexOf(job), 1);
        post({ type: 'error', id: job.msg.id, message: errorText(e) });
      }
    }
  } finally {
    pumping = false;
  }
}
