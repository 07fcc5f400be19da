import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI_JS, startWorker, tempDir, WORKER_JS } from '../helpers/worker';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function runNode(args: string[], env: Record<string, string>, timeoutMs = 30_000) {
  return spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: timeoutMs });
}

describe('one writer per data dir', () => {
  it('a second worker on the same data dir exits 0 and points at the first', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    try {
      const r = runNode([WORKER_JS], { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`already running \\(pid ${w.proc.pid}\\)`));
    } finally {
      await w.stop();
    }
  });

  it('a second worker for another data dir on the same port exits 1 and says what holds the port', async () => {
    const port = await freePort();
    const w = await startWorker({ port });
    try {
      const r = runNode([WORKER_JS], { CLAUDE_MEM_DATA_DIR: tempDir(), CLAUDE_MEM_WORKER_PORT: String(port) });
      // Not "already running": that worker serves another data dir (it cannot prove our token).
      assert.equal(r.status, 1, r.stderr);
      assert.doesNotMatch(r.stdout, /already running/);
      assert.match(r.stderr, new RegExp(`port ${port} is in use by a process answering as claude-mem-vscode \\(pid ${w.proc.pid}`));
    } finally {
      await w.stop();
    }
  });

  it('a lock left by a crashed worker is recovered', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    await w.kill('SIGKILL');
    assert.ok(fs.existsSync(path.join(dataDir, 'worker.pid')), 'the crashed worker left its lock');
    const w2 = await startWorker({ dataDir });
    assert.equal((await w2.req('GET', '/api/health')).status, 200);
    await w2.stop();
  });

  it('refuses a non-loopback bind unless allowed', () => {
    const r = runNode([WORKER_JS], { CLAUDE_MEM_DATA_DIR: tempDir(), CLAUDE_MEM_WORKER_PORT: '0', CLAUDE_MEM_WORKER_HOST: '0.0.0.0' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /refusing to bind/);
  });

  it('creates the token 0600 and the data dir 0700', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    await w.stop();
    assert.equal(fs.statSync(path.join(dataDir, 'auth.token')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(dataDir).mode & 0o777, 0o700);
  });
});

describe('idle shutdown', () => {
  it('a worker with no clients shuts itself down after the idle time, leaving its journal and no temp file', () => {
    const dataDir = tempDir();
    const r = runNode([WORKER_JS], { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', CLAUDE_MEM_IDLE_SHUTDOWN_MS: '1500' }, 60_000);
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8'), /shutting down: idle/);
    const db = fs.readdirSync(path.join(dataDir, 'db'));
    assert.ok(db.some((n) => n.startsWith('journal-')) && !db.some((n) => n.includes('.tmp-')), db.join(' '));
  });
});

describe('cli start | status | stop', () => {
  it('starts detached, reports status, stops gracefully (the journal holds every write)', async () => {
    const dataDir = tempDir();
    const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(await freePort()) };
    assert.equal(runNode([CLI_JS, 'status'], env).status, 1);
    const start = runNode([CLI_JS, 'start'], env);
    assert.equal(start.status, 0, start.stderr);
    assert.match(start.stdout, /started at http:\/\/127\.0\.0\.1:\d+/);
    const again = runNode([CLI_JS, 'start'], env);
    assert.match(again.stdout, /already running/);
    const status = runNode([CLI_JS, 'status'], env);
    assert.equal(status.status, 0);
    assert.match(status.stdout, /running at/);
    const stop = runNode([CLI_JS, 'stop'], env);
    assert.equal(stop.status, 0, stop.stderr);
    assert.match(stop.stdout, /stopped/);
    const db = fs.readdirSync(path.join(dataDir, 'db'));
    assert.ok(db.some((n) => n.startsWith('journal-')) && !db.some((n) => n.includes('.tmp-')), db.join(' '));
    assert.equal(runNode([CLI_JS, 'status'], env).status, 1);
  });

  it('unknown commands fail with usage', () => {
    const r = runNode([CLI_JS, 'frobnicate'], {});
    assert.equal(r.status, 2);
    assert.match(r.stderr, /usage: claude-mem/);
  });
});

