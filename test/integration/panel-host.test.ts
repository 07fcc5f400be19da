// The host side of the panel: PanelHost handling the page's real messages, against a real worker
// (dist/worker.js) through the extension's WorkerClient. The vscode parts (posting to the webview,
// opening files, running commands) are the deps, recorded here.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { candidatePaths, PanelHost, type CaptureState, type PanelHostDeps, type PanelWorkerClient } from '../../extension/panel/host';
import type { HostMessage } from '../../common/contract';
import { WorkerClient } from '../../extension/workerClient';
import { startWorker, until, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
let client: WorkerClient;

before(async () => {
  w = await startWorker();
  client = new WorkerClient({ host: '127.0.0.1', port: w.port, dataDir: w.dataDir });
});
after(async () => {
  await w.stop();
});

interface Rig {
  host: PanelHost;
  posted: HostMessage[];
  warnings: string[];
  errors: string[];
  opened: unknown[][];
  commands: string[];
  calls: string[];
  reply(id: number): Promise<Extract<HostMessage, { type: 'reply' }>>;
}

function rig(over: Partial<PanelHostDeps> = {}, c: PanelWorkerClient | undefined = client): Rig {
  const posted: HostMessage[] = [];
  const warnings: string[] = [];
  const errors: string[] = [];
  const opened: unknown[][] = [];
  const commands: string[] = [];
  const calls: string[] = [];
  // Counts worker calls, passing them to the real client.
  const counting: PanelWorkerClient | undefined = c && {
    request: (method, p, body, t) => {
      calls.push(`${method} ${p}`);
      return c.request(method, p, body, t);
    },
    subscribe: (onEvent, onState) => c.subscribe(onEvent, onState),
  };
  const host = new PanelHost({
    client: () => counting,
    post: (m) => posted.push(JSON.parse(JSON.stringify(m)) as HostMessage),
    openFile: async (...a) => void opened.push(a),
    executeCommand: async (id) => {
      commands.push(id);
      return undefined;
    },
    showError: (m) => errors.push(m),
    log: { warn: (m) => warnings.push(m) },
    capabilities: { openFiles: true, pauseCapture: true },
    pollMs: 50,
    ...over,
  });
  return {
    host,
    posted,
    warnings,
    errors,
    opened,
    commands,
    calls,
    reply: (id) => until(() => posted.find((m): m is Extract<HostMessage, { type: 'reply' }> => m.type === 'reply' && m.id === id), 10_000, `reply ${id}`),
  };
}

describe('PanelHost', () => {
  it('answers ready with hello and relays the live stream', async () => {
    const r = rig({ project: () => 'alpha' });
    await r.host.handle({ type: 'ready' });
    assert.deepEqual(r.posted[0], { type: 'hello', capabilities: { openFiles: true, pauseCapture: true }, project: 'alpha' });
    await until(() => r.posted.some((m) => m.type === 'connection' && m.state === 'connected'), 10_000, 'connected');
    const saved = await w.req('POST', '/api/memory/save', { text: 'relay me', project: 'alpha' });
    const e = await until(() => r.posted.find((m) => m.type === 'event' && m.event.event === 'new_observation' && m.event.data.id === saved.body.id), 10_000, 'relayed event');
    assert.deepEqual(e, { type: 'event', event: { event: 'new_observation', data: { id: saved.body.id, project: 'alpha', type: 'discovery', title: 'relay me', source: 'manual' } } });
    r.host.dispose();
    const n = r.posted.length;
    await w.req('POST', '/api/memory/save', { text: 'not relayed after dispose', project: 'alpha' });
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(r.posted.length, n, 'nothing posted after dispose');
  });

  it('carries out operations with the worker and replies with its answer', async () => {
    const r = rig();
    const saved = await w.req('POST', '/api/memory/save', { text: 'to be read', project: 'p-host' });
    await r.host.handle({ type: 'request', id: 1, op: 'observation', params: { id: saved.body.id } });
    const ok = await r.reply(1);
    assert.equal(ok.ok, true);
    assert.equal((ok as { result: { title: string } }).result.title, 'to be read');

    await r.host.handle({ type: 'request', id: 2, op: 'observations', params: { project: 'p-host', limit: 10 } });
    const list = await r.reply(2);
    assert.equal(list.ok && (list.result as { items: unknown[] }).items.length, 1);

    await r.host.handle({ type: 'request', id: 3, op: 'deleteObservation', params: { id: saved.body.id } });
    assert.deepEqual(await r.reply(3), { type: 'reply', id: 3, ok: true, result: { deleted: saved.body.id } });
    assert.equal((await w.req('GET', `/api/observation/${saved.body.id}`)).status, 404);

    await r.host.handle({ type: 'request', id: 4, op: 'deleteObservation', params: { id: saved.body.id } });
    assert.deepEqual(await r.reply(4), { type: 'reply', id: 4, ok: false, status: 404, error: 'no such observation' });

    await r.host.handle({ type: 'request', id: 5, op: 'saveMemory', params: { text: 'via host', title: 'Host memory', project: 'p-host' } });
    const s = await r.reply(5);
    assert.equal(s.ok, true);
    assert.equal((s as { result: { project: string } }).result.project, 'p-host');
    assert.deepEqual(r.calls, ['GET /api/observation/' + saved.body.id, 'GET /api/observations?project=p-host&limit=10', `DELETE /api/observation/${saved.body.id}`, `DELETE /api/observation/${saved.body.id}`, 'POST /api/memory/save']);
    r.host.dispose();
  });

  it('answers bad parameters itself and ignores malformed messages', async () => {
    const r = rig();
    await r.host.handle({ type: 'request', id: 7, op: 'observation', params: { id: 'DROP TABLE' } });
    assert.deepEqual(await r.reply(7), { type: 'reply', id: 7, ok: false, status: 400, error: 'id must be an integer from 1 to 9007199254740991' });
    await r.host.handle({ type: 'request', id: 8, op: 'forgetProject', params: {} });
    assert.equal((await r.reply(8)).ok, false);
    for (const junk of [null, 'ready', { type: 'request', id: 9, op: 'shell', params: { cmd: 'rm -rf /' } }, { type: 'openFile', path: '\u0000' }, { type: 'nope' }]) await r.host.handle(junk);
    assert.deepEqual(r.calls, [], 'the worker was never called');
    assert.equal(r.warnings.length, 5);
    assert.equal(r.posted.filter((m) => m.type === 'reply' && m.id === 9).length, 0);
    r.host.dispose();
  });

  it('says when there is no worker, and connects when one appears', async () => {
    let current: WorkerClient | undefined;
    const r = rig({ client: () => current });
    await r.host.handle({ type: 'ready' });
    await r.host.handle({ type: 'request', id: 1, op: 'stats', params: {} });
    const reply = await r.reply(1);
    assert.equal(reply.ok, false);
    assert.equal((reply as { status: number }).status, 503);
    assert.match((reply as { error: string }).error, /not running/);
    assert.ok(r.posted.some((m) => m.type === 'connection' && m.state === 'no-worker' && /Restart Worker/.test(m.detail ?? '')));
    current = client;
    await until(() => r.posted.some((m) => m.type === 'connection' && m.state === 'connected'), 10_000, 'connected once the worker is there');
    r.host.dispose();
  });

  it('reports a worker that does not answer as a 503', async () => {
    const dead = new WorkerClient({ host: '127.0.0.1', port: 9, dataDir: w.dataDir });
    const r = rig({}, dead);
    await r.host.handle({ type: 'request', id: 1, op: 'projects', params: {} });
    const reply = await r.reply(1);
    assert.equal((reply as { status: number }).status, 503);
    assert.match((reply as { error: string }).error, /Could not reach the memory worker/);
    r.host.dispose();
  });

  it('runs claudeMem.toggleCapture for the page and reports the state it gets', async () => {
    let paused = false;
    const listeners: ((p: boolean) => void)[] = [];
    const capture: CaptureState = {
      isPaused: () => paused,
      onDidChange: (l) => {
        listeners.push(l);
        return { dispose: () => undefined };
      },
    };
    const commands: string[] = [];
    const r = rig({
      capture,
      executeCommand: async (id) => {
        commands.push(id);
        paused = !paused;
        for (const l of listeners) l(paused);
        return undefined;
      },
    });
    await r.host.handle({ type: 'ready' });
    assert.deepEqual(r.posted[0], { type: 'hello', capabilities: { openFiles: true, pauseCapture: true }, capturePaused: false });
    await r.host.handle({ type: 'toggleCapture' });
    assert.deepEqual(commands, ['claudeMem.toggleCapture']);
    assert.ok(r.posted.some((m) => m.type === 'capture' && m.paused === true));

    // A command that answers the state itself; and one that is missing.
    const r2 = rig({ executeCommand: async () => ({ paused: true }) });
    await r2.host.handle({ type: 'toggleCapture' });
    assert.deepEqual(r2.posted, [{ type: 'capture', paused: true }]);
    const r3 = rig({ executeCommand: async () => Promise.reject(new Error("command 'claudeMem.toggleCapture' not found")) });
    await r3.host.handle({ type: 'toggleCapture' });
    assert.match(r3.errors[0], /not found/);
    for (const x of [r, r2, r3]) x.host.dispose();
  });

  it('asks the editor to open files named by observations', async () => {
    const r = rig();
    await r.host.handle({ type: 'openFile', path: 'src/auth/login.ts', line: 3, project: 'alpha' });
    assert.deepEqual(r.opened, [['src/auth/login.ts', 3, 'alpha']]);
    const r2 = rig({ openFile: async () => Promise.reject(new Error('gone')) });
    await r2.host.handle({ type: 'openFile', path: 'x.ts' });
    assert.match(r2.errors[0], /Could not open x.ts: gone/);
    r.host.dispose();
    r2.host.dispose();
  });
});

describe('candidatePaths', () => {
  it('keeps absolute paths and resolves relative ones under each workspace folder', () => {
    assert.deepEqual(candidatePaths('/abs/a.ts', ['/w1'], path.posix.join, path.posix.isAbsolute), ['/abs/a.ts']);
    assert.deepEqual(candidatePaths('./src/a.ts', ['/w1', '/w2'], path.posix.join, path.posix.isAbsolute), ['/w1/src/a.ts', '/w2/src/a.ts']);
    assert.deepEqual(candidatePaths('src/a.ts', [], path.posix.join, path.posix.isAbsolute), []);
  });
});
