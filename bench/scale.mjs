// bench/scale: what a year of history costs our worker. The same synthetic history at
// 10,000 and 100,000 observations (5 projects, 50 observations a session), imported through
// POST /api/import into a fresh data dir, one worker at a time, then:
//   import time and peak RSS, data on disk after a graceful stop, cold start to healthy (median
//   of 3), RSS at health / after 15 s of settling / after 300 keyword searches, keyword search
//   p50/p95 (filtered by project and unfiltered; observations, as claude-mem is asked), how many
//   results a search returned on average and how many answers were cut to the newest matches,
//   context inject p95, a checkpoint's bytes and time after 100 new observations; then,
//   with the local embedder on: hybrid p95 (new queries, then the same again from the query
//   embedding cache) while the backlog runs, the embedding backlog rate over a minute, and RSS
//   once the query embedder's idle time has passed.
//
//   npm run build && node bench/scale.mjs
//   BENCH_SIZES=10000 node bench/scale.mjs                 one size only
//   BENCH_BASELINE=/tmp/base/dist/worker.js node bench/scale.mjs
//       runs the same steps with that build first (e.g. main) and prints ours / baseline
//   BENCH_WORKER=/path/dist/worker.js   measure that build as "ours"
//   BENCH_EMBED_S=60   seconds the backlog rate is sampled (0 skips the embeddings-on phase)
//   BENCH_KEEP=1       keep the data dirs
//   BENCH_SLOW=10      print the 10 slowest keyword searches (client and worker ms)
//   BENCH_SEARCH='{"keywordWarmTerms":0}'   extra search settings (settings.json) for every phase
//   BENCH_STEPS=stop   only the import, the graceful stops and the cold starts (stop-time work)
//   BENCH_STEPS=import only the import and its graceful stop
//   BENCH_DISK=1       list the data dir by kind after each stop that is measured (bench/disk.mjs)
//
//
// It ends with the bars of the lean-worker goal, per size: ours, claude-mem, the ratio, the bar
// (a ratio against claude-mem or an absolute figure) and met / MISSED. A figure of a phase that ran
// but could not be measured (a side that found nothing for every search, a stop never timed) ends
// the bench with exit code 1 instead of a table without it; a failed step stops every worker it
// started (claude-mem's whole process group too) before exiting.
//
//   BENCH_THEIRS=0     skip claude-mem 13.25.3
//   BENCH_ONLY=claude-mem   measure only these sides (comma-separated: baseline, ours, claude-mem)
//
// claude-mem 13.25.3 runs the same steps where it has them, through bench/compare's harness
// (installed into .cache/claude-mem-ref, its worker on bun, Chroma off): the same history through
// its own POST /api/import (its export format, converted by bench/compare/fixture.mjs), data on
// disk after a stop, cold starts to /api/health, RSS of its process tree, the same keyword
// searches through its /api/search (observations, as bench/compare asks), its context injection.
// It has no checkpoint, no local embedder and no filter-free "rank every match" switch to compare.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { client, treeRss } from './compare/common.mjs';
import { formatDiskByKind } from './disk.mjs';
import { toClaudeMemDoc } from './compare/fixture.mjs';
import { theirs as claudeMem } from './compare/theirs.mjs';
import { fixtureWords, launchEnv, zipfPicker } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OURS = process.env.BENCH_WORKER ? path.resolve(process.env.BENCH_WORKER) : path.join(root, 'dist', 'worker.js');
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number);
const EMBED_S = Number(process.env.BENCH_EMBED_S ?? 60);
const SEARCHES = 300;
const SETTLE_MS = 15_000;
const EMBED_IDLE_MS = 10_000;
const THEIRS = process.env.BENCH_THEIRS !== '0';
const ONLY = process.env.BENCH_ONLY?.split(',');
const STOP_STEPS_ONLY = process.env.BENCH_STEPS === 'stop';
const IMPORT_ONLY = process.env.BENCH_STEPS === 'import';
const LIST_DISK = process.env.BENCH_DISK === '1';

for (const w of [OURS, BASELINE].filter(Boolean)) {
  if (!fs.existsSync(w)) {
    console.error(`${w} is missing: run \`npm run build\` first`);
    process.exit(1);
  }
}

// ---- deterministic synthetic history -----------------------------------------------------------
let seed = 20261203;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

// Words of the search fixture by frequency, then made-up identifiers: a Zipf draw over them gives
// term frequencies like real notes (a few words in a third of the rows, most in a handful).
const realWords = fixtureWords({ withFacts: true });
const syllables = ['ka', 'lo', 'mi', 'ner', 'tos', 'vak', 'pri', 'dul', 'sen', 'gor', 'fex', 'ul', 'tri', 'bon', 'zel', 'qua', 'rim', 'dex'];
const identifiers = Array.from({ length: 20_000 }, () => Array.from({ length: int(2, 4) }, () => pick(syllables)).join('') + (rand() < 0.3 ? String(int(1, 99)) : ''));
const vocab = [...realWords, ...identifiers];
const word = zipfPicker(vocab, rand);
const words = (lo, hi) => Array.from({ length: int(lo, hi) }, word).join(' ');
const TYPES = ['change', 'discovery', 'bugfix', 'feature', 'decision'];
const CONCEPTS = ['how-it-works', 'what-changed', 'problem-solution', 'gotcha', 'pattern'];
const dirs = ['src', 'src/api', 'src/db', 'src/ui', 'lib', 'test', 'scripts', 'docs'];
const files = Array.from({ length: 4000 }, () => `${pick(dirs)}/${pick(identifiers)}.ts`);
const PROJECTS = 5;
const PER_SESSION = 50;
const START = Date.UTC(2025, 11, 1);

/** Sessions [from, to) of the history, as an export document. Observation j is at START + j minutes. */
function exportDoc(from, to, tag = '') {
  const sessions = [];
  for (let s = from; s < to; s++) {
    const t0 = START + s * PER_SESSION * 60_000;
    const project = `scale-${s % PROJECTS}`;
    const observations = Array.from({ length: PER_SESSION }, (_, i) => ({
      type: pick(TYPES),
      title: words(5, 9),
      subtitle: rand() < 0.5 ? words(4, 8) : null,
      facts: Array.from({ length: int(1, 3) }, () => words(5, 10)),
      narrative: words(25, 60),
      concepts: [pick(CONCEPTS)],
      filesRead: rand() < 0.5 ? [pick(files)] : [],
      filesModified: rand() < 0.6 ? [pick(files)] : [],
      toolName: 'Edit',
      promptNumber: 1,
      contentHash: `scale${tag}-${s}-${i}`,
      source: 'local',
      inputTokens: 0,
      outputTokens: 0,
      discoveryTokens: int(300, 5000),
      createdAt: t0 + (i + 1) * 60_000,
    }));
    sessions.push({
      platform: 'claude-code',
      contentSessionId: `scale${tag}-${s}`,
      project,
      cwd: `/home/dev/${project}`,
      status: 'completed',
      promptCounter: 1,
      startedAt: t0,
      updatedAt: t0 + PER_SESSION * 60_000,
      completedAt: t0 + PER_SESSION * 60_000,
      completionReason: 'exit',
      prompts: [{ promptNumber: 1, text: `${words(6, 14)}?`, createdAt: t0 }],
      observations,
      summaries: [],
    });
  }
  return { format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date().toISOString(), project: null, sessions };
}

// ---- the worker ----------------------------------------------------------------------------------
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function rssOf(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Workers up right now: a bench that fails stops them before it exits (none left behind). */
const live = new Set();

/** Our workers' requests resent by the keep-alive client (claude-mem's are counted in its results). */
let oursResent = 0;

async function startWorker(script, dataDir) {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [script], {
    env: { ...launchEnv(script), ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), ANTHROPIC_API_KEY: '', CLAUDE_MEM_EMBEDDINGS: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const entry = { stop: async () => (proc.exitCode === null && proc.signalCode === null ? (proc.kill('SIGKILL'), await exited) : undefined) };
  live.add(entry);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`worker exited: ${err}`);
    try {
      const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(500) });
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    await sleep(5);
  }
  const healthyMs = performance.now() - t0;
  const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
  // The keep-alive client claude-mem's side is measured with (bench/compare's). fetch cost this
  // process about 0.7 ms more CPU per search (1.41 ms against 0.65-0.78, the reply's JSON parsed in
  // both), inside the timed round trip, on the two cores the worker shares.
  const c = client(port, token);
  let peak = rssOf(proc.pid);
  let peakTree = peak;
  let ticks = 0;
  // The whole tree (the worker's model and warm-up processes too) less often: it reads all of /proc.
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(proc.pid) || 0);
    if (ticks++ % 5 === 0) peakTree = Math.max(peakTree, peak, treeRss(proc.pid).bytes || 0);
  }, 100);
  return {
    healthyMs,
    rss: () => rssOf(proc.pid),
    treeRss: () => treeRss(proc.pid).bytes,
    peak: () => peak,
    peakTree: () => peakTree,
    async req(method, p, body, timeoutMs = 600_000) {
      const cpu0 = mainThreadCpuNs(proc.pid);
      const t = performance.now();
      const r = await c.req(method, p, body, timeoutMs);
      const ms = performance.now() - t;
      const cpuMs = (mainThreadCpuNs(proc.pid) - cpu0) / 1e6;
      if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
      return { ms, cpuMs, stages: r.headers['server-timing'], body: r.body };
    },
    async stop() {
      clearInterval(sampler);
      c.close();
      oursResent += c.stats.retried;
      const t = performance.now();
      proc.kill('SIGTERM');
      await exited;
      live.delete(entry);
      return performance.now() - t;
    },
  };
}

// ---- measurement -----------------------------------------------------------------------------------
/**
 * CPU time of the worker's main thread so far (Linux schedstat, ns; NaN elsewhere): what a request
 * cost it, including any timer work that ran meanwhile, whatever the load on the machine.
 */
function mainThreadCpuNs(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const median = (xs) => pct(xs, 0.5);
const MB = (b) => b / 1e6;

function dirBytes(dir) {
  let n = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    // Log files are not data (either side's); everything else in the data dir is.
    if (e.name === 'logs') continue;
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

const QUERY_OPENERS = ['how did we fix the', 'why does the', 'what is the', 'where do we', 'when did'];
function queries(count) {
  return Array.from({ length: count }, (_, i) => {
    const kind = i % 5;
    let q;
    if (kind < 3) q = `${pick(QUERY_OPENERS)} ${words(2, 4)}`;
    else if (kind === 3) q = realWords[int(0, 40)] ?? word();
    else q = pick(identifiers);
    return q;
  });
}

// Keyword searches ask for observations, as claude-mem is asked (type=observations): the same
// request on both sides. The bench prints how many results each side returned per search.
const searchPath = (q, mode, project) =>
  `/api/search?${new URLSearchParams({ query: q, mode, limit: '20', ...(mode === 'keyword' ? { kind: 'observation' } : {}), ...(project ? { project } : {}) })}`;
const isCut = (body) => JSON.stringify(body?.notices ?? body?.notice ?? '').includes('newest');

// BENCH_SEARCH='{"keywordWarmTerms":0}' adds search settings to every phase (both builds).
const EXTRA_SEARCH = JSON.parse(process.env.BENCH_SEARCH ?? '{}');
async function writeSettings(dataDir, search) {
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { ...search, ...EXTRA_SEARCH } }));
}

/** Three cold starts to healthy (the median into r), the third left up; its RSS at health and after settling. */
async function coldStarts(r, start) {
  const starts = [];
  const stops = [];
  let w;
  for (let i = 0; i < 3; i++) {
    w = await start();
    starts.push(w.healthyMs);
    // Stopped as soon as it answers: whatever a start does in the background (a checkpoint after
    // replaying the journal) is under way.
    if (i < 2) stops.push(await w.stop());
  }
  r.startMs = median(starts);
  r.stopAfterStartMs = Math.max(...stops);
  r.rssHealthMB = MB(w.rss());
  await sleep(SETTLE_MS);
  r.rssSettledMB = MB(w.rss());
  return w;
}

async function measure(label, script, n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-scale-${n}-`));
  const r = { label, n };
  const sessions = Math.ceil(n / PER_SESSION);
  await writeSettings(dir, { embeddings: 'off' });

  // 1. Import, in documents of 100 sessions (5,000 observations).
  seed = 20261203 + n;
  let w = await startWorker(script, dir);
  const t0 = performance.now();
  for (let s = 0; s < sessions; s += 100) await w.req('POST', '/api/import', exportDoc(s, Math.min(sessions, s + 100)));
  r.importS = (performance.now() - t0) / 1000;
  r.importPeakMB = MB(w.peak());
  r.peakTreeMB = MB(w.peakTree());
  r.stopMs = await w.stop();
  r.diskMB = MB(dirBytes(dir));
  if (LIST_DISK) console.log(formatDiskByKind(dir, `${label} ${n}, after the import's stop`));
  if (IMPORT_ONLY) {
    if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else r.dir = dir;
    return r;
  }

  // 2. Cold starts; the third stays up for the searches.
  w = await coldStarts(r, () => startWorker(script, dir));
  if (STOP_STEPS_ONLY) {
    r.stopSettledMs = await w.stop();
    r.diskSettledMB = MB(dirBytes(dir));
    if (LIST_DISK) console.log(formatDiskByKind(dir, `${label} ${n}, after the settled stop`));
    if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else r.dir = dir;
    return r;
  }
  const qs = queries(SEARCHES);
  const all = [];
  const filtered = [];
  const cpu = [];
  const slow = [];
  let cut = 0;
  let answered = 0;
  let returned = 0;
  for (let i = 0; i < qs.length; i++) {
    const project = i % 2 === 0 ? `scale-${i % PROJECTS}` : undefined;
    const x = await w.req('GET', searchPath(qs[i], 'keyword', project));
    (project ? filtered : all).push(x.ms);
    cpu.push(x.cpuMs);
    if (x.body?.items?.length > 0) answered++;
    returned += x.body?.items?.length ?? 0;
    if (isCut(x.body)) cut++;
    slow.push({ ms: x.ms, cpu: x.cpuMs, worker: x.body?.tookMs, stages: x.stages, q: qs[i], project, at: i });
  }
  if (process.env.BENCH_SLOW) {
    // By the worker's CPU where the machine has it (wall clock on a shared machine is mostly the load);
    // CLAUDE_MEM_SEARCH_STAGES=1 adds where each one's time went (the worker's Server-Timing).
    const byCpu = slow.every((s) => Number.isFinite(s.cpu));
    console.log(`  ${label} ${n}: slowest keyword searches by ${byCpu ? 'worker main-thread CPU' : 'client ms'} (client ms, CPU ms, worker ms, query, project, order, stages)`);
    for (const s of slow.sort((a, b) => (byCpu ? b.cpu - a.cpu : b.ms - a.ms)).slice(0, Number(process.env.BENCH_SLOW) || 10)) {
      console.log(`    ${s.ms.toFixed(1)} ${f(s.cpu, 2)} ${s.worker} ${JSON.stringify(s.q)} ${s.project ?? '-'} #${s.at}${s.stages ? `  [${s.stages}]` : ''}`);
    }
  }
  if (answered === 0) throw new Error(`none of ${SEARCHES} keyword searches found anything: the searches measure nothing`);
  r.kwP50 = pct(all, 0.5);
  r.kwP95 = pct(all, 0.95);
  r.kwFiltP50 = pct(filtered, 0.5);
  r.kwFiltP95 = pct(filtered, 0.95);
  r.kwCpuP50 = pct(cpu, 0.5);
  r.kwCpuP95 = pct(cpu, 0.95);
  r.kwCut = cut;
  r.kwAnswered = answered;
  r.kwReturned = returned / SEARCHES;
  r.rssSearchedMB = MB(w.rss());
  r.rssSearchedTreeMB = MB(w.treeRss());
  const ctx = [];
  for (let i = 0; i < 100; i++) ctx.push((await w.req('GET', `/api/context/inject?project=scale-${i % PROJECTS}`)).ms);
  r.ctxP95 = pct(ctx, 0.95);
  // A checkpoint after 100 new observations (2 sessions past the history).
  await w.req('POST', '/api/import', exportDoc(sessions, sessions + 2, 'new'));
  const snap = (await w.req('POST', '/api/admin/snapshot')).body;
  r.ckptMB = MB(snap.bytes ?? NaN);
  r.ckptBlockedMs = snap.blockedMs;
  r.ckptTotalMs = snap.totalMs;
  r.ckptVia = snap.via;
  r.peakMB = Math.max(r.importPeakMB, MB(w.peak()));
  r.peakTreeMB = Math.max(r.peakTreeMB, MB(w.peakTree()));
  r.stopSettledMs = await w.stop();
  r.diskSettledMB = MB(dirBytes(dir));
  if (LIST_DISK) console.log(formatDiskByKind(dir, `${label} ${n}, after the settled stop`));

  // 3. The local embedder on: hybrid latency, backlog rate, RSS once the query embedder is idle.
  if (EMBED_S > 0) {
    await writeSettings(dir, { embeddings: 'local', embedderIdleMs: EMBED_IDLE_MS });
    w = await startWorker(script, dir);
    const status = async () => (await w.req('GET', '/api/search/status')).body;
    // Distinct queries: the first 5 start the model process; each of the other 60 is embedded when
    // first asked (new) and answered from the query embedding cache when asked again (cached).
    const hq = [...new Set(queries(130))].slice(0, 65);
    for (const q of hq.slice(0, 5)) await w.req('GET', searchPath(q, 'hybrid'));
    const hy = [];
    for (const q of hq.slice(5)) hy.push((await w.req('GET', searchPath(q, 'hybrid'))).ms);
    const hyCached = [];
    for (const q of hq.slice(5)) hyCached.push((await w.req('GET', searchPath(q, 'hybrid'))).ms);
    r.hyP95 = pct(hy, 0.95);
    r.hyCachedP95 = pct(hyCached, 0.95);
    const s0 = await status();
    const i0 = s0.indexed.observations + s0.indexed.summaries;
    const ta = performance.now();
    await sleep(EMBED_S * 1000);
    const s1 = await status();
    const rate = (s1.indexed.observations + s1.indexed.summaries - i0) / ((performance.now() - ta) / 1000);
    r.embedRate = rate;
    r.backlogH = rate > 0 ? s1.pending / rate / 3600 : NaN;
    r.statusEstimate = s1.backlog?.etaMs !== undefined ? `${(s1.backlog.etaMs / 3600_000).toFixed(2)} h` : 'n/a';
    r.embedPeakMB = MB(w.peak());
    // The indexer's embedder stays loaded while a backlog remains; the query embedder unloads after its idle time.
    await sleep(EMBED_IDLE_MS + 5000);
    r.rssEmbedIdleMB = MB(w.rss());
    r.rssEmbedIdleTreeMB = MB(w.treeRss());
    r.peakMB = Math.max(r.peakMB, r.embedPeakMB);
    r.peakTreeMB = Math.max(r.peakTreeMB, MB(w.peakTree()));
    await w.stop();
  }
  if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else r.dir = dir;
  return r;
}

/** claude-mem 13.25.3 on the same history and queries (seeded the same way as measure()). */
async function measureTheirs(n) {
  const side = claudeMem(root);
  const problems = await side.prepare({ log: (m) => console.log(`  ${m}`) });
  if (problems.length > 0) {
    // Never a table without the side it was asked for: BENCH_THEIRS=0 leaves claude-mem out.
    console.error(`bench/scale failed: claude-mem cannot run (${problems.join('; ')}); BENCH_THEIRS=0 measures the other sides alone`);
    process.exit(1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-scale-theirs-${n}-`));
  const dataDir = path.join(dir, 'data');
  const home = path.join(dir, 'home');
  fs.mkdirSync(dataDir, { recursive: true });
  const r = { label: 'claude-mem', n };
  const sessions = Math.ceil(n / PER_SESSION);
  let peak = 0;
  let resent = 0;
  const start = async () => {
    // Its model is never called here (imports and reads only): the URL goes nowhere.
    const inst = await side.start({ dataDir, home, port: await freePort(), fakeUrl: 'http://127.0.0.1:9', logDir: dir });
    const entry = { stop: () => side.stop(inst) };
    live.add(entry);
    const rss = () => treeRss(inst.pid).bytes;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 500);
    return {
      ...inst,
      healthyMs: inst.healthMs,
      rss,
      timed: async (method, p, body) => {
        const t = performance.now();
        const res = await inst.c.req(method, p, body, 600_000);
        if (res.status >= 300) throw new Error(`claude-mem ${method} ${p}: ${res.status} ${res.text.slice(0, 300)}`);
        return performance.now() - t;
      },
      stop: async () => {
        clearInterval(sampler);
        resent += inst.c.stats.retried;
        const t = performance.now();
        await side.stop(inst);
        live.delete(entry);
        return performance.now() - t;
      },
    };
  };

  seed = 20261203 + n;
  let w = await start();
  const t0 = performance.now();
  for (let s = 0; s < sessions; s += 100) await w.timed('POST', '/api/import', toClaudeMemDoc(exportDoc(s, Math.min(sessions, s + 100)).sessions));
  r.importS = (performance.now() - t0) / 1000;
  r.importPeakMB = MB(peak);
  const stored = (await side.counts(w)).observations;
  if (stored !== sessions * PER_SESSION) throw new Error(`claude-mem stored ${stored} of ${sessions * PER_SESSION} observations`);
  r.stopMs = await w.stop();
  r.diskMB = MB(dirBytes(dataDir));
  if (LIST_DISK) console.log(formatDiskByKind(dataDir, `claude-mem ${n}, after the import's stop`));
  if (IMPORT_ONLY) {
    if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    return r;
  }
  w = await coldStarts(r, start);
  const qs = queries(SEARCHES);
  const all = [];
  const filtered = [];
  for (let i = 0; i < qs.length; i++) {
    const project = i % 2 === 0 ? `scale-${i % PROJECTS}` : undefined;
    const t = performance.now();
    const found = await side.search(w, qs[i], project, 20);
    if (found.status !== 200) throw new Error(`claude-mem search: ${found.status} ${found.raw.text.slice(0, 300)}`);
    (project ? filtered : all).push(performance.now() - t);
    if (found.titles.length > 0) r.kwAnswered = (r.kwAnswered ?? 0) + 1;
    r.kwReturned = (r.kwReturned ?? 0) + found.titles.length / SEARCHES;
  }
  if (!r.kwAnswered) throw new Error(`claude-mem's keyword search found nothing for all ${SEARCHES} queries: the searches measure nothing`);
  r.kwP50 = pct(all, 0.5);
  r.kwP95 = pct(all, 0.95);
  r.kwFiltP50 = pct(filtered, 0.5);
  r.kwFiltP95 = pct(filtered, 0.95);
  r.rssSearchedMB = MB(w.rss());
  r.rssSearchedTreeMB = r.rssSearchedMB;
  const ctx = [];
  for (let i = 0; i < 100; i++) ctx.push(await w.timed('GET', `/api/context/inject?${new URLSearchParams({ projects: `scale-${i % PROJECTS}`, platformSource: 'claude' })}`));
  r.ctxP95 = pct(ctx, 0.95);
  r.peakMB = MB(peak);
  r.peakTreeMB = r.peakMB;
  r.stopSettledMs = await w.stop();
  r.diskSettledMB = MB(dirBytes(dataDir));
  r.resent = resent;
  if (!process.env.BENCH_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else r.dir = dir;
  return r;
}

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const ROWS = [
  ['import time (s)', 'importS', 1],
  ['data on disk after a graceful stop (MB)', 'diskMB', 1],
  ['graceful stop (ms)', 'stopMs', 0],
  ['cold start to healthy, median of 3 (ms)', 'startMs', 0],
  ['graceful stop right after a start answers, worst of 2 (ms)', 'stopAfterStartMs', 0],
  [`graceful stop at the end (after ${SETTLE_MS / 1000} s of settling${STOP_STEPS_ONLY ? '' : ', the searches and a checkpoint'}) (ms)`, 'stopSettledMs', 0],
  ['data on disk after that stop (MB)', 'diskSettledMB', 1],
  ['RSS at health (MB)', 'rssHealthMB', 0],
  [`RSS after ${SETTLE_MS / 1000} s of settling (MB)`, 'rssSettledMB', 0],
  [`RSS after ${SEARCHES} keyword searches (MB)`, 'rssSearchedMB', 0],
  [`the same with its child processes (MB)`, 'rssSearchedTreeMB', 0],
  ['peak RSS, import and all phases (MB)', 'peakMB', 0],
  ['the same with its child processes (model, warm-up) (MB)', 'peakTreeMB', 0],
  ['keyword p50 / p95, unfiltered (ms)', ['kwP50', 'kwP95'], 1],
  ['keyword p50 / p95, one project (ms)', ['kwFiltP50', 'kwFiltP95'], 1],
  ['keyword: worker main-thread CPU per search p50 / p95 (ms)', ['kwCpuP50', 'kwCpuP95'], 2],
  [`keyword answers cut to the newest matches (of ${SEARCHES})`, 'kwCut', 0],
  [`keyword searches with at least one result (of ${SEARCHES})`, 'kwAnswered', 0],
  ['keyword results returned per search, mean (limit 20)', 'kwReturned', 1],
  ['context inject p95 (ms)', 'ctxP95', 1],
  ['checkpoint after 100 new observations: MB written', 'ckptMB', 1],
  ['checkpoint: event loop blocked / total (ms)', ['ckptBlockedMs', 'ckptTotalMs'], 0],
  ['hybrid p95, embeddings on, backlog running: new query / cached query embedding (ms)', ['hyP95', 'hyCachedP95'], 1],
  ['embedding backlog rate (records/s)', 'embedRate', 1],
  ['backlog left at that rate (h)', 'backlogH', 2],
  ['backlog estimate in /api/search/status', 'statusEstimate', 0],
  [`RSS, embeddings on, ${EMBED_IDLE_MS / 1000} s idle after hybrid (MB)`, 'rssEmbedIdleMB', 0],
  ['the same with its child processes (the indexing model while a backlog runs) (MB)', 'rssEmbedIdleTreeMB', 0],
];
const cell = (r, key, d) => (Array.isArray(key) ? key.map((k) => f(r[k], d)).join(' / ') : typeof r[key] === 'string' ? r[key] : f(r[key], d));

function print(results) {
  const cols = results.map((r) => `${r.label} ${r.n >= 1000 ? `${r.n / 1000}k` : r.n}`);
  // Ratios: ours against each other side measured, per size.
  const pairs = SIZES.flatMap((n) =>
    ['baseline', 'claude-mem'].filter((other) => results.some((r) => r.label === other && r.n === n)).map((other) => ({ n, other })),
  );
  const pairName = ({ n, other }) => `ours / ${other} ${n >= 1000 ? `${n / 1000}k` : n}`;
  console.log(`\n| what | ${[...cols, ...pairs.map(pairName)].join(' | ')} |`);
  console.log(`| --- |${' ---: |'.repeat(cols.length + pairs.length)}`);
  for (const [name, key, d] of ROWS) {
    const vals = results.map((r) => cell(r, key, d));
    const ratios = pairs.map(({ n, other }) => {
      const o = results.find((r) => r.label === 'ours' && r.n === n);
      const b = results.find((r) => r.label === other && r.n === n);
      const k = Array.isArray(key) ? key[key.length - 1] : key;
      return o && b && Number.isFinite(o[k]) && Number.isFinite(b[k]) && b[k] ? `${(o[k] / b[k]).toFixed(2)}x` : '';
    });
    console.log(`| ${name} | ${[...vals, ...ratios].join(' | ')} |`);
  }
  const byN = (label) => Object.fromEntries(results.filter((r) => r.label === label).map((r) => [r.n, r]));
  const o = byN('ours');
  if (o[10000] && o[100000]) {
    console.log(`\nours 100k / 10k: cold start ${(o[100000].startMs / o[10000].startMs).toFixed(2)}x (bar 1.5x), RSS after searches ${(o[100000].rssSearchedMB / o[10000].rssSearchedMB).toFixed(2)}x (bar 1.3x)`);
  }
  return bars(results);
}

// ---- the bars: every figure of the lean-worker goal, ratio against claude-mem or absolute --------
const worst = (...xs) => (xs.every(Number.isFinite) ? Math.max(...xs) : NaN);
/** [figure, value of a side, bar: { ratio } ours / claude-mem at most, or { max } / { min } absolute, phase it needs]. */
const BARS = [
  ['import time (s)', (r) => r.importS, { ratio: 1.0 }],
  ['cold start to healthy (ms)', (r) => r.startMs, { ratio: 1.0 }, 'start'],
  ['context inject p95 (ms)', (r) => r.ctxP95, { ratio: 1.0 }, 'search'],
  ['peak RSS, import and all phases, process tree (MB)', (r) => r.peakTreeMB, { ratio: 1.2 }, 'search'],
  [`RSS after ${SEARCHES} keyword searches, process tree (MB)`, (r) => r.rssSearchedTreeMB, { ratio: 1.0 }, 'search'],
  ['data on disk after a graceful stop (MB)', (r) => r.diskMB, { ratio: 1.0 }],
  ['data on disk after the last stop (MB)', (r) => r.diskSettledMB, { ratio: 1.0 }, 'start'],
  ['graceful stop, worst of after import / after a start / at the end (ms)', (r) => worst(r.stopMs, r.stopAfterStartMs, r.stopSettledMs), { max: 250 }, 'start'],
  ['graceful stop after the import (ms)', (r) => r.stopMs, { max: 250 }, 'import'],
  ['keyword p50, unfiltered (ms)', (r) => r.kwP50, { ratio: 1.5 }, 'search'],
  ['keyword p95, unfiltered (ms)', (r) => r.kwP95, { ratio: 1.0 }, 'search'],
  ['keyword p50, one project (ms)', (r) => r.kwFiltP50, { ratio: 1.5 }, 'search'],
  ['keyword p95, one project (ms)', (r) => r.kwFiltP95, { ratio: 1.0 }, 'search'],
  ['hybrid p95, new query, backlog running (ms)', (r) => r.hyP95, { max: 100 }, 'embed'],
  ['hybrid p95, cached query embedding, backlog running (ms)', (r) => r.hyCachedP95, { max: 60 }, 'embed'],
  ['embedding throughput (records/s)', (r) => r.embedRate, { min: 100 }, 'embed'],
];

/**
 * Prints each bar per size with ours, claude-mem, the ratio and met / MISSED. Returns the figures
 * that could not be measured (a phase that ran but left a figure missing): the bench then fails
 * rather than print a table without them.
 */
function bars(results) {
  const ranPhase = (phase) =>
    phase === 'import' ? IMPORT_ONLY : IMPORT_ONLY ? !phase : phase === 'search' ? !STOP_STEPS_ONLY : phase === 'embed' ? !STOP_STEPS_ONLY && EMBED_S > 0 : true;
  const missing = [];
  const lines = [];
  let met = 0;
  let missed = 0;
  for (const n of SIZES) {
    const o = results.find((r) => r.label === 'ours' && r.n === n);
    const t = results.find((r) => r.label === 'claude-mem' && r.n === n);
    if (!o) continue;
    for (const [name, get, bar, phase] of BARS) {
      if (!ranPhase(phase)) continue;
      const ov = get(o);
      const tv = t ? get(t) : NaN;
      const size = `${n >= 1000 ? `${n / 1000}k` : n}`;
      let ratio = '';
      let ok;
      let barText;
      if (bar.ratio !== undefined) {
        barText = `<= ${bar.ratio.toFixed(1)}x`;
        if (!t) continue; // claude-mem not measured in this run (BENCH_THEIRS=0 / BENCH_ONLY)
        if (!Number.isFinite(ov) || !Number.isFinite(tv) || tv <= 0) {
          missing.push(`${name} at ${size} (ours ${f(ov)}, claude-mem ${f(tv)})`);
          continue;
        }
        ratio = `${(ov / tv).toFixed(2)}x`;
        ok = ov / tv <= bar.ratio;
      } else {
        barText = bar.max !== undefined ? `<= ${bar.max}` : `>= ${bar.min}`;
        if (!Number.isFinite(ov)) {
          missing.push(`${name} at ${size} (ours ${f(ov)})`);
          continue;
        }
        if (t && Number.isFinite(tv) && tv > 0) ratio = `${(ov / tv).toFixed(2)}x`;
        ok = bar.max !== undefined ? ov <= bar.max : ov >= bar.min;
      }
      if (ok) met++;
      else missed++;
      lines.push(`| ${name} | ${size} | ${f(ov)} | ${t ? f(tv) : 'n/a'} | ${ratio} | ${barText} | ${ok ? 'met' : '**MISSED**'} |`);
    }
  }
  if (lines.length) {
    console.log(`\n## bars (ours against claude-mem ${results.some((r) => r.label === 'claude-mem') ? 'in this run' : 'not measured: ratio bars left out'})`);
    console.log('\n| figure | size | ours | claude-mem | ratio | bar | |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const l of lines) console.log(l);
    console.log(`\n${met} bars met, ${missed} missed; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} at the end`);
  }
  const resent = oursResent + results.reduce((k, r) => k + (r.resent ?? 0), 0);
  if (resent) console.log(`requests resent after the server closed a kept-alive socket: ${resent}`);
  return missing;
}

console.log(`# bench/scale: ${SIZES.join(', ')} observations; ${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}, node ${process.version}`);
const results = [];
for (const n of SIZES) {
  for (const [label, script] of [...(BASELINE ? [['baseline', BASELINE]] : []), ['ours', OURS], ...(THEIRS ? [['claude-mem', undefined]] : [])]) {
    if (ONLY && !ONLY.includes(label)) continue;
    const t = performance.now();
    let r;
    try {
      r = script ? await measure(label, script, n) : await measureTheirs(n);
    } catch (e) {
      console.error(`bench/scale failed: ${label} ${n}: ${e.stack ?? e}`);
      for (const w of live) await w.stop().catch(() => undefined);
      process.exit(1);
    }
    if (r) results.push(r);
    console.log(`  ${label} ${n}: done in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
}
const missing = print(results);
if (missing.length) {
  console.error(`bench/scale failed: ${missing.length} figure(s) of the bars could not be measured:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
