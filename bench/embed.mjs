// Local semantic search figures: model load, ms per text (single and batches of 32), RSS, and
// a flat int8 / float32 scan at a few index sizes, all in one run on this machine.
//
//   node --import tsx bench/embed.mjs            # sources through tsx; uses dist/embedder.js when built
//   BENCH_SIZES=2000,10000,50000 node --import tsx bench/embed.mjs
//
// Vectors for the index part are synthetic (clustered unit vectors, 512-d): embedding 10k real
// texts would take minutes. Takes 10-40 s at the default sizes (2 cores, idle to busy).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalEmbedder } from '../worker/search/embed/embedder.ts';
import { normalize, quantizeMatrix, scanTopK } from '../worker/search/vectors/quantize.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sizes = (process.env.BENCH_SIZES ?? '2000,10000').split(',').map(Number);
const DIMS = 512;
const K = 10;
const QUERIES = 50;

const mb = (b) => `${Math.round(b / 1e6)} MB`;
const ms = (x) => `${x.toFixed(1)} ms`;
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const rss = () => process.memoryUsage().rss;
async function time(fn) {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}
function row(label, value) {
  console.log(`${label.padEnd(44)} ${value}`);
}

async function benchEmbedder() {
  const built = path.join(root, 'dist', 'embedder.js');
  const threadScript = fs.existsSync(built) ? built : path.join(root, 'worker', 'search', 'embedderThread.ts');
  console.log(`\n## embedder (${path.relative(root, threadScript)}, ${os.cpus().length} cores, node ${process.version})`);
  const rss0 = rss();
  const e = createLocalEmbedder({ threadScript, idleMs: 60_000 });
  const [first] = await time(() => e.embed(['warm up the model']));
  const st = e.stats();
  row('model load (in thread)', `${st.lastLoadMs} ms, backend ${st.backend}`);
  row('first call (spawn + load + embed)', ms(first));
  const texts = Array.from({ length: 96 }, (_, i) => `observation ${i}: changed the ${['queue', 'parser', 'cache', 'login'][i % 4]} so that retries back off after ${i} failures`);
  const singles = [];
  for (const t of texts.slice(0, 20)) singles.push((await time(() => e.embed([t])))[0]);
  row('single text, p50 / mean', `${ms(pct(singles, 0.5))} / ${ms(singles.reduce((a, b) => a + b) / singles.length)}`);
  const [batched] = await time(() => e.embed(texts));
  row('batches of 32, per text', ms(batched / texts.length));
  row('RSS before / with model loaded', `${mb(rss0)} / ${mb(rss())}`);
  await e.close();
  if (global.gc) global.gc();
  row('RSS after close', mb(rss()));
}

/** Clustered unit vectors, deterministic. */
function dataset(count, seed) {
  let a = seed >>> 0;
  const r = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const g = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const centers = Array.from({ length: 200 }, () => normalize(Float32Array.from({ length: DIMS }, g)));
  return Array.from({ length: count }, () => normalize(Float32Array.from(centers[Math.floor(r() * centers.length)], (x) => x + 0.05 * g())));
}

async function benchIndexes(n, dir) {
  console.log(`\n## ${n} items x ${DIMS}-d`);
  const vectors = dataset(n + 32, n);
  const queries = dataset(QUERIES, 7);
  const all = vectors;
  const f32 = new Float32Array(all.length * DIMS);
  all.forEach((v, i) => f32.set(v, i * DIMS));
  const [tQuant, q8] = await time(() => quantizeMatrix(f32, DIMS));
  row('int8 quantize all', ms(tQuant));
  const fq = [];
  const iq = [];
  let found = 0;
  queries.forEach((q) => {
    const [tf, exact] = timeSync(() => scanTopK(q, f32, DIMS, K));
    const [ti, approx] = timeSync(() => scanTopK(q, q8.data, DIMS, K, q8.scales));
    fq.push(tf);
    iq.push(ti);
    const want = new Set(exact.map((h) => h.index));
    found += approx.filter((h) => want.has(h.index)).length;
  });
  row('float32 scan p50 / p95', `${ms(pct(fq, 0.5))} / ${ms(pct(fq, 0.95))}`);
  row('int8 scan p50 / p95', `${ms(pct(iq, 0.5))} / ${ms(pct(iq, 0.95))}`);
  row('recall@10 int8 vs float32', (found / (QUERIES * K)).toFixed(3));
  row('memory float32 / int8 matrix', `${mb(f32.byteLength)} / ${mb(q8.data.byteLength + q8.scales.byteLength)}`);
}

function timeSync(fn) {
  const t = performance.now();
  const r = fn();
  return [performance.now() - t, r];
}

const started = performance.now();
await benchEmbedder();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-vectors-'));
try {
  for (const n of sizes) await benchIndexes(n, dir);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
