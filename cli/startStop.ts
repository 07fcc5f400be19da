// claude-mem start | stop | status, and ensureWorker for the hooks and the MCP server.
// node:child_process is loaded only when a worker must be started: hooks rarely need it.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { rotateIfLarge } from '../common/node/log';
import { RETURN_FREED_MEMORY } from '../common/node/mallocEnv';
import { health, probe, request, targetFromEnv, type ClientTarget } from './client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Why the port cannot be used, when what answers there is not this data dir's worker. */
export let portProblem: string | undefined;

export async function ensureWorker(t: ClientTarget, waitMs: number): Promise<{ pid: number; port: number } | undefined> {
  try {
    const p = await probe(t, 500);
    if (p.kind === 'ours') return p.health;
    // Something else holds the port: a worker started now could not bind it. Send it nothing.
    portProblem = p.why;
    return undefined;
  } catch {
    /* nothing answers: start one */
  }
  await startDetached(t);
  const end = Date.now() + waitMs;
  while (Date.now() < end) {
    await sleep(100);
    const ok = await health(t, 500);
    if (ok) return ok;
  }
  return undefined;
}

async function startDetached(t: ClientTarget): Promise<void> {
  // Loaded only here; require, not import(): this runs inside a vm.Script (see loader.ts).
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const script = join(__dirname, 'worker.js');
  mkdirSync(join(t.dataDir, 'logs'), { recursive: true, mode: 0o700 });
  rotateIfLarge(join(t.dataDir, 'logs', 'worker.out'));
  const out = openSync(join(t.dataDir, 'logs', 'worker.out'), 'a', 0o600);
  const child = spawn(process.execPath, [script], {
    detached: true,
    stdio: ['ignore', out, out],
    // glibc's malloc settings (common/node/mallocEnv.ts) unless the environment sets them.
    env: { ...RETURN_FREED_MEMORY, ...process.env, CLAUDE_MEM_DATA_DIR: t.dataDir, CLAUDE_MEM_WORKER_PORT: String(t.port), CLAUDE_MEM_WORKER_HOST: t.host, ELECTRON_RUN_AS_NODE: '1' },
  });
  child.unref();
  closeSync(out);
}

export async function runStartStop(cmd: 'start' | 'stop' | 'status', _args: string[]): Promise<number> {
  const t = targetFromEnv();
  const url = `http://${t.host}:${t.port}`;
  if (cmd === 'status') {
    const h = await health(t);
    if (!h) {
      process.stdout.write(`claude-mem worker is not running (${url})${await holder(t)}\n`);
      return 1;
    }
    process.stdout.write(`claude-mem worker running at ${url} (pid ${h.pid}, version ${h.version}, queue ${h.queueDepth})\n  data dir: ${t.dataDir}\n`);
    return 0;
  }
  if (cmd === 'start') {
    const before = await health(t, 500);
    const h = before ?? (await ensureWorker(t, 20_000));
    if (!h) {
      process.stderr.write(`claude-mem worker did not become healthy at ${url}${portProblem ? ` (${portProblem})` : ''}; see ${join(t.dataDir, 'logs')}\n`);
      return 1;
    }
    process.stdout.write(`claude-mem worker ${before ? 'already running' : 'started'} at ${url} (pid ${h.pid})\n  data dir: ${t.dataDir}\n  stop: claude-mem stop\n`);
    return 0;
  }
  const h = await health(t);
  if (!h) {
    process.stdout.write(`claude-mem worker is not running (${url})\n`);
    return 0;
  }
  const r = await request(t, 'POST', '/api/admin/shutdown', {});
  if (r.status !== 200) {
    process.stderr.write(`stop refused (${r.status}): ${JSON.stringify(r.body)}\n`);
    return 1;
  }
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    await sleep(100);
    if (!processAlive(h.pid)) {
      process.stdout.write(`claude-mem worker stopped (pid ${h.pid})\n`);
      return 0;
    }
  }
  process.stderr.write(`claude-mem worker (pid ${h.pid}) is still shutting down\n`);
  return 1;
}

/** What holds the port when it is not our worker ('' when nothing answers). */
async function holder(t: ClientTarget): Promise<string> {
  try {
    const p = await probe(t, 1000);
    return p.kind === 'other' ? `; port ${t.port} is held by something else: ${p.why}` : '';
  } catch {
    return '';
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
