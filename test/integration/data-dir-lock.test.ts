// One writer per data dir whatever the port: the kernel's lock (worker/dirLock.ts) refuses a second
// worker even when worker.pid is gone, and a SIGKILLed worker's lock does not block the next start.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { dirLockAddress } from '../../worker/dirLock';
import { freePort, startWorker, tempDir, WORKER_JS } from '../helpers/worker';

function runWorker(dataDir: string, port: number) {
  return spawnSync(process.execPath, [WORKER_JS], {
    env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), ANTHROPIC_API_KEY: '', CLAUDE_MEM_IDLE_SHUTDOWN_MS: '1' },
    encoding: 'utf8',
    timeout: 40_000,
  });
}

async function portAnswers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

async function save(w: { req: (m: string, p: string, b?: unknown) => Promise<{ status: number; body: any }> }, text: string): Promise<number> {
  const r = await w.req('POST', '/api/memory/save', { text, project: 'lock' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id as number;
}

describe('one writer per data dir, whatever the port', () => {
  it('with worker.pid removed, a second worker on another port does not start, and names the first', async () => {
    const dataDir = tempDir();
    const a = await startWorker({ dataDir });
    try {
      const id = await save(a, 'written by the first worker');
      fs.rmSync(path.join(dataDir, 'worker.pid'));
      const other = await freePort();
      const r = runWorker(dataDir, other);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`already running \\(pid ${a.proc.pid}\\) at http://127\\.0\\.0\\.1:${a.port}; using it`));
      assert.equal(await portAnswers(other), false, 'nothing listens on the second port');
      // The first worker's acknowledged write survives its restart: there was no second writer.
      await a.stop();
      const again = await startWorker({ dataDir });
      try {
        assert.equal((await again.req('GET', `/api/observation/${id}`)).status, 200);
      } finally {
        await again.stop();
      }
    } finally {
      await a.stop();
    }
  });

  it('a first worker that does not answer (stopped) still keeps a second one out, with exit 1 and a sentence', async () => {
    const dataDir = tempDir();
    const a = await startWorker({ dataDir });
    fs.rmSync(path.join(dataDir, 'worker.pid'));
    process.kill(a.proc.pid!, 'SIGSTOP');
    try {
      const other = await freePort();
      const r = runWorker(dataDir, other);
      assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stderr, /refuses to start: data dir .* has a worker already; .*One worker writes a data dir: use that one, or stop it first/);
      assert.doesNotMatch(r.stdout, /listening on/);
      assert.ok(!fs.existsSync(path.join(dataDir, 'worker.pid')), 'the refused worker took no pid file');
    } finally {
      process.kill(a.proc.pid!, 'SIGCONT');
      await a.stop();
    }
  });

  it('a holder too busy to answer within a second, then gone: the next starter waits, takes the lock and serves', async () => {
    // A starter that lost the race used to give up when the holder (a worker still starting on a
    // loaded machine) did not answer its question within a second.
    const dataDir = tempDir();
    const holder = net.createServer((c) => {
      c.on('error', () => {});
      setTimeout(() => c.end(`${JSON.stringify({ pid: process.pid })}\n`), 1500);
    });
    await new Promise<void>((r) => holder.listen(dirLockAddress(dataDir), r));
    const port = await freePort();
    const w = spawn(process.execPath, [WORKER_JS], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), ANTHROPIC_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    w.stdout.on('data', (d) => (out += d));
    w.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => w.on('exit', r));
    try {
      await new Promise((r) => setTimeout(r, 2500));
      holder.close();
      const answered = await Promise.race([exited.then(() => false), (async () => {
        for (let i = 0; i < 100; i++) {
          if (await portAnswers(port)) return true;
          await new Promise((r) => setTimeout(r, 200));
        }
        return false;
      })()]);
      assert.equal(answered, true, `the starter serves on its port instead of exiting:\n${out}`);
    } finally {
      holder.close();
      w.kill('SIGTERM');
      await exited;
    }
  });

  it('recover refuses while a worker runs, worker.pid or not', async () => {
    const dataDir = tempDir();
    const a = await startWorker({ dataDir });
    try {
      await save(a, 'x');
      fs.rmSync(path.join(dataDir, 'worker.pid'));
      const r = spawnSync(process.execPath, [WORKER_JS, 'recover'], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, new RegExp(`the worker \\(pid ${a.proc.pid}\\) is running on this data dir: stop it first`));
    } finally {
      await a.stop();
    }
  });

  it("a SIGKILLed worker's lock does not block the next start, on the same port or another", async () => {
    const dataDir = tempDir();
    const a = await startWorker({ dataDir });
    const id = await save(a, 'acknowledged before the kill');
    await a.kill('SIGKILL');
    const b = await startWorker({ dataDir, port: await freePort() });
    try {
      assert.equal((await b.req('GET', `/api/observation/${id}`)).status, 200);
    } finally {
      await b.stop();
    }
  });

  it('two workers started at once on one data dir and two ports: exactly one listens', async () => {
    const dataDir = tempDir();
    const ports = [await freePort(), await freePort()];
    const procs = ports.map((port) =>
      spawn(process.execPath, [WORKER_JS], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), ANTHROPIC_API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const outs = procs.map((p) => {
      let s = '';
      p.stdout!.on('data', (d: Buffer) => (s += d.toString()));
      p.stderr!.on('data', (d: Buffer) => (s += d.toString()));
      return () => s;
    });
    try {
      const end = Date.now() + 20_000;
      while (Date.now() < end && !outs.some((o) => /listening on/.test(o()))) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 1500)); // the other one has decided by now
      const listening = outs.filter((o) => /listening on/.test(o()));
      assert.equal(listening.length, 1, outs.map((o) => o()).join('\n----\n'));
      const answering = (await Promise.all(ports.map(portAnswers))).filter(Boolean);
      assert.equal(answering.length, 1);
    } finally {
      for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM');
      await Promise.all(procs.map((p) => (p.exitCode === null ? new Promise((r) => p.on('exit', r)) : undefined)));
    }
  });
});
