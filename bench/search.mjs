// Search, hybrid and context-injection figures against the real bundled worker (dist/worker.js)
// over loopback HTTP, at 6k and 100k observations:
//
//   npm run build && node --import tsx bench/search.mjs
//   BENCH_SIZES=6000 node --import tsx bench/search.mjs      # one size only
//   BENCH_KEEP=1 ...                                          # keep the generated data dirs
//   BENCH_DIR=/tmp/bs ...                                     # build into (or reuse) /tmp/bs/<size>
//   BENCH_COLD_ONLY=1 ...                                     # cold start figures only (no searches)
//   BENCH_WORKER=/tmp/base/dist/worker.js ...                 # another build (a baseline) on the same data
//
// Stores are written straight through the Store API (one transaction per 2,000 observations),
// not through 100k HTTP posts. Text is synthetic but built from the words of the search fixture
// (test/fixtures/search/history.json) with a Zipf distribution, so term frequencies look like real
// notes: a few words in a third of all rows, most in a handful. Vectors are synthetic clustered
// unit vectors stored as the local model's: embedding 100k texts would take an hour here. Query
// embeddings are real (the worker's model thread), so hybrid figures include them: "cold" queries
// are new strings (embedded), "warm" ones repeat (the query embedding cache answers).
// Prints p50/p95 per request as the client sees it (HTTP included), and the CPU time the worker's
// main thread spent on each request (Linux schedstat): on a shared, loaded machine wall-clock
// figures swing with the load, CPU time much less. The load average is printed with each size.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nullLogger } from '../common/node/log.ts';
import { LOCAL_MODEL_NAME } from '../worker/search/embed/protocol.ts';
import { vectorModelId } from '../worker/search/embedText.ts';
import { isStopWord } from '../worker/search/ftsQuery.ts';
import { encodeVector, normalize } from '../worker/search/vectors/blob.ts';
import { VectorFiles } from '../worker/search/vectors/files.ts';
import { insertObservation } from '../worker/store/repos/observations.ts';
import { insertPrompt } from '../worker/store/repos/prompts.ts';
import { insertSummary } from '../worker/store/repos/summaries.ts';
import { migrate } from '../worker/store/schema.ts';
import { Store } from '../worker/store/store.ts';
import { fixtureWords, zipfPicker } from './lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_WORKER=/path/to/other/dist/worker.js compares another build (e.g. a baseline) on the same data.
const WORKER = process.env.BENCH_WORKER ? path.resolve(process.env.BENCH_WORKER) : path.join(root, 'dist', 'worker.js');
const SIZES = (process.env.BENCH_SIZES ?? '6000,100000').split(',').map(Number);
const QUERIES = 200;
const DIMS = 512;
const MODEL = vectorModelId(LOCAL_MODEL_NAME);

if (!fs.existsSync(WORKER)) {
  console.error('dist/worker.js is missing: run `npm run build` first');
  process.exit(1);
}

// ---- deterministic generator -----------------------------------------------------------------
let seed = 20260214;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const realWords = fixtureWords({ withFacts: true });
/** Frequent words that someone might search for on their own (not "the"). */
const topicWords = realWords.filter((w) => !isStopWord(w));
const syllables = ['ka', 'lo', 'mi', 'ner', 'tos', 'vak', 'pri', 'dul', 'sen', 'gor', 'fex', 'ul', 'tri', 'bon', 'zel', 'qua', 'rim', 'dex'];
const identifiers = Array.from({ length: 20_000 }, () => Array.from({ length: int(2, 4) }, () => pick(syllables)).join('') + (rand() < 0.3 ? String(int(1, 99)) : ''));
const vocab = [...realWords, ...identifiers];
const word = zipfPicker(vocab, rand);
const words = (lo, hi) => Array.from({ length: int(lo, hi) }, word).join(' ');
const TYPES = ['change', 'change', 'discovery', 'discovery', 'bugfix', 'feature', 'refactor', 'decision', 'security_note'];
const CONCEPTS = ['how-it-works', 'what-changed', 'problem-solution', 'gotcha', 'trade-off', 'why-it-exists'];
const dirs = ['src', 'src/api', 'src/auth', 'src/db', 'src/ui', 'lib', 'test', 'scripts', 'k8s', 'docs'];
const files = Array.from({ length: 4000 }, () => `${pick(dirs)}/${pick(identifiers)}.${pick(['ts', 'tsx', 'rs', 'py', 'yaml', 'md'])}`);

const centers = Array.from({ length: 256 }, () => normalize(Float32Array.from({ length: DIMS }, () => rand() * 2 - 1)));
const vector = () => {
  const c = pick(centers);
  return normalize(Float32Array.from(c, (x) => x + (rand() - 0.5) * 0.15));
};

/** Projects: eight of equal size and one small one when there is room. */
function projectsFor(n) {
  const small = n >= 20_000 ? 1500 : 0;
  const big = Array.from({ length: 8 }, (_, i) => ({ name: `bench-${i + 1}`, size: Math.floor((n - small) / 8) }));
  big[0].size += n - small - big.reduce((s, p) => s + p.size, 0);
  return small ? [...big, { name: 'bench-small', size: small }] : big;
}

async function buildStore(dir, n) {
  const t0 = performance.now();
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });
  await migrate(store);
  const projects = projectsFor(n);
  const left = new Map(projects.map((p) => [p.name, p.size]));
  const span = 730 * 86_400_000;
  const start = Date.UTC(2024, 0, 1);
  let made = 0;
  let session = 0;
  while (made < n) {
    await store.write((tx) => {
      for (let k = 0; k < 200 && made < n; k++) {
        const live = projects.filter((p) => left.get(p.name) > 0);
        const project = pick(live).name;
        const size = Math.min(left.get(project), int(6, 14));
        left.set(project, left.get(project) - size);
        const t = start + Math.floor((made / n) * span);
        const sid = ++session;
        tx.run(
          `INSERT INTO sessions (id, platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at, completed_at)
           VALUES (?, 'claude-code', ?, ?, ?, 'completed', 1, ?, ?, ?)`,
          [sid, `bench-${sid}`, project, `/home/dev/${project}`, t, t + 3_600_000, t + 3_600_000],
        );
        insertPrompt(tx, { sessionId: sid, project, promptNumber: 1, text: `${words(6, 14)}?`, createdAt: t });
        for (let i = 0; i < size; i++) {
          insertObservation(tx, {
            sessionId: sid,
            project,
            type: pick(TYPES),
            title: words(5, 9),
            subtitle: rand() < 0.5 ? words(4, 8) : null,
            narrative: words(25, 60),
            facts: Array.from({ length: int(1, 3) }, () => words(5, 10)),
            concepts: [pick(CONCEPTS)],
            filesRead: rand() < 0.5 ? [pick(files)] : [],
            filesModified: rand() < 0.6 ? [pick(files)] : [],
            toolName: 'Edit',
            promptNumber: 1,
            contentHash: `b${made}`,
            source: 'local',
            discoveryTokens: int(300, 5000),
            createdAt: t + (i + 1) * 60_000,
          });
          made++;
        }
        insertSummary(tx, { sessionId: sid, project, request: words(6, 12), investigated: words(8, 16), learned: words(8, 16), completed: words(8, 16), nextSteps: words(5, 10), promptNumber: 1, contentHash: `s${sid}`, createdAt: t + (size + 1) * 60_000 });
      }
    });
  }
  const tRows = performance.now();
  // Vectors for every observation and summary, as the background indexer would have stored them:
  // appended to the project's vector file, their places in `vectors`.
  const vectorFiles = new VectorFiles(path.join(dir, 'vector-data'));
  for (const kind of ['observation', 'summary']) {
    const table = kind === 'observation' ? 'observations' : 'session_summaries';
    let after = 0;
    for (;;) {
      const rows = store.all(`SELECT id, project, created_at FROM ${table} WHERE id > ? ORDER BY id LIMIT 2000`, [after]);
      if (rows.length === 0) break;
      const placed = [];
      for (const project of new Set(rows.map((r) => r.project))) {
        const mine = rows.filter((r) => r.project === project);
        const locs = await vectorFiles.append(MODEL, project, mine.map((r) => ({ kind, id: r.id, blob: encodeVector(vector()) })));
        mine.forEach((r, i) => placed.push([r, locs[i]]));
      }
      await store.write((tx) => {
        for (const [r, at] of placed) {
          tx.run(`INSERT INTO vectors (kind, ref_id, project, model, dims, data, created_at, file_gen, file_offset) VALUES (?, ?, ?, ?, ?, x'', ?, ?, ?)`, [kind, r.id, r.project, MODEL, DIMS, r.created_at, at.gen, at.offset]);
        }
      });
      after = rows[rows.length - 1].id;
    }
  }
  const tVec = performance.now();
  await store.close(true);
  return { projects, rowsMs: tRows - t0, vectorsMs: tVec - tRows, totalMs: performance.now() - t0 };
}

// ---- the worker -----------------------------------------------------------------------------
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function startWorker(dataDir) {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(process.execPath, [WORKER], {
    env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), ANTHROPIC_API_KEY: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr.on('data', (d) => (err += d));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`worker exited: ${err}`);
    try {
      const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(500) });
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const healthyMs = performance.now() - t0;
  const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return {
    proc,
    healthyMs,
    async get(p) {
      const cpu0 = mainThreadCpuNs(proc.pid);
      const t = performance.now();
      const r = await fetch(url + p, { headers: { authorization: `Bearer ${token}` } });
      const body = await r.text();
      const ms = performance.now() - t;
      const cpuMs = (mainThreadCpuNs(proc.pid) - cpu0) / 1e6;
      if (r.status !== 200) throw new Error(`${p}: ${r.status} ${body.slice(0, 300)}`);
      return { ms, cpuMs, body };
    },
    rss() {
      try {
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
        return m ? Number(m[1]) * 1024 : NaN;
      } catch {
        return NaN;
      }
    },
    async stop() {
      proc.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU time of the worker's main thread so far (Linux schedstat, ns): what a request cost it, whatever the load. */
function mainThreadCpuNs(pid) {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

// ---- measurement ----------------------------------------------------------------------------
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const mb = (b) => `${Math.round(b / 1e6)} MB`;
const row = (label, value) => console.log(`  ${label.padEnd(46)} ${value}`);
const stopwords = ['how did we fix the', 'why does the', 'what is the', 'where do we', 'when did'];

function makeQueries(projects, count, salt = '') {
  const big = projects.filter((p) => p.name !== 'bench-small');
  return Array.from({ length: count }, (_, i) => {
    const kind = i % 5;
    let q;
    if (kind < 3) q = `${pick(stopwords)} ${words(2, 4)}`;
    else if (kind === 3) q = topicWords[int(0, 40)];
    else q = pick(identifiers);
    return { q: salt ? `${q} ${salt}${i}` : q, project: i % 2 === 0 ? pick(big).name : undefined };
  });
}

async function timeAll(w, paths) {
  const client = [];
  const server = [];
  const cpu = [];
  for (const p of paths) {
    const r = await w.get(p);
    client.push(r.ms);
    cpu.push(r.cpuMs);
    if (r.body.startsWith('{')) {
      const took = JSON.parse(r.body).tookMs;
      if (typeof took === 'number') server.push(took);
    }
  }
  return { client, server, cpu };
}

function report(label, t, bar) {
  const p95 = pct(t.client, 0.95);
  const verdict = bar ? (p95 < bar ? `  (bar < ${bar} ms: met)` : `  (bar < ${bar} ms: MISSED)`) : '';
  const cpu = t.cpu.every(Number.isFinite) ? `  [worker main-thread CPU p50 ${f1(pct(t.cpu, 0.5))}, p95 ${f1(pct(t.cpu, 0.95))}]` : '';
  row(label, `p50 ${f1(pct(t.client, 0.5))} ms, p95 ${f1(p95)} ms${cpu}${verdict}`);
}

const searchPath = (mode) => (x) => `/api/search?${new URLSearchParams({ query: x.q, mode, limit: '20', ...(x.project ? { project: x.project } : {}) })}`;

function dirBytes(dir) {
  let n = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : fs.statSync(p).size;
  }
  return n;
}

async function benchSize(n) {
  const reuse = process.env.BENCH_DIR ? path.join(process.env.BENCH_DIR, String(n)) : undefined;
  const dir = reuse ?? fs.mkdtempSync(path.join(os.tmpdir(), `bench-search-${n}-`));
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
  console.log(`\n## ${n.toLocaleString('en')} observations (${os.cpus().length} cores, load average ${load}, node ${process.version}; data in ${dir})`);
  let built;
  if (reuse && fs.existsSync(path.join(reuse, 'db'))) {
    built = { projects: projectsFor(n) };
    row('build', 'reusing the data dir');
  } else {
    fs.mkdirSync(dir, { recursive: true });
    built = await buildStore(dir, n);
    row('build: rows + FTS / vectors / total', `${(built.rowsMs / 1000).toFixed(1)} s / ${(built.vectorsMs / 1000).toFixed(1)} s / ${(built.totalMs / 1000).toFixed(1)} s`);
  }

  // Where cold start goes: loading the store alone, in this process.
  const tOpen = performance.now();
  const probe = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });
  const openMs = performance.now() - tOpen;
  await probe.close(false);
  // Cold start: three fresh processes, healthy = first 200 from /api/health.
  const starts = [];
  for (let i = 0; i < 3; i++) {
    const w = await startWorker(dir);
    starts.push(w.healthyMs);
    if (i < 2 || process.env.BENCH_COLD_ONLY) await w.stop();
    else {
      const rssCold = w.rss();
      await run(w, rssCold);
      await w.stop();
    }
  }
  row('cold start to healthy (3 runs)', `${starts.map((x) => `${Math.round(x)} ms`).join(', ')}${n >= 100_000 ? `  (bar < 1500 ms: ${Math.max(...starts) < 1500 ? 'met' : 'MISSED'})` : ''}`);
  row('  of which: store open (snapshot load), in-process', `${Math.round(openMs)} ms`);
  const db = dirBytes(path.join(dir, 'db'));
  const vec = dirBytes(path.join(dir, 'vector-data'));
  row('on disk: database (snapshot + journal) / vector files', `${mb(db)} / ${mb(vec)}`);
  if (!process.env.BENCH_KEEP && !reuse) fs.rmSync(dir, { recursive: true, force: true });

  async function run(w, rssCold) {
    const projects = built.projects;
    // Warm: the scan index loads in the background after start; one query of each kind.
    await new Promise((r) => setTimeout(r, 2500));
    const t = performance.now();
    await w.get(searchPath('hybrid')({ q: 'warm up the model', project: undefined }));
    row('first hybrid query (model thread starts)', `${f1(performance.now() - t)} ms`);
    const kw = await timeAll(w, makeQueries(projects, QUERIES).map(searchPath('keyword')));
    const bar = n >= 100_000 ? { kw: 25, hy: 60, ctx: 30 } : n <= 6000 ? { kw: 10 } : {};
    report('keyword search', kw, bar.kw);
    const warmSet = makeQueries(projects, QUERIES);
    await timeAll(w, warmSet.map(searchPath('hybrid')));
    report('hybrid search, repeated query (cached embedding)', await timeAll(w, warmSet.map(searchPath('hybrid'))), bar.hy);
    report('hybrid search, new query (embedded now)', await timeAll(w, makeQueries(projects, 60, 'fresh').map(searchPath('hybrid'))), bar.hy);
    report('semantic search, repeated query', await timeAll(w, warmSet.map(searchPath('semantic'))));
    if (projects.some((p) => p.name === 'bench-small')) {
      const small = makeQueries(projects, 60).map((x) => ({ ...x, project: 'bench-small' }));
      await timeAll(w, small.map(searchPath('hybrid')));
      report('hybrid, a small project', await timeAll(w, small.map(searchPath('hybrid'))));
    }
    const ctxPaths = Array.from({ length: QUERIES }, (_, i) => `/api/context/inject?project=${projects[i % projects.length].name}`);
    report('context inject', await timeAll(w, ctxPaths), bar.ctx);
    const byFile = Array.from({ length: 100 }, () => `/api/search/by-file?${new URLSearchParams({ path: pick(files), project: pick(projects).name })}`);
    report('by-file history', await timeAll(w, byFile));
    const timelines = Array.from({ length: 100 }, () => `/api/timeline?anchor=${int(1, n)}&depth_before=10&depth_after=10`);
    report('timeline around an id', await timeAll(w, timelines));
    const status = JSON.parse((await w.get('/api/search/status')).body);
    row('vector scan index in memory', `${status.scan.items.toLocaleString('en')} vectors, ${mb(status.scan.bytes)}`);
    row('worker RSS: healthy / after searches', `${mb(rssCold)} / ${mb(w.rss())} (the query model thread is about 250-330 MB of it)`);
  }
}

console.log('# bench/search: keyword, hybrid and context injection against dist/worker.js');
for (const n of SIZES) await benchSize(n);
