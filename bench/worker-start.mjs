// bench/worker-start: the CPU one worker start and one stop cost, as the test tiers pay it (they
// start hundreds of workers, each on its own data dir, sharing one code cache per run).
//
//   npm run build && node bench/worker-start.mjs
//   BENCH_N=9                     starts per case (median printed; default 7)
//   BENCH_BASELINE=/tmp/base/dist/worker.js   the same cases with that build first (e.g. main),
//                                 starts of the two builds alternating, and ours / baseline
//   BENCH_WORKER=/path/dist/worker.js         measure that build as "ours"
//
// Cases: a fresh data dir (what almost every test does), the same data dir started again (an
// existing, empty store), and a store of 1,000 observations (imported, stopped, started again).
// For each start: the CPU of the worker's threads and its child processes, 2 s after it listens
// (the start and what settles right after: V8's background compiles), split into the main
// thread and the others (V8's compiler and GC threads, libuv's pool); then the CPU of a graceful
// stop (SIGTERM to exit). CPU is read in clock ticks (1/100 s) from /proc/<pid>/task/*/stat and,
// for the whole life, from GNU time (children included). Each run also times `node -e 0` so
// figures taken on a busy machine can be compared: "ratio" is ours over the baseline build.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.BENCH_N) || 7;
const OURS = process.env.BENCH_WORKER || path.join(root, 'dist', 'worker.js');
const BASE = process.env.BENCH_BASELINE;
const OURS_ARGS = (process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean);
/** When a start's CPU is read: this long after it listens (its background compiles and GC done). */
const SETTLE_MS = 2000;
const TICK_MS = 10;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmp = (p) => fs.mkdtempSync(path.join(os.tmpdir(), p));

/** utime + stime (ticks) of one /proc stat line, and its children's (cutime + cstime). */
function statTicks(file) {
  const f = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return { self: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

/** The ticks a process and everything under it used so far: its main thread, its other threads, its children. */
function treeTicks(pid) {
  let main = 0;
  let threads = 0;
  let kids = 0;
  let tasks = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  for (const tid of tasks) {
    try {
      const t = statTicks(`/proc/${pid}/task/${tid}/stat`);
      if (tid === String(pid)) main += t.self;
      else threads += t.self;
      for (const c of fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)) kids += treeTicks(Number(c))?.total ?? 0;
    } catch {
      /* a thread that ended: its ticks are in the process's stat, counted below */
    }
  }
  try {
    const p = statTicks(`/proc/${pid}/stat`);
    // Threads that ended are no longer listed: the process's own figure includes them.
    const ended = p.self - main - threads;
    if (ended > 0) threads += ended;
    kids += p.children; // children that ended and were waited for
  } catch {
    return undefined;
  }
  return { main, threads, kids, total: main + threads + kids };
}

/** Spawns `cmd` under GNU time; resolves the child's pid once it exists, and its CPU ticks at exit. */
function timed(cmd, args, env) {
  const proc = spawn('/usr/bin/time', ['-f', '#cpu %U %S', cmd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const exited = new Promise((resolve) =>
    proc.on('close', (code) => {
      const m = /#cpu ([\d.]+) ([\d.]+)/.exec(err);
      resolve({ code, ticks: m ? Math.round((Number(m[1]) + Number(m[2])) * 100) : NaN, err });
    }),
  );
  const pid = async () => {
    for (let i = 0; i < 500; i++) {
      try {
        const c = fs.readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim();
        if (c) return Number(c.split(' ')[0]);
      } catch {
        /* not yet */
      }
      await sleep(2);
    }
    throw new Error('no child under /usr/bin/time');
  };
  return { proc, out: () => out, err: () => err, exited, pid };
}

/** `node -e 0`: the machine's figure for the cheapest Node start, in ticks. */
async function nodeBaseline() {
  const t = timed(process.execPath, ['-e', '0'], process.env);
  return (await t.exited).ticks;
}

/**
 * One start of `script` on `dataDir`: ticks at 3 s (main thread, other threads, children), then a
 * SIGTERM and the ticks of the stop. With `then`, runs it on the running worker before the stop.
 */
async function startStop(script, dataDir, cacheDir, then) {
  const env = { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', CLAUDE_MEM_CODE_CACHE_DIR: cacheDir, ANTHROPIC_API_KEY: '', CLAUDE_MEM_EMBEDDINGS: '' };
  const t0 = performance.now();
  const t = timed(process.execPath, [...(script === OURS ? OURS_ARGS : []), script], env);
  const pid = await t.pid();
  let listenMs;
  let port;
  while (performance.now() - t0 < 60_000) {
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(t.out());
    if (m) {
      listenMs = performance.now() - t0;
      port = Number(m[1]);
      break;
    }
    if (t.proc.exitCode !== null) throw new Error(`worker exited: ${t.out()}${t.err()}`);
    await sleep(5);
  }
  if (listenMs === undefined) throw new Error(`worker did not listen in 60 s: ${t.out()}${t.err()}`);
  const atListen = treeTicks(pid);
  await sleep(SETTLE_MS);
  const settled = treeTicks(pid);
  if (then) await then(port, fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim());
  const beforeStop = treeTicks(pid);
  const s0 = performance.now();
  process.kill(pid, 'SIGTERM');
  const { code, ticks } = await t.exited;
  if (code !== 0) throw new Error(`worker stop exited ${code}: ${t.err()}`);
  return { listenMs, atListen: atListen.total, start: settled.total, main: settled.main, threads: settled.threads, kids: settled.kids, stop: ticks - beforeStop.total, stopMs: performance.now() - s0 };
}

/** An export document of `n` observations (50 a session), for POST /api/import. */
function exportDoc(n) {
  let seed = 20261206;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
  const vocab = 'worker store journal snapshot search keyword index session observation migrate schema cache token route hono sqlite wasm compile start stop ingest queue compress summary context budget'.split(' ');
  const words = (k) => Array.from({ length: k }, () => vocab[Math.floor(rand() * vocab.length)]).join(' ');
  const sessions = [];
  for (let s = 0; s < n / 50; s++) {
    const t0 = Date.UTC(2026, 0, 1) + s * 3_600_000;
    sessions.push({
      platform: 'claude-code', contentSessionId: `bench-${s}`, project: `bench-${s % 3}`, cwd: '/tmp', status: 'completed', promptCounter: 1,
      startedAt: t0, updatedAt: t0, completedAt: t0, completionReason: 'exit', prompts: [], summaries: [],
      observations: Array.from({ length: 50 }, (_, i) => ({
        type: 'change', title: words(6), subtitle: null, facts: [words(8)], narrative: words(40), concepts: ['how-it-works'], filesRead: [], filesModified: ['src/a.ts'],
        toolName: 'Edit', promptNumber: 1, contentHash: `bench-${s}-${i}`, source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 100, createdAt: t0 + i * 1000,
      })),
    });
  }
  return { format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date().toISOString(), project: null, sessions };
}

async function importDoc(port, token, doc) {
  const r = await fetch(`http://127.0.0.1:${port}/api/import`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(doc) });
  if (r.status !== 200) throw new Error(`import: HTTP ${r.status} ${await r.text()}`);
}

const builds = BASE ? [['baseline', BASE], ['ours', OURS]] : [['ours', OURS]];
const results = Object.fromEntries(builds.map(([name]) => [name, { fresh: [], again: [], k1: [] }]));
const nodeTicks = [];
const dirs = [];
const cacheDirs = Object.fromEntries(builds.map(([name]) => [name, tmp('cmem-bench-cache-')]));
try {
  // One start per build first: it makes the code cache every later start loads (as in a test run).
  for (const [name, script] of builds) {
    const d = tmp('cmem-bench-start-');
    dirs.push(d);
    await startStop(script, d, cacheDirs[name]);
  }
  // The 1k stores, imported once per build, stopped; each start below opens a copy.
  const k1 = {};
  const doc = exportDoc(1000);
  for (const [name, script] of builds) {
    k1[name] = tmp('cmem-bench-1k-');
    dirs.push(k1[name]);
    await startStop(script, k1[name], cacheDirs[name], (port, token) => importDoc(port, token, doc));
  }
  for (let i = 0; i < N; i++) {
    nodeTicks.push(await nodeBaseline());
    for (const [name, script] of builds) {
      const d = tmp('cmem-bench-start-');
      dirs.push(d);
      results[name].fresh.push(await startStop(script, d, cacheDirs[name]));
      results[name].again.push(await startStop(script, d, cacheDirs[name]));
      const c = tmp('cmem-bench-1k-');
      dirs.push(c);
      fs.cpSync(k1[name], c, { recursive: true });
      fs.rmSync(path.join(c, 'cache'), { recursive: true, force: true });
      results[name].k1.push(await startStop(script, c, cacheDirs[name]));
    }
  }
} finally {
  for (const d of [...dirs, ...Object.values(cacheDirs)]) fs.rmSync(d, { recursive: true, force: true });
}

const cases = [['fresh', 'a fresh data dir'], ['again', 'the same (empty) store again'], ['k1', 'a store of 1,000 observations']];
const fields = [['start', 'start CPU, 2 s after listening (ms)'], ['main', '  main thread (ms)'], ['threads', '  other threads (ms)'], ['kids', '  child processes (ms)'], ['atListen', 'CPU when it listens (ms)'], ['listenMs', 'spawn to listening (wall ms)'], ['stop', 'stop CPU, SIGTERM to exit (ms)'], ['stopMs', 'stop (wall ms)']];
console.log(`# worker start and stop, median of ${N} (CPU in ms, from 10 ms clock ticks); node -e 0: ${median(nodeTicks) * TICK_MS} ms CPU`);
for (const [c, label] of cases) {
  console.log(`\n${label}`);
  for (const [f, flabel] of fields) {
    const m = Object.fromEntries(builds.map(([name]) => [name, median(results[name][c].map((r) => r[f])) * (f.endsWith('Ms') ? 1 : TICK_MS)]));
    const cells = builds.map(([name]) => `${name} ${m[name].toFixed(0).padStart(5)}`).join('   ');
    const ratio = BASE && m.baseline > 0 ? `   ratio ${(m.ours / m.baseline).toFixed(2)}` : '';
    console.log(`  ${flabel.padEnd(36)} ${cells}${ratio}`);
  }
}
