// The hook spool (common/spool.ts): hooks on the worker's machine hand their requests over as files,
// so a hook loads no node:net and opens no connection (the 1.4x wall-time bar of bench/hooks.mjs). Real worker,
// real hook subprocesses, real data dirs: what is stored, what a hook loads, what is left behind,
// and the ways it must fail soft (a stale lock, a crashed worker's claimed request, bad files).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExportDocument } from '../../worker/transfer';
import { CLI_JS, ROOT, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'claude-code-hooks', 'PostToolUse.json');

/** Writes the builtins a process loaded to MODS_OUT when it exits. */
const PRELOAD = path.join(tempDir('spool-preload-'), 'mods.cjs');
fs.writeFileSync(PRELOAD, "process.on('exit', () => require('fs').writeFileSync(process.env.MODS_OUT, process.moduleLoadList.join('\\n')));\n");

function postToolUse(project: string, session: string, toolUseId: string): string {
  return fs
    .readFileSync(FIXTURE, 'utf8')
    .split('{{PROJECT_DIR}}').join(project)
    .split('{{HOME}}').join(project)
    .split('{{PROJECT_SLUG}}').join('slug')
    .split('{{SESSION_ID}}').join(session)
    .split('{{PROMPT_ID}}').join('prompt-1')
    .split('toolu_fake0000').join(toolUseId);
}

/** Runs the observation hook; returns its exit, stdout, and the builtins it loaded. */
function observe(input: string, env: Record<string, string>) {
  const modsOut = path.join(tempDir('spool-mods-'), 'mods.txt');
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['-r', PRELOAD, CLI_JS, 'hook', 'claude-code', 'observation'], {
    input,
    env: { ...process.env, CLAUDE_MEM_HOOK_LOG_LEVEL: 'info', MODS_OUT: modsOut, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const mods = fs.existsSync(modsOut) ? fs.readFileSync(modsOut, 'utf8').split('\n') : [];
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0, loadedNet: mods.includes('NativeModule net') };
}

const spoolFiles = (dataDir: string) => (fs.existsSync(path.join(dataDir, 'spool')) ? fs.readdirSync(path.join(dataDir, 'spool')) : []);

describe('hook spool against a real worker', () => {
  let w: RunningWorker;
  let project: string;
  let env: Record<string, string>;
  const observationsOf = async (sid: string) => {
    const doc = (await w.req<ExportDocument>('GET', `/api/export?project=${encodeURIComponent(path.basename(project))}`)).body;
    return doc.sessions.find((s) => s.contentSessionId === sid)?.observations ?? [];
  };

  before(async () => {
    w = await startWorker();
    project = path.join(fs.realpathSync(tempDir('spool-')), 'spool-project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'notes.txt'), 'The mascot is a zebra.\n');
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await w?.stop();
  });

  it('the worker advertises the spool in its lock, in a directory only the user can open', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(w.dataDir, 'worker.pid'), 'utf8'));
    assert.equal(lock.spool, true);
    assert.equal(lock.port, w.port);
    if (process.platform !== 'win32') assert.equal(fs.statSync(path.join(w.dataDir, 'spool')).mode & 0o777, 0o700);
  });

  it('an observation hook stores through the spool without loading node:net, and leaves nothing behind', async () => {
    const r = observe(postToolUse(project, 'sess-spool', 'toolu_spool1'), env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{}');
    assert.equal(r.loadedNet, false, 'the hook loaded node:net: it did not use the spool');
    const obs = await until(async () => {
      const o = await observationsOf('sess-spool');
      return o.length > 0 ? o : undefined;
    }, 20_000, 'observation through the spool');
    assert.equal(obs[0].toolName, 'Read');
    await until(() => spoolFiles(w.dataDir).length === 0, 5_000, 'an empty spool');
  });

  it('the same hook over TCP (CLAUDE_MEM_HOOK_TRANSPORT=tcp) loads node:net and stores the same', async () => {
    const r = observe(postToolUse(project, 'sess-tcp', 'toolu_tcp1'), { ...env, CLAUDE_MEM_HOOK_TRANSPORT: 'tcp' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.loadedNet, true);
    await until(async () => (await observationsOf('sess-tcp')).length > 0, 20_000, 'observation over TCP');
  });

  it('the same tool use sent through both carriers is stored once', async () => {
    const input = postToolUse(project, 'sess-both', 'toolu_both1');
    assert.equal(observe(input, env).code, 0);
    assert.equal(observe(input, { ...env, CLAUDE_MEM_HOOK_TRANSPORT: 'tcp' }).code, 0);
    await until(async () => (await observationsOf('sess-both')).length > 0, 20_000, 'observation');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await observationsOf('sess-both')).length, 1);
  });

  it('malformed request files are answered 400 and store nothing; a path outside /api/ is refused', async () => {
    const dir = path.join(w.dataDir, 'spool');
    const cases: Array<[string, string]> = [
      ['zz-bad-1', 'not json'],
      ['zz-bad-2', JSON.stringify({ v: 1, method: 'GET', path: '/viewer' })],
      ['zz-bad-3', JSON.stringify({ v: 1, method: 'GET', path: '/api/../viewer' })],
      ['zz-bad-4', JSON.stringify({ v: 1, method: 'PATCH', path: '/api/health' })],
    ];
    for (const [id, text] of cases) {
      fs.writeFileSync(path.join(dir, `${id}.tmp`), text, { mode: 0o600 });
      fs.renameSync(path.join(dir, `${id}.tmp`), path.join(dir, `${id}.req`));
    }
    for (const [id] of cases) {
      const res = await until(() => fs.existsSync(path.join(dir, `${id}.res`)) && JSON.parse(fs.readFileSync(path.join(dir, `${id}.res`), 'utf8')), 5_000, `answer to ${id}`);
      assert.equal(res.status, 400, `${id}: ${res.body}`);
      fs.unlinkSync(path.join(dir, `${id}.res`));
    }
    // Handed over at the claim: no answer file; a refusal goes to the worker's log, nothing is stored.
    const refused = { contentSessionId: 'sess-ack-bad', tool_name: '<private>x</private>', cwd: project };
    fs.writeFileSync(path.join(dir, 'zz-ack-1.tmp'), JSON.stringify({ v: 1, method: 'POST', path: '/api/sessions/observations', body: JSON.stringify(refused), ack: 'claim' }), { mode: 0o600 });
    fs.renameSync(path.join(dir, 'zz-ack-1.tmp'), path.join(dir, 'zz-ack-1.req'));
    await until(() => !spoolFiles(w.dataDir).some((f) => f.startsWith('zz-ack-1')), 5_000, 'the claimed request answered');
    const workerLog = () => (fs.existsSync(path.join(w.dataDir, 'logs', 'worker.log')) ? fs.readFileSync(path.join(w.dataDir, 'logs', 'worker.log'), 'utf8') : '');
    await until(() => /ERROR .*handed over at the claim\) answered 400: .*tool_name/.test(workerLog()), 5_000, 'the refusal in the worker log');
    assert.equal(await observationsOf('sess-ack-bad').then((o) => o.length), 0);
    // A well-formed request gets the route's own answer, with the worker's own credentials.
    fs.writeFileSync(path.join(dir, 'zz-ok-1.tmp'), JSON.stringify({ v: 1, method: 'GET', path: '/api/stats' }), { mode: 0o600 });
    fs.renameSync(path.join(dir, 'zz-ok-1.tmp'), path.join(dir, 'zz-ok-1.req'));
    const ok = await until(() => fs.existsSync(path.join(dir, 'zz-ok-1.res')) && JSON.parse(fs.readFileSync(path.join(dir, 'zz-ok-1.res'), 'utf8')), 5_000, 'answer');
    assert.equal(ok.status, 200, ok.body);
    fs.unlinkSync(path.join(dir, 'zz-ok-1.res'));
  });
});

describe('hook spool failing soft', () => {
  it('a stale lock (a live process that is not a worker) costs a moment: the request is taken back and nothing is left', async () => {
    const dataDir = tempDir('spool-stale-');
    fs.mkdirSync(path.join(dataDir, 'spool'), { mode: 0o700 });
    // This test process is alive and serves no spool; port 1 has no listener.
    fs.writeFileSync(path.join(dataDir, 'worker.pid'), JSON.stringify({ pid: process.pid, port: 1, startedAt: Date.now(), spool: true }));
    const r = observe(postToolUse(dataDir, 'sess-stale', 'toolu_stale'), { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{}');
    assert.ok(r.ms < 15_000, `the hook took ${r.ms} ms`);
    assert.deepEqual(spoolFiles(dataDir), [], 'the request was taken back');
    assert.match(fs.readFileSync(path.join(dataDir, 'logs', 'hooks.log'), 'utf8'), /worker unreachable/);
  });

  it('an observation hook stops waiting once its request is claimed: the claim is the hand-off', async () => {
    const dataDir = tempDir('spool-claim-');
    const dir = path.join(dataDir, 'spool');
    fs.mkdirSync(dir, { mode: 0o700 });
    // A claimer that takes every request (as a worker does first) and never answers: a hook that
    // waited for the answer would time out and log it.
    const claimer = spawn(process.execPath, ['-e', `const fs=require('fs');const d=${JSON.stringify(dir)};fs.watch(d,(e,n)=>{n=String(n);if(n.endsWith('.req'))try{fs.renameSync(d+'/'+n,d+'/'+n.slice(0,-4)+'.work')}catch{}});setInterval(()=>{},1000)`], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      fs.writeFileSync(path.join(dataDir, 'worker.pid'), JSON.stringify({ pid: claimer.pid, port: 1, startedAt: Date.now(), spool: true }));
      const r = observe(postToolUse(dataDir, 'sess-claim', 'toolu_claim'), { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{}');
      const log = fs.existsSync(path.join(dataDir, 'logs', 'hooks.log')) ? fs.readFileSync(path.join(dataDir, 'logs', 'hooks.log'), 'utf8') : '';
      assert.doesNotMatch(log, /timed out|unreachable/);
      const [work] = spoolFiles(dataDir);
      assert.match(work ?? '', /\.work$/, 'the claimed request stays for the worker (or the next one) to answer');
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, work), 'utf8')).ack, 'claim');
    } finally {
      claimer.kill();
    }
  });

  it('a request that breaks the contract is refused by the hook before it is handed over: exit 1, nothing left in the spool', async () => {
    const dataDir = tempDir('spool-refuse-');
    fs.mkdirSync(path.join(dataDir, 'spool'), { mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, 'worker.pid'), JSON.stringify({ pid: process.pid, port: 1, startedAt: Date.now(), spool: true }));
    const input = JSON.parse(postToolUse(dataDir, 'sess-refuse', 'toolu_refuse'));
    input.tool_name = 'T'.repeat(300);
    const r = observe(JSON.stringify(input), { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused with 400.*tool_name/);
    assert.deepEqual(spoolFiles(dataDir), []);
  });

  it('a request a worker claimed and never answered (it died) is answered by the next worker', async () => {
    const dataDir = tempDir('spool-crash-');
    const project = path.join(fs.realpathSync(dataDir), 'crash-project');
    fs.mkdirSync(project);
    fs.mkdirSync(path.join(dataDir, 'spool'), { mode: 0o700 });
    const input = JSON.parse(postToolUse(project, 'sess-crash', 'toolu_crash'));
    // What the hook sends for this input, claimed (renamed to .work) by a worker that then died.
    const body = {
      contentSessionId: 'sess-crash',
      cwd: project,
      platform: 'claude-code',
      tool_name: input.tool_name,
      tool_input: input.tool_input,
      tool_response: input.tool_response,
      tool_use_id: 'toolu_crash',
    };
    fs.writeFileSync(path.join(dataDir, 'spool', 'dead-0-0.work'), JSON.stringify({ v: 1, method: 'POST', path: '/api/sessions/observations', body: JSON.stringify(body) }), { mode: 0o600 });
    const w = await startWorker({ dataDir });
    try {
      await until(() => fs.existsSync(path.join(dataDir, 'spool', 'dead-0-0.res')), 10_000, 'the answer to the orphaned request');
      const res = JSON.parse(fs.readFileSync(path.join(dataDir, 'spool', 'dead-0-0.res'), 'utf8'));
      assert.ok(res.status >= 200 && res.status < 300, res.body);
      // The worker renames the answer into place, then removes the claim: two steps another process can see between.
      await until(() => !fs.existsSync(path.join(dataDir, 'spool', 'dead-0-0.work')), 10_000, 'the claim removed once answered');
      const doc = (await w.req<ExportDocument>('GET', `/api/export?project=crash-project`)).body;
      assert.equal(doc.sessions.find((s) => s.contentSessionId === 'sess-crash')?.observations.length, 1);
    } finally {
      await w.stop();
    }
    // A graceful stop says so in the lock before it goes: hooks use TCP (and find no worker).
    assert.equal(fs.existsSync(path.join(dataDir, 'worker.pid')), false);
  });
});
