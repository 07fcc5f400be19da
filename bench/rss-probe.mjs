// bench/rss-probe: what holds the worker's memory, process by process. Starts the built worker on
// a temp data dir with local embeddings, imports N observations, waits until the embedder has
// indexed them, runs keyword and hybrid searches, then prints each process of the tree (the worker,
// its model and warm-up children) split by /proc/<pid>/smaps: WebAssembly memories (sql.js's heap,
// tfjs's wasm heap: anonymous mappings of 1 GiB or more, V8 reserves them with guard regions),
// other anonymous memory (the V8 heap, Node's buffers, malloc), and file-backed pages (the node
// binary, mapped files); plus the worker's own V8 heap from /api/stats. It prints the same again
// once the embedder's idle time has passed.
//
//   npm run build && node bench/rss-probe.mjs [--n 500] [--idle-ms 5000] [--worker dist/worker.js]
//   options: --embeddings off   no model (keyword searches only)
//            --restart          stop after the import and search a fresh start (as bench/scale)
//            --data-dir DIR     no import: a copy of DIR (a data dir bench/scale kept with
//                               BENCH_KEEP=1); prints the tree every 2 s for --settle-s seconds
//                               (default 30) after the start, then searches its words;
//                               --search '{"keywordWarmTerms":0}' lays search settings over its own;
//                               prints the searches' p50/p95 and the worker's main-thread CPU a
//                               search (schedstat); --env K=V,K2=V2 adds to the worker's environment;
//                               --node-args '--flag --flag2' starts the worker with Node flags;
//                               --no-stats never asks GET /api/stats (at 100k each call reads every
//                               row: seconds of CPU and tens of MB of RSS), so no V8 heap, page
//                               cache or reads figures
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sleep, treePids } from './compare/common.mjs';
import { fixtureWords, ROOT, startWorker, syntheticExport, tempDir } from './lib.mjs';

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : def;
};
const N = Number(opt('--n', 500));
const IDLE_MS = Number(opt('--idle-ms', 5000));
const EMBED = opt('--embeddings', 'local');
const RESTART = argv.includes('--restart');
const FROM = opt('--data-dir', '');
const SETTLE_S = Number(opt('--settle-s', 30));
const script = path.resolve(opt('--worker', path.join(ROOT, 'dist', 'worker.js')));
const STATS = !argv.includes('--no-stats');
const NODE_ARGS = opt('--node-args', '').split(' ').filter(Boolean);

/** One process's resident memory by kind (MB), from /proc/<pid>/smaps. */
function breakdown(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  // A WebAssembly memory is an anonymous read-write mapping followed by the rest of its
  // reservation: an inaccessible anonymous mapping of a GiB or more, starting where it ends.
  const maps = [];
  let cur;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+)\s+(\S+)\s+\S+\s+\S+\s+\d+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[4].trim();
      cur = { start: head[1], end: head[2], perms: head[3], anon: !name || name.startsWith('['), heap: name === '[heap]', size: 0, rss: 0 };
      maps.push(cur);
      continue;
    }
    const m = /^(Size|Rss):\s+(\d+) kB/.exec(line);
    if (m && cur) cur[m[1] === 'Size' ? 'size' : 'rss'] = Number(m[2]) / 1000;
  }
  const r = { wasm: 0, anon: 0, heap: 0, file: 0, total: 0 };
  maps.forEach((x, i) => {
    const next = maps[i + 1];
    const wasm = x.anon && x.perms.startsWith('rw') && next?.anon && next.perms.startsWith('---') && next.start === x.end && next.size >= 1000;
    r[wasm ? 'wasm' : x.anon ? 'anon' : 'file'] += x.rss;
    if (x.heap) r.heap += x.rss;
    r.total += x.rss;
  });
  const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).map((a) => path.basename(a)).slice(0, 2).join(' ');
  return { pid, cmd, ...r };
}

/** CPU time of a process's main thread so far (Linux schedstat, ns). */
function mainThreadCpuNs(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

async function report(w, label) {
  const stats = STATS ? (await w.req('GET', '/api/stats')).body : undefined;
  const rows = treePids(w.proc.pid).map(breakdown).filter(Boolean);
  console.log(`\n${label}: process tree ${rows.reduce((a, r) => a + r.total, 0).toFixed(0)} MB in ${rows.length} process(es)${stats ? `; worker V8 heap used ${(stats.worker.heapUsedBytes / 1e6).toFixed(0)} MB` : ''}`);
  console.log('| process | RSS (MB) | wasm memories | other anonymous | of which malloc [heap] | file-backed |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${r.cmd} (${r.pid}) | ${r.total.toFixed(0)} | ${r.wasm.toFixed(0)} | ${r.anon.toFixed(0)} | ${r.heap.toFixed(0)} | ${r.file.toFixed(0)} |`);
}

const dataDir = tempDir('cmem-rss-probe-');
if (FROM) {
  fs.cpSync(FROM, dataDir, { recursive: true });
  fs.rmSync(path.join(dataDir, 'worker.pid'), { force: true });
  fs.rmSync(path.join(dataDir, 'auth.token'), { force: true });
  // --search '{...}': search settings laid over the copy's (e.g. {"keywordWarmTerms":0}).
  const settingsFile = path.join(dataDir, 'settings.json');
  const settings = fs.existsSync(settingsFile) ? JSON.parse(fs.readFileSync(settingsFile, 'utf8')) : {};
  fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, search: { ...settings.search, ...JSON.parse(opt('--search', '{}')) } }));
  const extraEnv = Object.fromEntries(opt('--env', '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const w = await startWorker({ dataDir, script, args: NODE_ARGS, env: { ANTHROPIC_API_KEY: '', ...extraEnv } });
  try {
    const stats = async () => (STATS ? (await w.req('GET', '/api/stats')).body : undefined);
    const line = async () => {
      const rows = treePids(w.proc.pid).map(breakdown).filter(Boolean);
      const st = await stats();
      const sum = (k) => rows.reduce((a, r) => a + r[k], 0).toFixed(0);
      const more = st ? `; V8 heap used ${(st.worker.heapUsedBytes / 1e6).toFixed(0)}; page cache chunks ${((st.storage.pageCache?.cachedBytes ?? NaN) / 1e6).toFixed(0)} (dirty ${((st.storage.pageCache?.dirtyBytes ?? NaN) / 1e6).toFixed(0)})` : '';
      return `tree ${sum('total')} MB in ${rows.length} (wasm ${sum('wasm')}, anon ${sum('anon')}, file ${sum('file')}); worker ${rows[0].total.toFixed(0)} (wasm ${rows[0].wasm.toFixed(0)}, anon ${rows[0].anon.toFixed(0)} of which [heap] ${rows[0].heap.toFixed(0)})${more}`;
    };
    for (let t = 0; t <= SETTLE_S; t += 2) {
      console.log(`t=${t}s ${await line()}`);
      await sleep(2000);
    }
    const words = fixtureWords({ withFacts: true }).slice(0, 400);
    const ms = [];
    const reads0 = (await stats())?.storage.pageCache?.reads ?? NaN;
    const cpu0 = mainThreadCpuNs(w.proc.pid);
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await w.req('GET', `/api/search?${new URLSearchParams({ query: `${words[(i * 7) % words.length]} ${words[(i * 13 + 5) % words.length]}`, mode: 'keyword', kind: 'observation', limit: '20' })}`);
      ms.push(performance.now() - t);
    }
    const cpuMs = (mainThreadCpuNs(w.proc.pid) - cpu0) / 1e6 / 300;
    const reads = ((await stats())?.storage.pageCache?.reads ?? NaN) - reads0;
    ms.sort((a, b) => a - b);
    console.log(`300 keyword searches: p50 ${ms[150].toFixed(1)} ms, p95 ${ms[285].toFixed(1)} ms, worker main-thread CPU ${cpuMs.toFixed(2)} ms a search, reads from disk ${(reads / 300).toFixed(1)} a search (a chunk, or a sub-block of a packed one) (load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
    console.log(`after 300 keyword searches ${await line()}`);
    await report(w, 'after 300 keyword searches');
  } finally {
    await w.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}
fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: EMBED, embedderIdleMs: IDLE_MS } }));
let w = await startWorker({ dataDir, script, env: { ANTHROPIC_API_KEY: '' } });
try {
  const doc = syntheticExport(N);
  const ti = performance.now();
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treePids(w.proc.pid).map(breakdown).filter(Boolean).reduce((a, r) => a + r.total, 0))), 500);
  for (let i = 0; i < doc.sessions.length; i += 100) {
    const imp = await w.req('POST', '/api/import', { ...doc, sessions: doc.sessions.slice(i, i + 100) });
    if (imp.status !== 200) throw new Error(`import: ${imp.status} ${JSON.stringify(imp.body).slice(0, 200)}`);
  }
  clearInterval(sampler);
  console.log(`${N} observations imported in ${((performance.now() - ti) / 1000).toFixed(1)} s, process tree peak ${peak.toFixed(0)} MB`);
  if (RESTART) {
    await w.stop();
    w = await startWorker({ dataDir, script, env: { ANTHROPIC_API_KEY: '' } });
  }
  const t0 = performance.now();
  for (;;) {
    const st = (await w.req('GET', '/api/search/status')).body;
    if (st.pending === 0 && st.embeddings?.state !== 'indexing') break;
    if (performance.now() - t0 > 600_000) throw new Error(`not indexed after 600 s: ${JSON.stringify(st)}`);
    await sleep(250);
  }
  if (EMBED !== 'off') console.log(`indexed by the embedder in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const words = ['cache', 'parser token', 'session index', 'vector queue', 'journal snapshot', 'hook panel', 'privacy tag'];
  for (let i = 0; i < 300; i++) await w.req('GET', `/api/search?${new URLSearchParams({ query: words[i % words.length], mode: 'keyword', kind: 'observation', limit: '5' })}`);
  for (let i = 0; i < (EMBED === 'off' ? 0 : 20); i++) await w.req('GET', `/api/search?${new URLSearchParams({ query: `${words[i % words.length]} ${i}`, mode: 'hybrid', limit: '5' })}`);
  await report(w, `after 300 keyword${EMBED === 'off' ? '' : ' and 20 hybrid'} searches`);
  await sleep(IDLE_MS + 5000);
  await report(w, `${(IDLE_MS + 5000) / 1000} s later (embedderIdleMs ${IDLE_MS})`);
} finally {
  await w.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
