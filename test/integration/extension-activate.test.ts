// The bundled extension (dist/extension.js) activated with a stand-in `vscode` module
// (test/helpers/fakeVscode.cjs: no VS Code host runs here; test/e2e covers the real one) against
// the real worker it forks: editor events fired through the fake land as observations, the @memory
// participant and the LM tools answer from them, pause and untrusted workspaces stop capture,
// deactivate completes the session and leaves the worker running. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Observation } from '../../common/contract';
import { ROOT, tempDir, until } from '../helpers/worker';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const fake = require('../helpers/fakeVscode.cjs') as {
  install(o: object): { state: FakeState; vscode: Record<string, any> };
  context(p: string): { subscriptions: { dispose(): void }[]; workspaceState: { get(k: string): unknown } };
  fire(name: string, value: unknown): unknown[];
  document(file: string, text: string): unknown;
  classes: { Uri: { file(p: string): unknown }; CancellationTokenSource: new () => { token: unknown } };
};
interface FakeState {
  trusted: boolean;
  settings: Record<string, unknown>;
  participants: Map<string, { requestHandler: (...a: unknown[]) => Promise<any>; followupProvider?: { provideFollowups(r: unknown): any[] } }>;
  tools: Map<string, { invoke(o: { input: unknown; toolInvocationToken: undefined }, t: unknown): Promise<{ content: { value: string }[] }>; prepareInvocation?(o: { input: unknown }): any }>;
  commands: Map<string, (...a: unknown[]) => unknown>;
  statusItems: { text: string; tooltip: string }[];
  log: { level: string; msg: string }[];
}

const project = tempDir('cmem-extproj-');
fs.mkdirSync(path.join(project, '.git'));
fs.writeFileSync(path.join(project, '.gitignore'), 'dist/\n');
const projectName = path.basename(project);
const dataDir = tempDir('cmem-extdata-');
const file = (rel: string) => path.join(project, rel);
let port = 0;
let state: FakeState;
let ext: { activate(ctx: unknown): { services: { supervisor: any; session: any } }; deactivate(): Promise<void> };
let services: { supervisor: any };
let extContext: { subscriptions: { dispose(): void }[] } | undefined;
let token = '';

async function req<T = any>(method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  try {
    return { status: r.status, body: JSON.parse(text) as T };
  } catch {
    return { status: r.status, body: text as unknown as T };
  }
}

const observations = async (): Promise<Observation[]> => (await req<{ items: Observation[] }>('GET', `/api/observations?project=${projectName}&limit=100`)).body.items;

before(async () => {
  port = await new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  process.env.CLAUDE_MEM_EMBEDDINGS = 'off'; // inherited by the forked worker: keep this test light
  state = fake.install({
    folders: [project],
    settings: {
      'claudeMem.worker.port': port,
      'claudeMem.worker.dataDir': dataDir,
      'claudeMem.worker.idleShutdownMinutes': 2,
      'claudeMem.compression.provider': 'local',
      'claudeMem.capture.focusDelayMs': 250,
      'claudeMem.session.idleSummaryMinutes': 0,
    },
  }).state;
  ext = require(path.join(ROOT, 'dist', 'extension.js'));
});

after(async () => {
  const pid = services?.supervisor.state.pid as number | undefined;
  await ext?.deactivate();
  for (const d of extContext?.subscriptions ?? []) d.dispose(); // as the host does after deactivate
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});

describe('the bundled extension in a stand-in host', () => {
  it('activate returns at once and forks a worker in the background', async () => {
    const ctx = fake.context(ROOT);
    extContext = ctx;
    const api = ext.activate(ctx);
    services = api.services;
    assert.notEqual(services.supervisor.state.kind, 'connected', 'activate does not wait for the worker');
    assert.ok(state.commands.has('claudeMem.search') && state.commands.has('claudeMem.toggleCapture'));
    assert.ok(state.participants.has('claude-mem-vscode.memory'));
    assert.deepEqual([...state.tools.keys()], ['search_memory', 'get_memory_timeline', 'get_memories', 'save_memory', 'get_memory_context', 'memory_search', 'memory_timeline', 'memory_get', 'memory_save', 'memory_context']);
    const st = await until(() => (services.supervisor.state.kind === 'connected' ? services.supervisor.state : undefined), 30_000, 'connected');
    assert.equal(st.owned, true);
    token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
    await until(() => /Memory/.test(state.statusItems[0]?.text ?? '') && !/sync~spin/.test(state.statusItems[0].text), 10_000, 'status bar');
    assert.match(state.statusItems[0].tooltip, /capturing/);
  });

  it('captures each editor event kind through the vscode events', async () => {
    const Uri = fake.classes.Uri;
    fake.fire('workspace.onDidOpenTextDocument', fake.document(file('src/app.ts'), 'const port = 80;\n'));
    fake.fire('workspace.onDidSaveTextDocument', fake.document(file('src/app.ts'), 'const port = 8080;\nexport default port;\n'));
    fake.fire('workspace.onDidCreateFiles', { files: [Uri.file(file('src/new.ts'))] });
    fake.fire('workspace.onDidRenameFiles', { files: [{ oldUri: Uri.file(file('src/new.ts')), newUri: Uri.file(file('src/util.ts')) }] });
    fake.fire('workspace.onDidDeleteFiles', { files: [Uri.file(file('src/old.ts'))] });
    const execution = {
      commandLine: { value: 'npm run build', isTrusted: true, confidence: 2 },
      cwd: Uri.file(project),
      read: async function* () {
        yield '\u001b]633;C\u0007compiling…\r\n';
        yield 'error TS2322: Type mismatch\r\n';
      },
    };
    fake.fire('window.onDidStartTerminalShellExecution', { execution, terminal: {}, shellIntegration: {} });
    await new Promise((r) => setTimeout(r, 50));
    fake.fire('window.onDidEndTerminalShellExecution', { execution, exitCode: 2, terminal: {}, shellIntegration: {} });
    fake.fire('tasks.onDidEndTaskProcess', { execution: { task: { name: 'watch', source: 'npm', scope: { uri: Uri.file(project) } } }, exitCode: 0 });
    fake.fire('debug.onDidTerminateDebugSession', { name: 'Debug app', type: 'node', workspaceFolder: { uri: Uri.file(project) } });
    fake.fire('window.onDidChangeActiveTextEditor', { document: fake.document(file('README.md'), '# hi') });
    // Never captured: a secret file, an ignored file.
    fake.fire('workspace.onDidSaveTextDocument', fake.document(file('.env.local'), 'TOKEN=abc'));
    fake.fire('workspace.onDidCreateFiles', { files: [Uri.file(file('dist/bundle.js'))] });

    const items = await until(async () => {
      const list = await observations();
      return list.length >= 8 ? list : undefined;
    }, 20_000, '8 observations');
    const tools = items.map((o) => o.toolName).sort();
    assert.deepEqual(tools, ['DebugSessionEnd', 'FileCreate', 'FileDelete', 'FileFocus', 'FileRename', 'FileSave', 'TaskEnd', 'TerminalCommand']);
    const save = items.find((o) => o.toolName === 'FileSave')!;
    assert.equal(save.title, 'Saved src/app.ts (+2 −1)');
    const term = items.find((o) => o.toolName === 'TerminalCommand')!;
    assert.equal(term.title, 'Ran `npm run build` (exit 2)');
    assert.ok(term.facts.some((f) => /TS2322/.test(f)), 'terminal output reached the worker');
    assert.ok(!JSON.stringify(items).includes('.env') && !JSON.stringify(items).includes('bundle.js'));
    const sessions = (await req('GET', `/api/sessions?project=${projectName}`)).body.items;
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].platform, 'vscode');
  });

  it('@memory answers with the request model, citing stored ids, and offers followups', async () => {
    const saved = (await req<{ id: number }>('POST', '/api/memory/save', { text: 'The API port moved from 80 to 8080 because of the proxy', project: projectName })).body.id;
    const sent: unknown[][] = [];
    const model = {
      id: 'fake-model',
      name: 'Fake Model',
      vendor: 'fake',
      family: 'fake',
      async sendRequest(messages: unknown[]) {
        sent.push(messages);
        return {
          text: (async function* () {
            yield 'The port changed to 8080 for the proxy ';
            yield `[#${saved}].`;
          })(),
        };
      },
    };
    const md: string[] = [];
    const refs: unknown[] = [];
    const stream = { markdown: (v: string) => void md.push(v), progress: () => undefined, reference: (u: unknown) => void refs.push(u), button: () => undefined, anchor: () => undefined, push: () => undefined };
    const participant = state.participants.get('claude-mem-vscode.memory')!;
    const result = await participant.requestHandler({ prompt: 'why did the port change to 8080?', command: undefined, references: [], toolReferences: [], model }, { history: [] }, stream, new fake.classes.CancellationTokenSource().token);
    const text = md.join('');
    assert.match(text, new RegExp(`#${saved}\\b`));
    assert.ok(result.metadata.ids.includes(saved));
    assert.equal(refs.length, result.metadata.ids.length);
    assert.equal(sent.length, 1);
    const followups = participant.followupProvider!.provideFollowups(result);
    assert.ok(followups.some((f: { command?: string }) => f.command === 'timeline'));
    const prompts = (await req('GET', `/api/export?project=${projectName}`)).body.sessions.flatMap((s: { prompts: { text: string }[] }) => s.prompts.map((p) => p.text));
    assert.ok(prompts.includes('@memory why did the port change to 8080?'), 'the request was recorded as a prompt');
    // The completed turn asked for a summary: it lands.
    await until(async () => {
      const e = await req('GET', `/api/export?project=${projectName}`);
      return e.body.sessions.some((s: { summaries: unknown[] }) => s.summaries.length > 0);
    }, 20_000, 'a session summary');
  });

  it('the LM tools answer through vscode.lm.registerTool', async () => {
    const search = state.tools.get('memory_search')!;
    const r = await search.invoke({ input: { query: 'proxy port' }, toolInvocationToken: undefined }, new fake.classes.CancellationTokenSource().token);
    assert.match(r.content[0].value, /#\d+ .*port/i);
    const bad = await state.tools.get('memory_get')!.invoke({ input: { ids: 'none' }, toolInvocationToken: undefined }, undefined);
    assert.match(bad.content[0].value, /memory_get failed: 'ids'/);
    const prep = state.tools.get('memory_save')!.prepareInvocation!({ input: { text: 'x' } });
    assert.ok(prep.confirmationMessages, 'saving asks first');
    const ctx = await state.tools.get('memory_context')!.invoke({ input: {}, toolInvocationToken: undefined }, undefined);
    assert.match(ctx.content[0].value, /<claude-mem-context>/);
  });

  it('the tools answer under their {verb}_{noun} names, and the old names give the same answers', async () => {
    const cancel = new fake.classes.CancellationTokenSource().token;
    const ask = async (name: string, input: unknown) => (await state.tools.get(name)!.invoke({ input, toolInvocationToken: undefined }, cancel)).content[0].value as string;
    const found = await ask('search_memory', { query: 'proxy port' });
    assert.match(found, /#\d+ .*port/i);
    assert.match(found, /Next: get_memories with the ids/);
    assert.equal(await ask('memory_search', { query: 'proxy port' }), found);
    const id = Number(/#(\d+)/.exec(found)![1]);
    assert.equal(await ask('get_memories', { ids: [id] }), await ask('memory_get', { ids: [id] }));
    assert.equal(await ask('get_memory_timeline', { anchor: id }), await ask('memory_timeline', { anchor: id }));
    assert.match(await ask('get_memory_context', {}), /<claude-mem-context>/);
    const bad = await ask('get_memories', { ids: 'none' });
    assert.match(bad, /get_memories failed: 'ids'/);
    assert.ok(state.tools.get('save_memory')!.prepareInvocation!({ input: { text: 'x' } }).confirmationMessages, 'saving asks first');
  });

  it('pause and an untrusted workspace stop capture', async () => {
    const before = (await observations()).length;
    const r = (await state.commands.get('claudeMem.toggleCapture')!()) as { paused: boolean };
    assert.deepEqual(r, { paused: true });
    fake.fire('workspace.onDidCreateFiles', { files: [fake.classes.Uri.file(file('src/paused.ts'))] });
    await state.commands.get('claudeMem.toggleCapture')!();
    state.trusted = false;
    fake.fire('workspace.onDidCreateFiles', { files: [fake.classes.Uri.file(file('src/untrusted.ts'))] });
    state.trusted = true;
    fake.fire('workspace.onDidCreateFiles', { files: [fake.classes.Uri.file(file('src/trusted-again.ts'))] });
    const items = await until(async () => {
      const list = await observations();
      return list.length > before ? list : undefined;
    }, 20_000, 'the next observation');
    const titles = items.map((o) => o.title);
    assert.ok(titles.includes('Created src/trusted-again.ts'));
    assert.ok(!titles.some((t) => /paused|untrusted/.test(t)), titles.join('; '));
  });

  it('no @memory prompt or Search Memory selection is recorded while paused, untrusted or disabled', async () => {
    const prompts = async (): Promise<string[]> => (await req('GET', `/api/export?project=${projectName}`)).body.sessions.flatMap((s: { prompts: { text: string }[] }) => s.prompts.map((p) => p.text));
    const stream = { markdown: () => undefined, progress: () => undefined, reference: () => undefined, button: () => undefined, anchor: () => undefined, push: () => undefined };
    const chat = (text: string) =>
      state.participants.get('claude-mem-vscode.memory')!.requestHandler({ prompt: text, command: 'recent', references: [], toolReferences: [], model: undefined }, { history: [] }, stream, new fake.classes.CancellationTokenSource().token);
    const search = async (text: string) => {
      await state.commands.get('claudeMem.search')!();
      const qp = (state as unknown as { quickPicks: { value: string; selectedItems: unknown[]; fire(n: string): Promise<void> }[] }).quickPicks.at(-1)!;
      qp.value = text;
      qp.selectedItems = [{ label: text, hit: { kind: 'observation', id: 1, title: text, type: 'discovery', project: projectName } }];
      await qp.fire('accept');
    };
    const configChanged = () => fake.fire('workspace.onDidChangeConfiguration', { affectsConfiguration: (sec: string) => sec.startsWith('claudeMem') });

    await state.commands.get('claudeMem.toggleCapture')!();
    await chat('PAUSEDCHAT');
    await search('PAUSEDSEARCH');
    await state.commands.get('claudeMem.toggleCapture')!();
    state.trusted = false;
    await chat('UNTRUSTEDCHAT');
    await search('UNTRUSTEDSEARCH');
    state.trusted = true;
    state.settings['claudeMem.capture.enabled'] = false;
    configChanged();
    await chat('DISABLEDCHAT');
    await search('DISABLEDSEARCH');
    state.settings['claudeMem.capture.enabled'] = true;
    configChanged();
    // Capture on again: both kinds are recorded, after everything above was sent (one ordered poster).
    await chat('ALLOWEDCHAT');
    await search('ALLOWEDSEARCH');
    const all = await until(async () => {
      const p = await prompts();
      return p.includes('Search Memory: ALLOWEDSEARCH') ? p : undefined;
    }, 20_000, 'the allowed prompts');
    assert.ok(all.includes('@memory /recent ALLOWEDCHAT'), all.join(' | '));
    const leaked = all.filter((p) => /PAUSED|UNTRUSTED|DISABLED/.test(p));
    assert.deepEqual(leaked, [], 'prompts recorded while capture was off');
  });

  it('deactivate completes the session and leaves the worker running', async () => {
    const pid = services.supervisor.state.pid as number;
    await ext.deactivate();
    const sessions = (await req('GET', `/api/sessions?project=${projectName}`)).body.items.filter((x: { platform: string }) => x.platform === 'vscode');
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].status, 'completed');
    assert.doesNotThrow(() => process.kill(pid, 0), 'the worker still runs');
    assert.ok(!state.log.some((l) => l.msg.includes('sk-ant')), 'no key in the log');
  });
});
