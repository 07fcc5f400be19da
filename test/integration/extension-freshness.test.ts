// Memory where you code, in the bundled extension (dist/extension.js) with the stand-in `vscode`
// module (test/helpers/fakeVscode.cjs) against the real worker it forks, on a real git repository:
// a saved file becomes a memory citing it; the file's CodeLens and the "Memories for This File"
// view show it; editing the cited lines (unsaved) marks it stale in both; confirm clears it.
// (The same in a real VS Code would be a code-server e2e; see test/e2e.) Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MemoryFreshness } from '../../common/contract';
import { makeRepo } from '../helpers/gitRepo';
import { ROOT, tempDir, until } from '../helpers/worker';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const fake = require('../helpers/fakeVscode.cjs') as {
  install(o: object): { state: FakeState };
  context(p: string): { subscriptions: { dispose(): void }[] };
  fire(name: string, value: unknown): unknown[];
  document(file: string, text: string): { uri: { fsPath: string } };
};
interface Lens {
  command: { title: string; command: string };
}
interface FakeState {
  commands: Map<string, (...a: unknown[]) => unknown>;
  codeLensProviders: { provideCodeLenses(doc: unknown): Promise<Lens[]> }[];
  treeProviders: Map<string, { getChildren(): Promise<MemoryFreshness[]>; getTreeItem(m: MemoryFreshness): { description: string; contextValue: string } }>;
  activeTextEditor: unknown;
  log: { level: string; msg: string }[];
}

const repo = makeRepo('cmem-fresh-ext-');
const REL = 'src/retry.ts';
const file = path.join(repo.root, REL);
const v1 = 'export const RETRIES = 3;\nexport const DELAY = 100;\n';
repo.write(REL, v1);
repo.commit('retry');
const dataDir = tempDir('cmem-fresh-extdata-');
let port = 0;
let state: FakeState;
let ext: { activate(ctx: unknown): { services: { supervisor: any } }; deactivate(): Promise<void> };
let services: { supervisor: any } | undefined;
let ctx: { subscriptions: { dispose(): void }[] } | undefined;

const lens = async (text: string) => (await state.codeLensProviders[0].provideCodeLenses(fake.document(file, text))).map((l) => l.command.title);

before(async () => {
  port = await new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  process.env.CLAUDE_MEM_EMBEDDINGS = 'off';
  state = fake.install({
    folders: [repo.root],
    settings: {
      'claudeMem.worker.port': port,
      'claudeMem.worker.dataDir': dataDir,
      'claudeMem.worker.idleShutdownMinutes': 2,
      'claudeMem.compression.provider': 'local',
      'claudeMem.session.idleSummaryMinutes': 0,
    },
  }).state;
  ext = require(path.join(ROOT, 'dist', 'extension.js'));
});

after(async () => {
  const pid = services?.supervisor.state.pid as number | undefined;
  await ext?.deactivate();
  for (const d of ctx?.subscriptions ?? []) d.dispose();
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});

describe('memories where you code', () => {
  it('registers the CodeLens, the view and the commands', async () => {
    ctx = fake.context(ROOT);
    services = ext.activate(ctx).services;
    assert.equal(state.codeLensProviders.length, 1, state.log.filter((l) => l.level === 'warn').map((l) => l.msg).join('\n'));
    assert.ok(state.treeProviders.has('claudeMem.fileMemories'));
    for (const c of ['claudeMem.freshness.open', 'claudeMem.freshness.confirm', 'claudeMem.freshness.retire', 'claudeMem.freshness.verify', 'claudeMem.fileMemories.pick']) assert.ok(state.commands.has(c), c);
    await until(() => services?.supervisor.state.kind === 'connected', 30_000, 'connected');
  });

  it('a saved file becomes a memory citing it, shown in its CodeLens and the view', async () => {
    // The first save gives capture its baseline; the second is a change, with the file on disk as saved.
    fake.fire('workspace.onDidOpenTextDocument', fake.document(file, 'export const RETRIES = 2;\n'));
    fake.fire('workspace.onDidSaveTextDocument', fake.document(file, v1));
    const titles = await until(async () => {
      // The controller caches a file's memories until a worker event (new_observation) clears it.
      const t = await lens(v1);
      return t.length ? t : undefined;
    }, 20_000, 'a CodeLens on the saved file');
    assert.deepEqual(titles, ['$(history) 1 memory']);
    state.activeTextEditor = { document: fake.document(file, v1) };
    const items = await state.treeProviders.get('claudeMem.fileMemories')!.getChildren();
    assert.equal(items.length, 1);
    assert.equal(items[0].status, 'fresh');
    assert.equal(items[0].citations[0].path, REL);
    assert.equal(items[0].citations[0].blob, repo.git('hash-object', REL));
    assert.equal(items[0].branch, 'main');
  });

  it('editing the cited lines marks it stale in the CodeLens and the view; confirm clears it', async () => {
    const v2 = v1.replace('RETRIES = 3', 'RETRIES = 5');
    fake.fire('workspace.onDidChangeTextDocument', { document: fake.document(file, v2), contentChanges: [] });
    const titles = await until(async () => {
      const t = await lens(v2);
      return t.some((x) => /may be stale/.test(x)) ? t : undefined;
    }, 10_000, 'the stale mark in the CodeLens');
    assert.deepEqual(titles, ['$(history) 1 memory · $(warning) 1 may be stale']);
    const view = state.treeProviders.get('claudeMem.fileMemories')!;
    const [m] = await view.getChildren();
    assert.equal(m.status, 'stale');
    assert.match(view.getTreeItem(m).description, /^may be stale: src\/retry\.ts changed on main /);
    assert.equal(view.getTreeItem(m).contextValue, 'claudeMem.memory.stale');
    // The person says it still holds (re-anchored to the file as it is on disk now).
    fs.writeFileSync(file, v2);
    await state.commands.get('claudeMem.freshness.confirm')!(m);
    const [after] = await view.getChildren();
    assert.equal(after.status, 'confirmed');
    assert.equal(after.citations[0].blob, repo.git('hash-object', REL));
    assert.deepEqual(await lens(v2), ['$(history) 1 memory']);
  });
});
