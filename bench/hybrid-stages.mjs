// bench/hybrid-stages: where a hybrid search's time goes, stage by stage, in this process (the
// search service on a real store, the real local model process), for new queries (embedded now)
// and the same queries again (the query embedding cache answers). Stages:
//   embed      the query embedding, from its start to its vector (model process, queued runs)
//   embedWait  what of it the request waited for after the keyword side was done
//   keyword    the keyword side (BM25 pool with its priors)
//   scan       the int8 scan (SemanticIndex.query)
//   hubness    the density correction (density.ts), timed again on the same input (and taken
//              out of total and mainCpu again)
//   priors     the rest of the vector side's filtering: lean rows, filters, priors
//   catchingUp the backlog notice (counts the records still waiting for a vector, cached 5 s)
//   fuse+links the prompt links and fusion (what ranked() spent outside the stages above)
//   page       hydrating and snippeting the page
//   total      Searcher.search
//   mainCpu    CPU time of this process's main thread during the search (schedstat)
//   embedHostCpu CPU time of the model process's main thread while the query embedding was under
//              way: the rest of the background run it waited for plus its own run (0 when cached)
// On a store that has every record embedded, or with --backlog F: a copy of it keeping only a
// fraction F of the vectors, so the indexer works through the rest while the queries run.
// The store is one bench/search.mjs built and kept (BENCH_DIR=/tmp/x BENCH_KEEP=1); it is not changed.
//
//   npm run build && BENCH_SIZES=10000 BENCH_DIR=/tmp/hy BENCH_KEEP=1 node --import tsx bench/search.mjs
//   node --import tsx bench/hybrid-stages.mjs --dir /tmp/hy/10000 [--backlog 0.02] [--queries 60] [--embedder /tmp/main/dist/embedder.js]
//     [--cached-rounds 5]   the repeated queries that many times (with a backlog: while batches are stored)
//     [--spaced 20]         then that many new queries, each 1 s after the last answer
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nullLogger } from '../common/node/log.ts';
import { EventBus } from '../worker/events.ts';
import { neighbourDensity } from '../worker/search/density.ts';
import { SearchService } from '../worker/search/service.ts';
import { readSearchConfig } from '../worker/search/settings.ts';
import { migrate } from '../worker/store/schema.ts';
import { Store } from '../worker/store/store.ts';
import { fixtureWords, zipfPicker } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SRC = arg('dir');
const BACKLOG = arg('backlog') === undefined ? undefined : Number(arg('backlog'));
const QUERIES = Number(arg('queries', 60));
/** New queries asked 1 s apart after the rest (a lone query: no hold after a previous answer covers it). */
const SPACED = Number(arg('spaced', 0));
/** Passes of the repeated queries: with a backlog, later ones run while indexer batches are stored. */
const CACHED_ROUNDS = Number(arg('cached-rounds', 1));
// --embedder: another build's model host (e.g. main's, copied aside) on the same store.
const script = path.resolve(arg('embedder', path.join(root, 'dist', 'embedder.js')));
if (!SRC || !fs.existsSync(path.join(SRC, 'db'))) {
  console.error('--dir: a data dir bench/search.mjs built (BENCH_DIR=... BENCH_KEEP=1)');
  process.exit(1);
}
if (!fs.existsSync(script)) {
  console.error('dist/embedder.js is missing: run `npm run build` first');
  process.exit(1);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] : NaN);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

// A copy: the indexer moves vectors into files and embeds the backlog; the source stays as built.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hybrid-stages-'));
fs.cpSync(path.join(SRC, 'db'), path.join(dir, 'db'), { recursive: true });
if (fs.existsSync(path.join(SRC, 'vector-data'))) fs.cpSync(path.join(SRC, 'vector-data'), path.join(dir, 'vector-data'), { recursive: true });

const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });
await migrate(store);
if (BACKLOG !== undefined) {
  const keep = Math.max(1, Math.round(1 / Math.max(BACKLOG, 1e-6)));
  const dropped = await store.write((tx) => tx.run('DELETE FROM vectors WHERE rowid % ? != 0', [keep]).changes);
  console.log(`backlog: dropped ${dropped} vectors, kept one in ${keep}`);
}
const cfg = readSearchConfig(dir, {});
cfg.search.embeddings = 'local';
const service = new SearchService({ config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger }, { settings: cfg, threadScript: script });
service.start();
const n = store.get('SELECT count(*) AS n FROM observations').n;
const tScan = performance.now();
await service.semantic.loadScan();
const scanLoadMs = performance.now() - tScan;
// Every record has a vector: let the indexer's first pass finish first.
if (BACKLOG === undefined) await service.indexer.drain();

// ---- timers around the stages -------------------------------------------------------------
let cur;
const wrap = (proto, name, stage) => {
  const orig = proto[name];
  proto[name] = function (...args) {
    const t = performance.now();
    const out = orig.apply(this, args);
    const done = () => {
      if (cur) cur[stage] = (cur[stage] ?? 0) + performance.now() - t;
      if (cur && stage === 'keyword') cur.keywordEnd = performance.now();
    };
    if (out && typeof out.then === 'function') return out.finally(done);
    done();
    return out;
  };
};
// The service's own classes (loaded through require, another copy than this file's imports).
const SearcherProto = Object.getPrototypeOf(service.searcher);
const SemanticProto = Object.getPrototypeOf(service.semantic);
wrap(SearcherProto, 'search', 'total');
wrap(SearcherProto, 'ranked', 'ranked');
wrap(SearcherProto, 'keywordRanked', 'keyword');
wrap(SearcherProto, 'vectorRanked', 'vector');
wrap(SearcherProto, 'filterHits', 'filter');
wrap(SearcherProto, 'rows', 'page');
wrap(SemanticProto, 'query', 'scan');
// CPU time on a thread (Linux schedstat, ns): on a loaded machine wall time swings, CPU time much less.
const threadCpuMs = (pid) => {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return NaN;
  }
};
/** The model process (this process's child). */
const hostPid = () => {
  try {
    return Number(fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).at(-1));
  } catch {
    return NaN;
  }
};
const side = service.searcher.vectors;
const embedQuery = side.embedQuery;
side.embedQuery = (text) => {
  const t = performance.now();
  const c = cur;
  const pid = hostPid();
  const cpu0 = threadCpuMs(pid);
  return embedQuery(text).then((v) => {
    c.embed = performance.now() - t;
    if (pid === hostPid()) c.embedHostCpu = threadCpuMs(pid) - cpu0;
    c.embedEnd = performance.now();
    return v;
  });
};
const catchingUp = side.catchingUp;
side.catchingUp = () => {
  const t = performance.now();
  const out = catchingUp();
  if (cur) cur.catchingUp = performance.now() - t;
  return out;
};
const filterHits = SearcherProto.filterHits;
SearcherProto.filterHits = function (hits, f, intents) {
  const s = this.settings;
  if (s.densityPenalty > 0) {
    const t = performance.now();
    neighbourDensity(hits.slice(0, s.densityPool).map((h) => h.unit), s.densityK);
    cur.hubness = performance.now() - t;
  }
  return filterHits.call(this, hits, f, intents);
};

// ---- queries ------------------------------------------------------------------------------
let seed = 20261206;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const word = zipfPicker(fixtureWords({ withFacts: true }), rand);
const openers = ['how did we fix the', 'why does the', 'what is the', 'where do we', 'when did'];
const queries = Array.from({ length: QUERIES }, (_, i) => ({
  query: `${openers[i % openers.length]} ${Array.from({ length: 2 + (i % 3) }, word).join(' ')} q${i}`,
  project: i % 2 === 0 ? `bench-${1 + (i % 8)}` : undefined,
}));
const request = (q) => ({ query: q.query, mode: 'hybrid', limit: 20, offset: 0, filters: { kinds: ['observation', 'summary', 'prompt'], ...(q.project ? { project: q.project } : {}) } });

async function pass(list) {
  const rows = [];
  for (const q of list) {
    cur = {};
    const cpu0 = threadCpuMs(process.pid);
    const res = await service.searcher.search(request(q));
    cur.mainCpu = threadCpuMs(process.pid) - cpu0;
    if (res.modeUsed !== 'hybrid') throw new Error(`a hybrid search answered as ${res.modeUsed}: ${res.notice ?? ''}`);
    // The hubness figure is a second run of the same computation: not part of what the search cost.
    cur.total -= cur.hubness ?? 0;
    cur.mainCpu -= cur.hubness ?? 0;
    cur.embedWait = Math.max(0, (cur.embedEnd ?? 0) - (cur.keywordEnd ?? 0));
    cur.priors = (cur.filter ?? 0) - (cur.hubness ?? 0);
    cur['fuse+links'] = (cur.ranked ?? 0) - (cur.keyword ?? 0) - (cur.embedWait ?? 0) - (cur.vector ?? 0) - (cur.catchingUp ?? 0);
    rows.push(cur);
    cur = undefined;
  }
  return rows;
}

const STAGES = ['total', 'mainCpu', 'embedHostCpu', 'embed', 'embedWait', 'keyword', 'scan', 'hubness', 'priors', 'catchingUp', 'fuse+links', 'page'];
function report(label, rows) {
  console.log(`\n${label} (${rows.length} queries): p50 / p95 / mean ms`);
  for (const s of STAGES) {
    const xs = rows.map((r) => r[s] ?? 0);
    console.log(`  ${s.padEnd(11)} ${f1(pct(xs, 0.5)).padStart(7)} ${f1(pct(xs, 0.95)).padStart(7)} ${f1(xs.reduce((a, b) => a + b, 0) / xs.length).padStart(7)}`);
  }
}

console.log(`# bench/hybrid-stages: ${n.toLocaleString('en')} observations, ${BACKLOG === undefined ? 'every record embedded' : `backlog running (${BACKLOG} embedded at start)`}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
// The model process starts on the first query: warm it (and the search path) first.
const warm = await pass(Array.from({ length: 5 }, (_, i) => ({ query: `warm up the search path ${i}` })));
console.log(`scan load at start ${f1(scanLoadMs)} ms; first hybrid query (starts the model process) ${f1(warm[0].total)} ms, of which the embedding ${f1(warm[0].embed)} ms`);
const scanAt = service.semantic.scanStats().items;
const fresh = await pass(queries);
const embeddedBefore = service.indexer.embedded;
const cached = [];
for (let i = 0; i < CACHED_ROUNDS; i++) cached.push(...(await pass(queries)));
report('new query (embedded now)', fresh);
report(`repeated query (cached embedding${CACHED_ROUNDS > 1 ? `, ${CACHED_ROUNDS} passes, ${service.indexer.embedded - embeddedBefore} records embedded meanwhile` : ''})`, cached);
if (SPACED > 0) {
  const lone = [];
  for (let i = 0; i < SPACED; i++) {
    await sleep(1000);
    lone.push(...(await pass([{ query: `${openers[i % openers.length]} ${word()} ${word()} lone${i}` }])));
  }
  report('new query, 1 s after the last answer', lone);
}
const st = service.status();
console.log(`\nscan items at the first measured query ${scanAt}, now ${st.scan.items}; pending ${st.pending}; indexer ${service.indexer.state}, embedded by it ${service.indexer.embedded}`);
await service.stop();
await store.close(false);
fs.rmSync(dir, { recursive: true, force: true });
