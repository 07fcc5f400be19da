// The extension's vscode-free core against the real worker (dist/worker.js): worker reused when
// running, forked when not, restarted when killed; every capture kind posted and stored; the
// @memory handler and the language-model tools answering from stored memory with a scripted model;
// the window serving the worker's `vscode` compression jobs. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Capture, DEFAULT_CAPTURE, folderLookup } from '../../extension/core/capture';
import { CompressionServer, type LmPort } from '../../extension/core/compressionServer';
import { Exclusions } from '../../extension/core/exclusions';
import { MemoryApi } from '../../extension/core/memoryApi';
import { QueuedPoster } from '../../extension/core/poster';
import { SessionTracker } from '../../extension/core/session';
import { WorkerSupervisor, type WorkerState } from '../../extension/core/supervisor';
import { handleChat, type ChatModelPort, type ChatMsg } from '../../extension/chat/handler';
import { TOOLS } from '../../extension/tools/index';
import type { Observation } from '../../common/contract';
import { processAlive as alive } from '../../common/node/identity';
import { startWorker, tempDir, until, WORKER_JS, type RunningWorker } from '../helpers/worker';

const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const cleanup: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function supervisorFor(port: number, dataDir: string, env: Record<string, string> = {}): WorkerSupervisor {
  const s = new WorkerSupervisor({
    target: { host: '127.0.0.1', port, dataDir },
    workerScript: WORKER_JS,
    env: () => ({ ANTHROPIC_API_KEY: '', CLAUDE_MEM_PROVIDER: 'local', CLAUDE_MEM_EMBEDDINGS: 'off', ...env }),
    log,
    backoffMs: { initial: 100, max: 1000 },
    pollMs: 500,
  });
  cleanup.push(async () => {
    s.dispose();
    for (const pid of s.forked) {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      await until(() => !alive(pid), 15_000, `forked worker ${pid} to stop`).catch(() => process.kill(pid, 'SIGKILL'));
    }
  });
  return s;
}

const connected = (s: WorkerSupervisor): Promise<Extract<WorkerState, { kind: 'connected' }>> =>
  until(() => (s.state.kind === 'connected' ? s.state : undefined), 30_000, 'worker connected');

describe('worker supervisor', () => {
  it('reuses a worker that is already running, and forks none', async () => {
    const w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
    cleanup.push(() => void w.stop());
    const s = supervisorFor(w.port, w.dataDir);
    await s.start();
    const st = await connected(s);
    assert.equal(st.pid, w.proc.pid);
    assert.equal(st.owned, false);
    assert.deepEqual(s.forked, []);
  });

  it('forks a worker when none runs, and a second window reuses it', async () => {
    const port = await freePort();
    const dataDir = tempDir('cmem-ext-');
    const a = supervisorFor(port, dataDir);
    await a.start();
    const st = await connected(a);
    assert.equal(st.owned, true);
    assert.equal(a.forked.length, 1);
    assert.equal(st.pid, a.forked[0]);
    assert.ok(fs.existsSync(path.join(dataDir, 'auth.token')));
    const b = supervisorFor(port, dataDir);
    await b.start();
    const stB = await connected(b);
    assert.equal(stB.pid, st.pid);
    assert.equal(stB.owned, false);
    assert.deepEqual(b.forked, []);
    // Disposing the window leaves the worker running for the other.
    a.dispose();
    assert.ok(alive(st.pid));
    assert.ok(await b.client.health());
  });

  it('restarts a killed worker, with the same data and token file', async () => {
    const port = await freePort();
    const dataDir = tempDir('cmem-ext-');
    const s = supervisorFor(port, dataDir);
    const states: string[] = [];
    s.onState((st) => states.push(st.kind));
    await s.start();
    const first = await connected(s);
    const saved = await s.client.request<{ id: number }>('POST', '/api/memory/save', { text: 'survives a crash', project: 'crash' });
    assert.equal(saved.status, 201);
    process.kill(first.pid, 'SIGKILL');
    const second = await until(() => (s.state.kind === 'connected' && s.state.pid !== first.pid ? s.state : undefined), 30_000, 'a restarted worker');
    assert.equal(second.owned, true);
    assert.ok(states.includes('starting'), `states: ${states.join(',')}`);
    const again = await s.client.request<Observation>('GET', `/api/observation/${saved.body.id}`);
    assert.equal(again.body.narrative, 'survives a crash');
  });

  it('restarts a killed worker it did not start (found by health polling)', async () => {
    const port = await freePort();
    const dataDir = tempDir('cmem-ext-');
    const w = await startWorker({ port, dataDir, env: { CLAUDE_MEM_PROVIDER: 'local', CLAUDE_MEM_EMBEDDINGS: 'off' } });
    const s = supervisorFor(port, dataDir);
    await s.start();
    assert.equal((await connected(s)).owned, false);
    await w.kill('SIGKILL');
    const st = await until(() => (s.state.kind === 'connected' && s.state.owned ? s.state : undefined), 30_000, 'forked replacement');
    assert.notEqual(st.pid, w.proc.pid);
  });

  it('reports a worker that cannot start as down, with backoff', async () => {
    const port = await freePort();
    const s = new WorkerSupervisor({ target: { host: '127.0.0.1', port, dataDir: tempDir() }, workerScript: '/nonexistent/worker.js', env: () => ({}), log, backoffMs: { initial: 50, max: 100 } });
    void s.start();
    const st = await until(() => (s.state.kind === 'down' ? s.state : undefined), 10_000, 'down');
    assert.match(st.error, /missing/);
    s.dispose();
  });
});

describe('capture to stored observations', () => {
  let w: RunningWorker;
  const root = tempDir('cmem-proj-');
  const project = path.basename(root);
  const file = (rel: string) => path.join(root, rel);

  it('posts each event kind and the observations land', async () => {
    w = await startWorker({ env: { CLAUDE_MEM_PROVIDER: 'local', CLAUDE_MEM_EMBEDDINGS: 'off' } });
    cleanup.push(() => void w.stop());
    const s = supervisorFor(w.port, w.dataDir);
    await s.start();
    await connected(s);
    const poster = new QueuedPoster(() => (s.state.kind === 'connected' ? s.client : undefined));
    const session = new SessionTracker({ sessionId: 'win-capture', primaryProject: () => project, cwdOf: () => root, poster: () => poster, idleMs: () => 0 });
    const capture = new Capture({
      trusted: () => true,
      paused: () => false,
      settings: () => DEFAULT_CAPTURE,
      exclusions: new Exclusions({ globs: [], filesExclude: [], respectGitignore: true }),
      folderOf: folderLookup(() => [root]),
      primaryFolder: () => root,
      projectOf: () => project,
      send: (p, req) => void session.observe(p, req),
    });
    capture.remember(file('src/a.ts'), 'export const a = 1;\n');
    const outcomes = [
      capture.handle({ kind: 'save', file: file('src/a.ts'), before: undefined, after: 'export const a = 2;\nexport const fixBug = true;\n' }),
      capture.handle({ kind: 'create', file: file('src/new.ts') }),
      capture.handle({ kind: 'rename', file: file('src/new.ts'), newFile: file('src/renamed.ts') }),
      capture.handle({ kind: 'delete', file: file('src/old.ts') }),
      capture.handle({ kind: 'terminal', commandLine: 'npm test', exitCode: 1, output: 'Error: expected 2 to equal 3\n', cwd: root }),
      capture.handle({ kind: 'task', task: 'build', exitCode: 0 }),
      capture.handle({ kind: 'debug', name: 'Launch Program', type: 'node' }),
      capture.handle({ kind: 'focus', file: file('src/a.ts') }),
      capture.handle({ kind: 'save', file: file('.env'), before: 'A=1', after: 'A=2' }),
    ];
    assert.deepEqual(outcomes.map((o) => o.sent), [true, true, true, true, true, true, true, true, false]);
    const items = await until(async () => {
      const r = await w.req('GET', `/api/observations?project=${project}&limit=50`);
      return r.body.items.length >= 8 ? (r.body.items as Observation[]) : undefined;
    }, 20_000, '8 observations');
    const titles = items.map((o) => o.title).sort();
    assert.deepEqual(titles, [
      'Created src/new.ts',
      'Debug session ended: Launch Program',
      'Deleted src/old.ts',
      'Ran `build` (exit 0)',
      'Ran `npm test` (exit 1)',
      'Read src/a.ts',
      'Renamed src/new.ts to src/renamed.ts',
      'Saved src/a.ts (+2 −1)',
    ]);
    assert.ok(items.every((o) => o.toolName && o.project === project));
    assert.ok(!items.some((o) => JSON.stringify(o).includes('.env')), 'the secret file left no trace');
    const sessions = await w.req('GET', `/api/sessions?project=${project}`);
    assert.equal(sessions.body.items[0].contentSessionId, 'win-capture');
    assert.equal(sessions.body.items[0].platform, 'vscode');
    await session.complete();
    const done = await w.req('GET', `/api/sessions?project=${project}`);
    assert.equal(done.body.items[0].status, 'completed');
  });
});

describe('@memory and the language-model tools', () => {
  let w: RunningWorker;
  let api: MemoryApi;
  const project = 'chat-proj';
  const ids: number[] = [];
  const turns: Array<[string, string]> = [];
  const prompts: string[] = [];
  const session = { prompt: (_p: string, t: string) => void prompts.push(t), chatTurn: (_p: string, q: string, a: string) => void turns.push([q, a]) };

  /** A scripted chat model: cites every memory id it was given, streamed in fragments. */
  function scriptedModel(): ChatModelPort & { seen: ChatMsg[][] } {
    const seen: ChatMsg[][] = [];
    return {
      name: 'scripted',
      seen,
      async send(messages) {
        seen.push(messages);
        const given = [...new Set([...messages[0].text.matchAll(/^#(\d+) \[/gm)].map((m) => m[1]))];
        const parts = ['From memory: ', 'the flaky login test was fixed by raising the timeout ', given.map((id) => `#${id}`).join(' '), '.'];
        return (async function* () {
          for (const p of parts) yield p;
        })();
      },
    };
  }

  const out = () => {
    const md: string[] = [];
    const refs: number[] = [];
    return { md, refs, port: { markdown: (t: string) => void md.push(t), progress: () => undefined, reference: (h: { id: number }) => void refs.push(h.id) } };
  };
  const deps = () => ({ api, project: () => project, session, context: () => api.context(project).then((r) => r.text), maxResults: 10 });
  const never = { isCancellationRequested: false };

  before(async () => {
    // The memories the cases ask about. Real local embeddings here (hybrid search); their first load can take seconds on a busy
    // machine, which MemoryApi.search answers with keyword results meanwhile.
    w = await startWorker({ env: { CLAUDE_MEM_PROVIDER: 'local' } });
    cleanup.push(() => void w.stop());
    api = new MemoryApi(() => ({ request: (m, p, b, t) => fetchReq(w, m, p, b, t) }));
    for (const text of ['The login test was flaky: fixed by raising the timeout to 10 s in auth.spec.ts', 'Decided to keep sql.js over better-sqlite3: no native build', 'Timeout of the login flow is configured in config/auth.json']) {
      ids.push((await api.save(text, { project })).id);
    }
  });

  it('answers a free question with the chat model, streaming, citing stored observation ids', async () => {
    const model = scriptedModel();
    const o = out();
    const r = await handleChat({ prompt: 'how did we fix the flaky login test timeout?', history: [{ role: 'user', text: 'earlier question' }] }, model, o.port, deps(), never);
    const text = o.md.join('');
    assert.ok(o.md.length > 3, 'streamed in fragments');
    assert.ok(r.metadata.ids.length > 0);
    for (const id of r.metadata.ids) assert.ok(ids.includes(id), `cites a stored id (#${id})`);
    assert.ok(r.metadata.ids.includes(ids[0]), 'the memory that answers is cited');
    assert.match(text, new RegExp(`#${ids[0]}\\b`));
    assert.match(text, /Cited memories/);
    assert.deepEqual(o.refs, r.metadata.ids);
    assert.ok(model.seen[0][0].text.includes('raising the timeout'), 'the model got the memory in full');
    assert.ok(model.seen[0][0].text.includes('<claude-mem-context>') || model.seen[0][0].text.includes('project-context'), 'and the project context');
    assert.deepEqual(model.seen[0].at(-1), { role: 'user', text: 'how did we fix the flaky login test timeout?' });
    assert.ok(model.seen[0].some((m) => m.text === 'earlier question'), 'history is passed on');
    assert.equal(prompts.at(-1), '@memory how did we fix the flaky login test timeout?');
    assert.equal(turns.at(-1)?.[1], text, 'the turn is summarized with its answer');
  });

  it('answers /search, /recent, /timeline and /save from the worker', async () => {
    let o = out();
    let r = await handleChat({ prompt: 'sql.js', command: 'search', history: [] }, undefined, o.port, deps(), never);
    assert.ok(r.metadata.ids.includes(ids[1]), o.md.join(''));
    assert.match(o.md.join(''), new RegExp(`#${ids[1]}`));
    o = out();
    r = await handleChat({ prompt: '', command: 'recent', history: [] }, undefined, o.port, deps(), never);
    assert.deepEqual([...r.metadata.ids].sort(), [...ids].sort());
    o = out();
    r = await handleChat({ prompt: String(ids[1]), command: 'timeline', history: [] }, undefined, o.port, deps(), never);
    assert.ok(r.metadata.ids.includes(ids[0]) && r.metadata.ids.includes(ids[2]), o.md.join(''));
    o = out();
    r = await handleChat({ prompt: 'remember: <private>hunter2</private>deploys need VPN', command: 'save', history: [] }, undefined, o.port, deps(), never);
    const [saved] = await api.get(r.metadata.ids);
    assert.equal(saved.narrative, 'remember: deploys need VPN');
    ids.push(saved.id);
  });

  it('runs each tool against stored memory', async () => {
    const toolDeps = { api, project: () => project, context: () => api.context(project).then((r) => r.text) };
    const run = async (name: string, input: unknown) => {
      const t = TOOLS.find((x) => x.manifest.name === name)!;
      return t.run(t.parse(input), toolDeps);
    };
    const search = await run('memory_search', { query: 'login timeout' });
    assert.match(search, new RegExp(`#${ids[0]}\\b`));
    const got = await run('memory_get', { ids: [ids[0], 999999] });
    assert.match(got, /raising the timeout/);
    assert.match(got, /Not found: #999999/);
    const tl = await run('memory_timeline', { anchor: ids[1] });
    assert.match(tl, new RegExp(`#${ids[0]}\\b`));
    const saved = await run('memory_save', { text: 'CI caches node_modules by lockfile hash', title: 'CI cache key' });
    assert.match(saved, /Saved to memory as #\d+/);
    const ctx = await run('memory_context', {});
    assert.match(ctx, /claude-mem-context/);
    assert.match(ctx, /CI cache key/);
  });
});

describe('the window as the vscode compression provider', () => {
  it('serves compression jobs with a scripted model, and the observation lands', async () => {
    const dataDir = tempDir('cmem-lm-');
    // Every tool use to the model (this tests the window's transport, not which uses are worth it); no batching wait.
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', batchMaxAgeMs: 0 }));
    const w = await startWorker({ dataDir, env: { CLAUDE_MEM_PROVIDER: 'vscode', CLAUDE_MEM_EMBEDDINGS: 'off' } });
    cleanup.push(() => void w.stop());
    const calls: string[] = [];
    const port: LmPort = {
      async complete(job) {
        calls.push(job.purpose);
        if (job.purpose === 'summarize') return { text: '<summary><request>r</request><completed>served by the window</completed></summary>', model: 'fake/model' };
        return {
          text: '<observation><type>bugfix</type><title>Window model compressed this</title><facts><fact>served through vscode.lm</fact></facts><narrative>n</narrative><concepts><concept>gotcha</concept></concepts></observation>',
          model: 'fake/model',
          inputTokens: 10,
          outputTokens: 5,
        };
      },
    };
    const requester = { request: (m: string, p: string, b?: unknown, t?: number) => fetchReq(w, m, p, b, t) };
    const server = new CompressionServer({ requester: () => requester, windowId: 'win-lm', port, enabled: () => true, log, waitMs: 2000 });
    server.start();
    cleanup.push(() => server.stop());
    const r = await w.req('POST', '/api/sessions/observations', { contentSessionId: 'lm-1', platform: 'vscode', project: 'lm-proj', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: 'fail' });
    assert.equal(r.status, 202);
    const items = await until(async () => {
      const l = await w.req('GET', '/api/observations?project=lm-proj');
      return l.body.items.length ? (l.body.items as Observation[]) : undefined;
    }, 30_000, 'an observation compressed by the window');
    assert.equal(items[0].title, 'Window model compressed this');
    assert.ok(calls.includes('observe'));
    assert.ok(server.stats.served >= 1);
  });
});

async function fetchReq(w: RunningWorker, method: string, p: string, body?: unknown, timeoutMs = 5000): Promise<{ status: number; body: any }> {
  const r = await fetch(w.url + p, {
    method,
    headers: { authorization: `Bearer ${w.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await r.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: r.status, body: parsed };
}
