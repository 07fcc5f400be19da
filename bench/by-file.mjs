// GET /api/search/by-file (what the file-context hook asks on every Read) against a real worker
// whose store holds N observations of one file: round trip p50/p90 over HTTP, 100 ms apart (hooks
// come seconds apart, so each request meets a cold worker), with limit=12 as the hook asks.
// With --dist DIR, the same for another build, measured in the same run, and the ratio.
//
//   npm run build && node bench/by-file.mjs [--n 400] [--requests 60] [--dist DIR]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fmt, pct, ROOT, tempDir } from './lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : def;
};
const N = Number(arg('--n', 400));
const REQUESTS = Number(arg('--requests', 60));
const other = arg('--dist', undefined);

async function measure(dist) {
  const tmp = tempDir('bench-by-file-');
  const dataDir = path.join(tmp, 'data');
  const project = path.join(tmp, 'proj');
  fs.mkdirSync(project);
  const env = { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', ANTHROPIC_API_KEY: '', CLAUDE_MEM_EMBEDDINGS: 'off' };
  delete env.NODE_EXTRA_CA_CERTS;
  const proc = spawn(process.execPath, [path.join(dist, 'worker.js')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    while (!/listening on/.test(out)) await new Promise((r) => setTimeout(r, 50));
    const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(out)[1]);
    const token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
    const req = async (method, p, body) =>
      (await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) })).json();
    const file = path.join(project, 'src', 'parser.ts');
    for (let i = 0; i < N; i++) {
      const text = `b${i} ${'lorem ipsum dolor sit amet '.repeat(40)}`;
      await req('POST', '/api/sessions/observations', { contentSessionId: `s${i % 20}`, tool_name: 'Edit', tool_input: { file_path: file, old_string: `a${i}`, new_string: text }, tool_response: 'ok '.repeat(200), cwd: project, tool_use_id: `t${i}` });
    }
    while ((await req('GET', '/api/health')).queueDepth !== 0) await new Promise((r) => setTimeout(r, 200));
    const q = `/api/search/by-file?path=${encodeURIComponent(file)}&project=proj&limit=12`;
    const first = await req('GET', q);
    const ms = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      await req('GET', q);
      ms.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 100));
    }
    return { items: first.items?.length ?? 0, p50: pct(ms, 50), p90: pct(ms, 90) };
  } finally {
    proc.kill();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const mine = await measure(path.join(ROOT, 'dist'));
console.log(`by-file with ${N} observations of one file, ${REQUESTS} requests 100 ms apart, limit=12`);
console.log(`this build   p50 ${fmt(mine.p50, 2)} ms  p90 ${fmt(mine.p90, 2)} ms  (${mine.items} items)`);
if (other) {
  const base = await measure(path.resolve(other));
  console.log(`--dist       p50 ${fmt(base.p50, 2)} ms  p90 ${fmt(base.p90, 2)} ms  (${base.items} items)`);
  console.log(`this build / --dist at p50: ${fmt(mine.p50 / base.p50, 2)}x`);
}
