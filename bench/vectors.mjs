// bench/vectors: what stored vectors cost the worker (vectors out of the
// database). A loopback fake embeddings server (OpenAI-compatible, deterministic 512-d vectors,
// no model) stands in for the encoder, so the figures are storage, not embedding. For each build:
// import N observations, wait until every one has a vector, then print
//   the database snapshot a checkpoint writes (bytes, event-loop time) and the data dir on disk
//   (db/ and the vector files); after a restart: cold start to healthy, RSS at health, the first
//   semantic query (loads the scan), p95 of 50 more, RSS then and once the idle time has passed;
//   and the same restart and queries with embeddings off (keyword), for the memory vectors cost.
//
//   npm run build && node bench/vectors.mjs [--n 20000] [--dist /tmp/base/dist]
//     --dist  another build (e.g. main before the change) measured in the same run: ratios ours / it
//   BENCH_KEEP=1 keeps the data dirs (their logs say when the scan was loaded and dropped)
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { fmt, pct, ROOT, startWorker, syntheticExport, tempDir } from './lib.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const N = Number(arg('n', 20000));
const BASE = arg('dist');
const DIMS = 512;
const IDLE_MS = 4000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MB = (b) => b / 1e6;

/** Deterministic unit-ish vector from the text (xorshift seeded by a string hash). */
function vectorOf(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  const v = new Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    v[i] = Math.round(((h >>> 0) / 4294967296 - 0.5) * 1e4) / 1e4;
  }
  return v;
}

function fakeEmbeddings() {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { input } = JSON.parse(Buffer.concat(chunks).toString());
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: vectorOf(t) })) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}

function dirBytes(dir) {
  if (!fs.existsSync(dir)) return 0;
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? (e.name === 'logs' ? 0 : dirBytes(p)) : fs.statSync(p).size;
  }
  return n;
}

async function measure(label, script, embedUrl) {
  const dataDir = tempDir('bench-vectors-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: 'remote', remoteUrl: embedUrl, remoteDims: DIMS, embedderIdleMs: IDLE_MS } }));
  const env = { ANTHROPIC_API_KEY: '', CLAUDE_MEM_EMBEDDINGS: '' };
  const r = { label };
  let w = await startWorker({ dataDir, env, script });
  const doc = syntheticExport(N);
  const t0 = performance.now();
  for (let i = 0; i < doc.sessions.length; i += 100) {
    const res = await w.req('POST', '/api/import', { ...doc, sessions: doc.sessions.slice(i, i + 100) });
    if (res.status !== 200) throw new Error(`import: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  }
  for (;;) {
    const s = (await w.req('GET', '/api/search/status')).body;
    if (s.pending === 0 && s.embeddings.state !== 'indexing' && s.indexed.observations >= N) break;
    if (s.embeddings.state === 'unavailable') throw new Error(`embeddings unavailable: ${s.embeddings.lastError}`);
    await sleep(250);
  }
  r.indexS = (performance.now() - t0) / 1000;
  await sleep(2000); // the indexer's tidy after its pass
  const snap = (await w.req('POST', '/api/admin/snapshot')).body;
  r.ckptMB = MB(snap.bytes ?? NaN);
  r.ckptBlockedMs = snap.blockedMs;
  await w.stop();
  r.dbMB = MB(dirBytes(path.join(dataDir, 'db')));
  r.vecMB = MB(dirBytes(path.join(dataDir, 'vector-data')));
  r.diskMB = MB(dirBytes(dataDir));

  w = await startWorker({ dataDir, env, script });
  r.startMs = w.startMs;
  r.rssHealthMB = MB(w.rss());
  const queries = async (mode) => {
    const q = (s) => w.req('GET', `/api/search?${new URLSearchParams({ query: s, mode, limit: '10' })}`);
    let t = performance.now();
    await q('how does the journal handle a snapshot');
    const first = performance.now() - t;
    const lat = [];
    for (let i = 0; i < 50; i++) {
      t = performance.now();
      await q(`why did the ${['cache', 'parser', 'worker', 'queue', 'schema'][i % 5]} ${['retry', 'stream', 'budget', 'index', 'hook'][i % 4]} change`);
      lat.push(performance.now() - t);
    }
    return { first, p95: pct(lat, 95) };
  };
  const sem = await queries('semantic');
  r.firstQueryMs = sem.first;
  r.semP95 = sem.p95;
  r.rssQueriedMB = MB(w.rss());
  await sleep(IDLE_MS + 3000);
  r.rssIdleMB = MB(w.rss());
  await w.stop();
  // The same with embeddings off: what the vectors cost once idle.
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: 'off' } }));
  w = await startWorker({ dataDir, env, script });
  await queries('keyword');
  await sleep(IDLE_MS + 3000);
  r.rssOffMB = MB(w.rss());
  r.idleOverOffMB = r.rssIdleMB - r.rssOffMB;
  await w.stop();
  if (process.env.BENCH_KEEP) console.log(`${label}: data dir kept at ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
  return r;
}

const ROWS = [
  ['import + embed everything (s)', 'indexS', 1],
  ['checkpoint: snapshot bytes (MB)', 'ckptMB', 1],
  ['checkpoint: event loop blocked (ms)', 'ckptBlockedMs', 1],
  ['db/ after a graceful stop (MB)', 'dbMB', 1],
  ['vector files (MB)', 'vecMB', 1],
  ['data dir on disk (MB)', 'diskMB', 1],
  ['restart: healthy (ms)', 'startMs', 0],
  ['restart: RSS at health (MB)', 'rssHealthMB', 0],
  ['restart: first semantic query, loads the scan (ms)', 'firstQueryMs', 0],
  ['semantic query p95 after it (ms)', 'semP95', 1],
  ['RSS after 51 semantic queries (MB)', 'rssQueriedMB', 0],
  [`RSS ${(IDLE_MS + 3000) / 1000} s later: embedder idle time passed (MB)`, 'rssIdleMB', 0],
  ['the same restart, embeddings off, 51 keyword queries (MB)', 'rssOffMB', 0],
  ['embeddings on and idle, minus off (MB)', 'idleOverOffMB', 0],
];

const embed = await fakeEmbeddings();
try {
  const runs = [];
  if (BASE) runs.push(await measure('baseline', path.resolve(BASE, 'worker.js'), embed.url));
  runs.push(await measure('ours', path.join(ROOT, 'dist', 'worker.js'), embed.url));
  console.log(`\nbench/vectors: ${N} observations, each with a ${DIMS}-d vector (fake embeddings server)\n`);
  console.log(['', ...runs.map((x) => x.label), ...(BASE ? ['ours / baseline'] : [])].join(' | '));
  for (const [name, key, d] of ROWS) {
    const vals = runs.map((x) => x[key]);
    const ratio = BASE && vals[0] > 0 ? `${fmt(vals[1] / vals[0], 2)}x` : BASE ? 'n/a' : undefined;
    console.log([name, ...vals.map((v) => fmt(v, d)), ...(ratio ? [ratio] : [])].join(' | '));
  }
} finally {
  embed.close();
}
