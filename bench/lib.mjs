// Shared bench helpers: start the built worker, a keep-alive load loop, percentiles.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * What a build's own launchers add to its worker's environment (common/node/mallocEnv.ts: glibc's
 * malloc settings, unless the environment has its own), read from the checkout `script` is in:
 * none for a build from before them, so a baseline runs the way it shipped.
 */
export function launchEnv(script) {
  try {
    return JSON.parse(fs.readFileSync(path.join(path.dirname(script), '..', 'common', 'node', 'glibcMalloc.json'), 'utf8'));
  } catch {
    return {};
  }
}

export function tempDir(prefix = 'cmem-bench-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export async function startWorker({ dataDir = tempDir(), env = {}, args = [], script = path.join(ROOT, 'dist', 'worker.js') } = {}) {
  const t0 = performance.now();
  const proc = spawn(process.execPath, [...args, script], {
    env: { ...launchEnv(script), ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const port = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    proc.on('exit', (c) => reject(new Error(`worker exited ${c}: ${out}`)));
  });
  const startMs = performance.now() - t0;
  const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const req = (method, p, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      const r = http.request(
        { host: '127.0.0.1', port, method, path: p, agent, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) } },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let b = text;
            try {
              b = JSON.parse(text);
            } catch {}
            resolve({ status: res.statusCode, body: b });
          });
        },
      );
      r.on('error', reject);
      r.end(payload);
    });
  const stop = () =>
    new Promise((resolve) => {
      proc.on('exit', resolve);
      proc.kill('SIGTERM');
    });
  const rss = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'))[1]);
      return kb * 1024;
    } catch {
      return NaN;
    }
  };
  /** CPU time (user + system, all threads) the worker has used so far, in ms. */
  const cpuMs = () => {
    const f = fs.readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * (1000 / 100); // clock ticks at USER_HZ 100
  };
  return { port, token, dataDir, proc, req, stop, startMs, rss, cpuMs, agent };
}

/** Runs `total` calls of fn with `concurrency` in flight; returns latencies (ms) and wall time. */
export async function load(fn, total, concurrency) {
  const lat = new Array(total);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const s = performance.now();
        const r = await fn(i);
        if (r.status >= 300 && r.status !== 202 && r.status !== 200) throw new Error(`request ${i} -> ${r.status} ${JSON.stringify(r.body)}`);
        lat[i] = performance.now() - s;
      }
    }),
  );
  const wall = performance.now() - t0;
  return { lat, wall, rps: total / (wall / 1000) };
}

export function pct(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** A picker of `items` with Zipf-like frequencies (the first most often), drawing on `rand` (0..1). */
export function zipfPicker(items, rand, exponent = 0.95) {
  const cdf = [];
  let acc = 0;
  for (let r = 0; r < items.length; r++) cdf.push((acc += 1 / (r + 1) ** exponent));
  return () => {
    const u = rand() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (cdf[m] < u) lo = m + 1;
      else hi = m;
    }
    return items[lo];
  };
}

/**
 * The search fixture's words (3+ characters) of titles and narratives, and facts with `withFacts`,
 * commonest first: the vocabulary the benches' synthetic stores draw from. None if it is missing.
 */
export function fixtureWords({ withFacts = false } = {}) {
  const file = path.join(ROOT, 'test/fixtures/search/history.json');
  const counts = new Map();
  if (fs.existsSync(file)) {
    for (const s of JSON.parse(fs.readFileSync(file, 'utf8')).sessions)
      for (const o of s.observations)
        for (const w of `${o.title} ${o.narrative ?? ''}${withFacts ? ` ${o.facts.join(' ')}` : ''}`.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([w]) => w);
}

/**
 * Seeded draws from fixtureWords(), Zipf-weighted: `word` (any), `topicWord` (not a stop word, by the
 * `isStopWord` given), `words(lo, hi)` (a run of lo..hi words) and `int(lo, hi)`.
 */
export function fixtureText(rand, isStopWord) {
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const vocab = fixtureWords();
  const word = zipfPicker(vocab, rand);
  const topicWord = zipfPicker(vocab.filter((w) => !isStopWord(w)), rand);
  return { int, word, topicWord, words: (lo, hi) => Array.from({ length: int(lo, hi) }, word).join(' ') };
}

export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** An export document with n observations spread over sessions and projects, for fast bulk loading. */
export function syntheticExport(n, { projects = 5, perSession = 50, start = Date.now() - 90 * 86400_000 } = {}) {
  const words = 'cache build parser token session index search vector queue journal snapshot worker hook panel chat context budget retry backoff schema migration export import privacy tag stream'.split(' ');
  const pick = (i, k) => words[(i * 7 + k * 13) % words.length];
  const sessions = [];
  for (let i = 0; i < n; i += perSession) {
    const s = sessions.length;
    const obs = [];
    for (let j = i; j < Math.min(n, i + perSession); j++) {
      obs.push({
        type: ['discovery', 'change', 'bugfix', 'feature', 'decision'][j % 5],
        title: `${pick(j, 1)} ${pick(j, 2)} in src/${pick(j, 3)}/${pick(j, 4)}.ts`,
        subtitle: null,
        facts: [`${pick(j, 5)} uses ${pick(j, 6)}`, `${pick(j, 7)} was ${pick(j, 8)}`],
        narrative: `Worked on the ${pick(j, 9)} ${pick(j, 10)}: changed how ${pick(j, 11)} handles ${pick(j, 12)} so that ${pick(j, 13)} stays fast (obs ${j}).`,
        concepts: [['how-it-works', 'what-changed', 'problem-solution', 'gotcha', 'pattern'][j % 5]],
        filesRead: [`src/${pick(j, 3)}/${pick(j, 4)}.ts`],
        filesModified: j % 2 ? [`src/${pick(j, 3)}/${pick(j, 4)}.ts`] : [],
        toolName: 'Edit',
        promptNumber: 1,
        contentHash: `h${j}`,
        source: 'local',
        inputTokens: 0,
        outputTokens: 0,
        discoveryTokens: 500,
        createdAt: start + j * 60_000,
      });
    }
    sessions.push({
      platform: 'claude-code',
      contentSessionId: `bench-${s}`,
      project: `project-${s % projects}`,
      cwd: null,
      status: 'completed',
      promptCounter: 1,
      startedAt: start + i * 60_000,
      updatedAt: start + i * 60_000,
      completedAt: start + i * 60_000,
      completionReason: 'exit',
      prompts: [{ promptNumber: 1, text: `please improve the ${pick(i, 1)} ${pick(i, 2)}`, createdAt: start + i * 60_000 }],
      observations: obs,
      summaries: [],
    });
  }
  return { format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date().toISOString(), project: null, sessions };
}
