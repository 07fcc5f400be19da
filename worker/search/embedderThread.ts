// The model host's entry (bundled to dist/embedder.js), a child process of the worker (data as
// JSON in argv[2]; embed/embedder.ts owns its lifetime): loads the sentence encoder once, then
// answers embed messages, each planned into graph runs (embed/runs.ts) run one at a time, a
// query's before the indexer's (background) ones.
import { runAllThreadsInBackground } from '../threadPriority';
import { locateEmbedderFiles } from './embed/assets';
import { MAX_TOKENS, RUN_TOKENS, type EmbedderThreadData, type FromThread, type ToThread } from './embed/protocol';
import { capTokens, nextJob, planRuns } from './embed/runs';
import { loadUseModel, type UseModel } from './embed/useModel';

const send = process.send?.bind(process);
if (!send) throw new Error('embedder.js runs as a child process of the worker');
// The worker going away (even killed) closes the channel: nobody is left to answer.
process.on('disconnect', () => process.exit(0));
runAllThreadsInBackground(); // V8's helper threads too: they compile the model's WebAssembly
const data = JSON.parse(process.argv[2] ?? '{}') as EmbedderThreadData;
const post = (msg: FromThread) => send(msg);
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));
const maxTokens = data.maxTokens ?? MAX_TOKENS;

const started = performance.now();
const model: Promise<UseModel> = Promise.resolve().then(() => loadUseModel(locateEmbedderFiles(__dirname, data)));
model.then(
  (m) => post({ type: 'ready', backend: m.backend, simd: m.simd, loadMs: Math.round(performance.now() - started) }),
  (e: unknown) => post({ type: 'fatal', message: errorText(e) }),
);

/** One message: its texts' tokens, its runs, the vectors so far. */
interface Job {
  msg: ToThread;
  encodings?: number[][];
  runs?: number[][];
  /** Runs not started yet (indexes into runs). */
  todo?: number[];
  finished: number;
  out?: Float32Array;
  dims: number;
}

const jobs: Job[] = [];
let pumping = false;

/** While queries come (the last one within this long), this thread's background runs are one text each. */
const QUERIES_ACTIVE_MS = 10_000;
let lastQueryAt = -Infinity;
/** Background runs wait this long after a query is answered (embed/runs.ts nextJob): the next query finds the model free. */
const QUERY_HOLD_MS = data.queryHoldMs ?? 500;
/** Held this long in a row, the backlog gets one run anyway. */
const MAX_HOLD_MS = 10_000;
let lastAnsweredAt = -Infinity;
/** When the backlog was first held back since its last run (undefined: not held). */
let heldSince: number | undefined;
/** Ends a hold early: a message came. */
let wakeHold: (() => void) | undefined;

process.on('message', (msg: ToThread) => {
  if (msg.type !== 'embed') return;
  if (!msg.background) lastQueryAt = performance.now();
  jobs.push({ msg, finished: 0, dims: 0 });
  wakeHold?.();
  void pump();
});

function prepare(job: Job, m: UseModel): void {
  job.encodings = job.msg.texts.map((t) => capTokens(m.tokenize(t), maxTokens));
  job.runs = planRuns(job.encodings.map((e) => e.length), RUN_TOKENS);
  job.todo = job.runs.map((_, i) => i);
  if (job.runs.length === 0) finish(job);
}

/** Puts one run's vectors in their rows; the last one answers the message. */
function place(job: Job, run: number[], raw: Float32Array): void {
  if (!jobs.includes(job)) return; // failed meanwhile
  const dims = raw.length / run.length;
  job.dims = dims;
  job.out ??= new Float32Array(job.msg.texts.length * dims);
  const out = job.out;
  run.forEach((i, k) => out.set(raw.subarray(k * dims, (k + 1) * dims), i * dims));
  if (++job.finished === job.runs?.length) finish(job);
}

function finish(job: Job): void {
  jobs.splice(jobs.indexOf(job), 1);
  if (!job.msg.background) lastAnsweredAt = performance.now();
  post({ type: 'result', id: job.msg.id, dims: job.dims, data: job.out ?? new Float32Array(0) });
}

function fail(job: Job, e: unknown): void {
  if (!jobs.includes(job)) return;
  jobs.splice(jobs.indexOf(job), 1);
  post({ type: 'error', id: job.msg.id, message: errorText(e) });
}

/** Runs one graph run at a time on this thread (tfjs on one wasm thread gains nothing from overlap), queries first. */
async function pump(): Promise<void> {
  if (pumping) return;
  pumping = true;
  try {
    let m: UseModel;
    try {
      m = await model;
    } catch (e) {
      for (const job of [...jobs]) fail(job, e);
      return;
    }
    for (;;) {
      // A graph run resolves without a turn of the event loop: let a query's message in first.
      await new Promise((resolve) => setImmediate(resolve));
      for (const job of [...jobs]) if (!job.todo) prepare(job, m);
      const next = nextJob(
        jobs.map((j) => ({ job: j, background: !!j.msg.background, left: j.todo?.length ?? 0 })),
        performance.now(),
        lastAnsweredAt,
        QUERY_HOLD_MS,
        heldSince,
        MAX_HOLD_MS,
      );
      if (!next) return;
      if ('waitMs' in next) {
        heldSince ??= performance.now();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, next.waitMs);
          wakeHold = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeHold = undefined;
        continue;
      }
      const job = next.job.job;
      if (job.msg.background) heldSince = undefined;
      const r = job.todo?.shift() as number;
      const runs = job.runs as number[][];
      // Someone is searching: the next query waits for one text, not a run of them.
      if (job.msg.background && runs[r].length > 1 && performance.now() - lastQueryAt < QUERIES_ACTIVE_MS) {
        runs.push(runs[r].slice(1));
        job.todo?.unshift(runs.length - 1);
        runs[r] = runs[r].slice(0, 1);
      }
      const run = runs[r];
      try {
        place(job, run, await m.run(run.map((i) => (job.encodings as number[][])[i])));
      } catch (e) {
        fail(job, e);
      }
    }
  } finally {
    pumping = false;
  }
}
