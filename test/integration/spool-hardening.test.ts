// The spool only ever opens regular files it did not follow a link to, writes answers with
// exclusive create, and takes plain paths under /api/; nothing in it blocks the worker. HTTP request
// paths are held to the same rule, and a hook never blocks on a FIFO as transcript_path.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_JS, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

let seq = 0;
const newId = () => `test${process.pid.toString(36)}-${Date.now().toString(36)}-${(seq++).toString(36)}`;

function mkfifo(file: string): void {
  const r = spawnSync('mkfifo', [file]);
  assert.equal(r.status, 0, String(r.stderr));
}

/** Drops a request the way a hook does (tmp, then rename to .req). */
function drop(dir: string, id: string, req: unknown): void {
  fs.writeFileSync(path.join(dir, `${id}.tmp`), JSON.stringify(req), { mode: 0o600 });
  fs.renameSync(path.join(dir, `${id}.tmp`), path.join(dir, `${id}.req`));
}

async function answerOf(dir: string, id: string): Promise<{ status: number; body: string }> {
  const file = path.join(dir, `${id}.res`);
  await until(() => fs.existsSync(file), 10_000, `${id}.res`);
  assert.ok(fs.lstatSync(file).isFile(), 'the answer is a regular file');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { status: number; body: string };
}

/** A raw HTTP request: the path goes out exactly as given (no URL parser on this side). */
function rawRequest(port: number, token: string, method: string, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p, headers: { authorization: `Bearer ${token}` }, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${p} did not answer in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

async function healthy(w: RunningWorker): Promise<void> {
  const r = await fetch(`${w.url}/api/health`, { signal: AbortSignal.timeout(2000) });
  assert.equal(r.status, 200);
}

describe('spool hardening', () => {
  let w: RunningWorker;
  let spool: string;
  before(async () => {
    w = await startWorker();
    spool = path.join(w.dataDir, 'spool');
  });
  after(() => w.stop());

  it('a planted <id>.res-tmp symlink is not written through: the victim is untouched', async () => {
    const victim = path.join(tempDir(), 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const id = newId();
    fs.symlinkSync(victim, path.join(spool, `${id}.res-tmp`));
    drop(spool, id, { v: 1, method: 'GET', path: '/api/stats' });
    const res = await answerOf(spool, id);
    assert.equal(res.status, 200);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
  });

  it('a FIFO as <id>.req is refused at once and the worker keeps answering', async () => {
    const id = newId();
    mkfifo(path.join(spool, `${id}.tmp`));
    fs.renameSync(path.join(spool, `${id}.tmp`), path.join(spool, `${id}.req`));
    const res = await answerOf(spool, id);
    assert.equal(res.status, 400);
    assert.match(res.body, /not a regular file/);
    await healthy(w);
    await until(() => !fs.existsSync(path.join(spool, `${id}.work`)), 5000, 'the .work gone');
  });

  it('a symlink to /dev/zero is refused without reading it', async () => {
    const id = newId();
    fs.symlinkSync('/dev/zero', path.join(spool, `${id}.req`));
    const res = await answerOf(spool, id);
    assert.equal(res.status, 400);
    assert.match(res.body, /symbolic link/);
    await healthy(w);
  });

  it('a symlinked request outside the data dir is not executed', async () => {
    const outside = path.join(tempDir(), 'req.json');
    fs.writeFileSync(outside, JSON.stringify({ v: 1, method: 'POST', path: '/api/memory/save', body: JSON.stringify({ text: 'planted through a link', project: 'planted' }) }));
    const id = newId();
    fs.symlinkSync(outside, path.join(spool, `${id}.req`));
    const res = await answerOf(spool, id);
    assert.equal(res.status, 400);
    const projects = (await w.req('GET', '/api/projects')).body.projects as { name: string }[];
    assert.ok(!projects.some((p) => p.name === 'planted'), JSON.stringify(projects));
  });

  for (const p of ['/api/%2e%2e/api/stats', '/api/..\\', '/api/%2e%2e/stream', '/api/%2E%2e/', '/api/.%2e/api/projects']) {
    it(`the spool refuses ${p} and leaves no .work behind`, async () => {
      const id = newId();
      drop(spool, id, { v: 1, method: 'GET', path: p });
      const res = await answerOf(spool, id);
      assert.equal(res.status, 400, res.body);
      assert.ok(!fs.existsSync(path.join(spool, `${id}.work`)));
    });

    it(`HTTP refuses ${p} with a 400 (it does not reach another route)`, async () => {
      const r = await rawRequest(w.port, w.token, 'GET', p);
      assert.equal(r.status, 400, r.body);
      // Node's HTTP parser refuses a backslash itself (an empty 400); the rest reach the worker's check.
      if (!p.includes('\\')) assert.match(JSON.parse(r.body).error, /request path is not plain/);
    });
  }

  it('the summarize hook does not block on a FIFO as transcript_path', async () => {
    const fifo = path.join(tempDir(), 'transcript.jsonl');
    mkfifo(fifo);
    const input = { session_id: 'fifo-session', cwd: tempDir(), hook_event_name: 'Stop', transcript_path: fifo, stop_hook_active: false };
    const t0 = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [CLI_JS, 'hook', 'claude-code', 'summarize'], {
        env: { ...process.env, CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
      child.stdin.end(JSON.stringify(input));
    });
    assert.equal(code, 0, `the hook was killed after ${Date.now() - t0} ms (blocked on the FIFO)`);
  });
});

describe('spool start-up', () => {
  it('a FIFO left as <id>.work does not block the start, and is cleared', async () => {
    const dataDir = tempDir();
    fs.mkdirSync(path.join(dataDir, 'spool'), { mode: 0o700 });
    const id = newId();
    mkfifo(path.join(dataDir, 'spool', `${id}.work`));
    const w = await startWorker({ dataDir });
    try {
      await healthy(w);
      await until(() => !fs.existsSync(path.join(dataDir, 'spool', `${id}.work`)), 5000, 'the FIFO cleared');
    } finally {
      await w.stop();
    }
  });
});
