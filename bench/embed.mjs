// The local encoder's figures: model load, ms per text (single and batches of 32), RSS, in one
// run on this machine (the vector scan's are bench/search.mjs's and bench/vectors.mjs's).
//
//   node --import tsx bench/embed.mjs            # sources through tsx; uses dist/embedder.js when built
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalEmbedder } from '../worker/search/embed/embedder.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

const started = performance.now();
await benchEmbedder();
console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
