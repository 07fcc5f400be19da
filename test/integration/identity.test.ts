// Port squatting: before the token or any data goes out, every client makes the
// process on the port prove it holds this data dir's token (GET /api/health?nonce=, answered with an
// HMAC under the token). A squatter that answers like a worker gets neither; a real worker started
// later does not take it for "already running".
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WorkerSupervisor } from '../../extension/core/supervisor';
import { IdentityError, WorkerClient } from '../../extension/workerClient';
import { CLI_JS, startWorker, tempDir, until, WORKER_JS } from '../helpers/worker';
import { startSquatter, type Squatter } from '../helpers/squatter';

/** Runs a bundle (async: the fake servers here live in this process and must keep answering). */
function runNode(script: string, args: string[], input: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
    p.stdin.end(input);
  });
}
const runCli = (args: string[], input: string, env: Record<string, string>) => runNode(CLI_JS, args, input, env);

const TOKEN = 'a'.repeat(64);

function dataDirWithToken(): string {
  const dir = tempDir('cmem-id-');
  fs.writeFileSync(path.join(dir, 'auth.token'), TOKEN, { mode: 0o600 });
  return dir;
}

function assertNothingSent(sq: Squatter): void {
  assert.ok(sq.seen.length > 0, 'the client did not even look');
  for (const r of sq.seen) {
    assert.equal(r.authorization, undefined, `the squatter received the token with ${r.method} ${r.url}`);
    assert.equal(r.body, '', `the squatter received data with ${r.method} ${r.url}`);
    assert.ok(!r.url.includes(TOKEN), `the token was in a URL: ${r.url}`);
    assert.match(`${r.method} ${r.url}`, /^GET \/api\/health/, `the squatter received ${r.method} ${r.url}`);
  }
}

describe('a squatter on the port', () => {
  let sq: Squatter;
  before(async () => {
    sq = await startSquatter();
  });
  after(() => sq.close());

  it('the hook CLI sends it neither the token nor the prompt, exits 0 and logs why', async () => {
    const dataDir = dataDirWithToken();
    const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(sq.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
    sq.seen.length = 0;
    const prompt = JSON.stringify({ session_id: 's1', cwd: dataDir, hook_event_name: 'UserPromptSubmit', prompt: 'my private prompt' });
    const r1 = await runCli(['hook', 'claude-code', 'session-init'], prompt, env);
    const tool = JSON.stringify({ session_id: 's1', cwd: dataDir, hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'cat notes' }, tool_response: { stdout: 'private output' } });
    const r2 = await runCli(['hook', 'claude-code', 'observation'], tool, env);
    for (const r of [r1, r2]) {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
    }
    assertNothingSent(sq);
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'hooks.log'), 'utf8');
    assert.match(log, /not the claude-mem worker for/);
  });

  it('the extension client refuses before sending the token or a body', async () => {
    const dataDir = dataDirWithToken();
    sq.seen.length = 0;
    const client = new WorkerClient({ host: '127.0.0.1', port: sq.port, dataDir });
    await assert.rejects(client.request('POST', '/api/sessions/init', { contentSessionId: 'x', prompt: 'my private prompt' }), (e: Error) => e instanceof IdentityError && /could not prove/.test(e.message));
    assert.equal(await client.health(), undefined);
    assert.match(client.identityProblem ?? '', /is not the claude-mem worker for/);
    assertNothingSent(sq);
  });

  it('the extension supervisor says what holds the port and forks no worker', async () => {
    const dataDir = dataDirWithToken();
    sq.seen.length = 0;
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const s = new WorkerSupervisor({ target: { host: '127.0.0.1', port: sq.port, dataDir }, workerScript: WORKER_JS, env: () => ({}), log: quiet, backoffMs: { initial: 50, max: 100 } });
    try {
      void s.start();
      const st = await until(() => (s.state.kind === 'down' ? s.state : undefined), 10_000, 'down');
      assert.match(st.error, /is not the claude-mem worker for .*set claudeMem\.worker\.port/);
      assert.deepEqual(s.forked, []);
    } finally {
      s.dispose();
    }
    assertNothingSent(sq);
  });

  it('CLI commands (search, status) send it nothing', async () => {
    const dataDir = dataDirWithToken();
    const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(sq.port) };
    sq.seen.length = 0;
    const search = await runCli(['search', 'secret words'], '', env);
    assert.notEqual(search.code, 0);
    const status = await runCli(['status'], '', env);
    assert.equal(status.code, 1);
    assert.match(status.stdout, /held by something else/);
    assertNothingSent(sq);
  });

  it('a worker started for another data dir on that port exits 1 and says what holds the port', async () => {
    const r = await runNode(WORKER_JS, [], '', { CLAUDE_MEM_DATA_DIR: tempDir(), CLAUDE_MEM_WORKER_PORT: String(sq.port) });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /already running/);
    assert.match(r.stderr, new RegExp(`port ${sq.port} is in use by a process answering as claude-mem-vscode \\(pid 4242`));
  });
});

describe('a real worker', () => {
  it('proves itself: clients work, the proof is cached 0600 for later hooks and dropped at stop', async () => {
    const w = await startWorker();
    try {
      const client = new WorkerClient({ host: '127.0.0.1', port: w.port, dataDir: w.dataDir });
      assert.equal((await client.request('GET', '/api/stats')).status, 200);
      const env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
      const status = await runCli(['status'], '', env);
      assert.equal(status.code, 0, status.stderr);
      const cache = path.join(w.dataDir, 'worker.proof');
      assert.equal(fs.statSync(cache).mode & 0o777, 0o600);
      assert.equal(JSON.parse(fs.readFileSync(cache, 'utf8')).pid, w.proc.pid);
      const prompt = JSON.stringify({ session_id: 's2', cwd: w.dataDir, hook_event_name: 'UserPromptSubmit', prompt: 'hello there' });
      const r = await runCli(['hook', 'claude-code', 'session-init'], prompt, env);
      assert.equal(r.code, 0, r.stderr);
      const sessions = (await w.req('GET', '/api/stats')).body.sessions;
      assert.equal(sessions, 1);
      // A health probe with a bad nonce is a clear 400; without a nonce there is no proof.
      assert.equal((await fetch(`${w.url}/api/health?nonce=x`)).status, 400);
      assert.equal((await (await fetch(`${w.url}/api/health`)).json()).proof, undefined);
    } finally {
      await w.stop();
    }
    assert.ok(!fs.existsSync(path.join(w.dataDir, 'worker.proof')), 'the worker dropped the proof cache when it stopped');
  });
});
