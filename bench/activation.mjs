// activate() wall time of the bundled extension (dist/extension.js), with the worker already
// running and with none (activate returns before the worker is found or forked; the time until the
// window is connected is printed beside it for scale).
//
//   npm run build && node bench/activation.mjs          # RUNS=15 by default
//
// No VS Code host runs here: `vscode` is test/helpers/fakeVscode.cjs, a recording stand-in
// (events, configuration, commands, chat, LM tools, status bar, log channel, secrets). Each sample
// is a fresh Node process, so module loading of the bundle is part of the figure, as in a real host.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.RUNS ?? 15);
const ext = path.join(root, 'dist', 'extension.js');
const workerJs = path.join(root, 'dist', 'worker.js');
if (!fs.existsSync(ext) || !fs.existsSync(workerJs)) {
  console.error('dist/extension.js or dist/worker.js missing: run `npm run build` first');
  process.exit(1);
}

// ---- one sample, in a child process --------------------------------------------------------
if (process.argv[2] === '--sample') {
  const [, , , port, dataDir, folder] = process.argv;
  const t0 = performance.now();
  const fake = (await import(path.join(root, 'test', 'helpers', 'fakeVscode.cjs'))).default;
  fake.install({ settings: { 'claudeMem.worker.port': Number(port), 'claudeMem.worker.dataDir': dataDir, 'claudeMem.worker.idleShutdownMinutes': 1 }, folders: [folder] });
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const tLoad0 = performance.now();
  const mod = require(ext);
  const tLoad1 = performance.now();
  const ctx = fake.context(root);
  const tA0 = performance.now();
  const api = mod.activate(ctx);
  const tA1 = performance.now();
  const sup = api.services.supervisor;
  await new Promise((resolve) => {
    if (sup.state.kind === 'connected') return resolve();
    const d = sup.onState((s) => s.kind === 'connected' && (d.dispose(), resolve()));
  });
  const tC = performance.now();
  process.stdout.write(JSON.stringify({ requireMs: tLoad1 - tLoad0, activateMs: tA1 - tA0, connectedMs: tC - tA0, owned: sup.state.owned, forked: sup.forked, sinceStartMs: tA1 - t0 }) + '\n');
  await mod.deactivate();
  process.exit(0);
}

// ---- driver ------------------------------------------------------------------------------------
const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const fmt = (xs) => `p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms, min ${Math.min(...xs).toFixed(1)} ms`;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-bench-proj-'));

function sample(port, dataDir) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--sample', String(port), dataDir, folder], { encoding: 'utf8', timeout: 60_000 });
  const line = r.stdout.trim().split('\n').pop();
  if (r.status !== 0 || !line) throw new Error(`sample failed (${r.status}): ${r.stderr}`);
  return JSON.parse(line);
}

async function stopWorker(port, dataDir) {
  const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
  await fetch(`http://127.0.0.1:${port}/api/admin/shutdown`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(300) });
      await new Promise((r) => setTimeout(r, 100));
    } catch {
      return;
    }
  }
}

// With a worker already running.
const port1 = await freePort();
const dir1 = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-bench-'));
const w = spawn(process.execPath, [workerJs], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dir1, CLAUDE_MEM_WORKER_PORT: String(port1) }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  let out = '';
  w.stdout.on('data', (d) => {
    out += d;
    if (/listening on/.test(out)) resolve();
  });
  w.on('exit', (c) => reject(new Error(`worker exited ${c}`)));
});
const running = [];
for (let i = 0; i < RUNS; i++) running.push(sample(port1, dir1));
w.kill('SIGTERM');

// With no worker: every sample forks one; it is stopped before the next sample.
const none = [];
for (let i = 0; i < RUNS; i++) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-bench-'));
  const s = sample(port, dir);
  if (s.owned !== true) throw new Error('expected the extension to fork a worker');
  none.push(s);
  await stopWorker(port, dir);
}

const bare = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  bare.push(performance.now() - t);
}

console.log(`activate() wall time, ${RUNS} fresh processes each (node ${process.version}, ${os.cpus().length} cores, fake vscode module):`);
console.log(`  worker already running : activate ${fmt(running.map((s) => s.activateMs))}; require(dist/extension.js) ${fmt(running.map((s) => s.requireMs))}; connected after ${fmt(running.map((s) => s.connectedMs))}`);
console.log(`  no worker (forks one)  : activate ${fmt(none.map((s) => s.activateMs))}; require(dist/extension.js) ${fmt(none.map((s) => s.requireMs))}; connected after ${fmt(none.map((s) => s.connectedMs))}`);
console.log(`  for scale: bare \`node -e 0\` process ${fmt(bare)}`);
