// "Remove Anthropic API Key" removes it: the bundled extension (stand-in host, test/helpers/fakeVscode.cjs)
// forks a real detached worker while a key is in SecretStorage, the worker compresses with it
// (calls counted by the fake Anthropic server on loopback), then after the command no model call
// carries that key: not in the running worker, not in one restarted from the window.
// Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { ROOT, tempDir, until } from '../helpers/worker';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const fakeVscode = require('../helpers/fakeVscode.cjs') as {
  install(o: object): { state: { commands: Map<string, (...a: unknown[]) => unknown>; log: { msg: string }[] } };
  context(p: string): { subscriptions: { dispose(): void }[]; secrets: { store(k: string, v: string): Promise<void> } };
};

const KEY = 'sk-ant-api03-removal-test-key-0123456789';
const project = tempDir('cmem-keyproj-');
const projectName = path.basename(project);
const dataDir = tempDir('cmem-keydata-');
let port = 0;
let token = '';
let fake: FakeAnthropic;
let state: ReturnType<typeof fakeVscode.install>['state'];
let ext: { activate(ctx: unknown): { services: { supervisor: { state: { kind: string; pid?: number } } } }; deactivate(): Promise<void> };
let services: ReturnType<typeof ext.activate>['services'];
let ctx: ReturnType<typeof fakeVscode.context>;
let seq = 0;

async function req<T = any>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as T };
}

/** Messages requests that carried the key (the SDK sends it as x-api-key or as a bearer token). */
const callsWithKey = () => fake.requests.filter((r) => r.path === '/v1/messages' && (r.headers['x-api-key'] === KEY || r.headers.authorization === `Bearer ${KEY}`)).length;

/** Queues one tool use and waits until the worker has worked it off (by a model or locally). */
async function observeAndSettle(): Promise<void> {
  seq += 1;
  const r = await req('POST', '/api/sessions/observations', { contentSessionId: 'key-test', cwd: project, tool_name: 'Bash', tool_input: { command: `make target${seq}` }, tool_response: `built target${seq}` });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  await until(async () => {
    const q = (await req<{ pending: number; inFlight: number }>('GET', '/api/queue')).body;
    return q.pending === 0 && q.inFlight === 0;
  }, 30_000, 'an empty queue');
}

const connected = () => until(() => (services.supervisor.state.kind === 'connected' ? services.supervisor.state : undefined), 30_000, 'connected');

before(async () => {
  fake = await startFakeAnthropic(() => text('<skip reason="test"/>'));
  port = await new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  // Inherited by the forked worker: the fake API, no key of the user's own, light and unbatched.
  process.env.CLAUDE_MEM_EMBEDDINGS = 'off';
  process.env.ANTHROPIC_BASE_URL = fake.url;
  delete process.env.ANTHROPIC_API_KEY;
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', batchMaxAgeMs: 0, batchMaxUses: 1 }));
  state = fakeVscode.install({
    folders: [project],
    settings: { 'claudeMem.worker.port': port, 'claudeMem.worker.dataDir': dataDir, 'claudeMem.worker.idleShutdownMinutes': 2, 'claudeMem.session.idleSummaryMinutes': 0 },
  }).state;
  ext = require(path.join(ROOT, 'dist', 'extension.js'));
});

after(async () => {
  const pid = services?.supervisor.state.pid;
  await ext?.deactivate();
  for (const d of ctx?.subscriptions ?? []) d.dispose();
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  await fake?.close();
});

describe('Remove Anthropic API Key', () => {
  it('a worker forked with the key in SecretStorage compresses with it', async () => {
    ctx = fakeVscode.context(ROOT);
    await ctx.secrets.store('claudeMem.anthropicApiKey', KEY);
    services = ext.activate(ctx).services;
    await connected();
    token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
    await until(async () => (await req<{ chosenBy: string }>('GET', '/api/agent/status')).body.chosenBy === 'api-key', 10_000, 'the key to reach the worker');
    await observeAndSettle();
    assert.ok(callsWithKey() >= 1, 'the model was called with the key');
  });

  it('after removal the running worker makes no call with it', async () => {
    const before = callsWithKey();
    await state.commands.get('claudeMem.clearApiKey')!();
    await observeAndSettle();
    await observeAndSettle();
    assert.equal(callsWithKey(), before, 'a model call still carried the removed key');
    const st = (await req<{ provider: { name?: string }; chosenBy: string }>('GET', '/api/agent/status')).body;
    assert.notEqual(st.chosenBy, 'api-key', JSON.stringify(st));
  });

  it('nor does a worker restarted from the window', async () => {
    const before = callsWithKey();
    const oldPid = services.supervisor.state.pid;
    await state.commands.get('claudeMem.restartWorker')!();
    const st = await connected();
    assert.notEqual(st.pid, oldPid, 'a new worker process');
    await observeAndSettle();
    assert.equal(callsWithKey(), before);
    assert.ok(!state.log.some((l) => l.msg.includes(KEY)), 'no key in the log');
    assert.ok(!fs.readdirSync(path.join(dataDir, 'logs')).some((f) => fs.readFileSync(path.join(dataDir, 'logs', f), 'utf8').includes(KEY)), 'no key in the worker logs');
  });
});
