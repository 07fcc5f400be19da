// Runs inside the extension host (bundled by the harness) with the real `vscode` API. The workspace
// is a git repository with src/retry.ts committed (test/e2e/suites/freshness.ts). A saved edit becomes
// a memory citing the file; its CodeLens on line 1 shows it; editing the cited lines (unsaved)
// marks it "may be stale" in the CodeLens and in what the "Memories for This File" view lists.
import * as vscode from 'vscode';
import type { Services } from '../../../extension/services';
import type { FileMemoriesResponse } from '../../../common/contract';
import { createSuite, waitFor } from './runner';

const OUR_ID = 'claude-mem-vscode.claude-mem-vscode';
const suite = createSuite();
let services: Services | undefined;
const ours = (): Services => services ?? (() => { throw new Error('not run: the activation case failed'); })();

async function lensTitles(uri: vscode.Uri): Promise<string[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 10)) ?? [];
  return lenses.map((l) => l.command?.title ?? '').filter((t) => t.includes('memor'));
}

async function fileMemories(svc: Services, rel: string): Promise<FileMemoriesResponse> {
  const r = await svc.supervisor.client.request<FileMemoriesResponse>('GET', `/api/freshness/file?project=${encodeURIComponent(svc.project())}&path=${encodeURIComponent(rel)}`);
  if (r.status !== 200) throw new Error(`GET /api/freshness/file: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

suite.test('the extension activates and its worker is connected', async () => {
  const ext = vscode.extensions.getExtension<{ services: Services }>(OUR_ID);
  if (!ext) throw new Error(`${OUR_ID} is not installed`);
  await waitFor(`${OUR_ID} to be active`, () => ext.isActive, 60_000);
  const svc = (services = ext.exports.services);
  await waitFor('the worker supervisor to be connected', () => svc.supervisor.state.kind === 'connected', 60_000);
}, 125_000);

suite.test('a saved edit becomes a memory citing the file, shown in its CodeLens', async () => {
  const svc = ours();
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  const uri = vscode.Uri.joinPath(folder.uri, 'src', 'retry.ts');
  const doc = await vscode.workspace.openTextDocument(uri);
  // Edited before it is shown: the focus capture's "Read" (debounced) then cites the edited text,
  // which the save makes the disk's. Shown first, a busy host could apply the edit after the Read
  // had cited the old text, and that memory is rightly stale once the file is saved.
  const edit = new vscode.WorkspaceEdit();
  edit.insert(uri, doc.lineAt(doc.lineCount - 1).range.end, 'export const JITTER = 0.2;\n');
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the edit was not applied');
  await vscode.window.showTextDocument(doc);
  if (!(await doc.save())) throw new Error('save() returned false');
  const m = await waitFor('a memory citing src/retry.ts', async () => (await fileMemories(svc, 'src/retry.ts')).items.find((x) => x.citations.some((c) => c.path === 'src/retry.ts')), 60_000, 500);
  suite.record('memory', { id: m.id, status: m.status, branch: m.branch });
  const titles = await waitFor('the CodeLens on src/retry.ts', async () => ((await lensTitles(uri)).length ? lensTitles(uri) : undefined), 30_000, 500);
  // The save's memory, and the focus capture's "Read" of the file when it came first: none stale.
  if (!/^\$\(history\) \d+ memor(y|ies)$/.test(titles[0])) throw new Error(`CodeLens says ${JSON.stringify(titles)}`);
  suite.record('lensFresh', titles[0]);
}, 120_000);

suite.test('editing the cited lines marks it stale in the editor and the view', async () => {
  const svc = ours();
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new Error('no active editor');
  if (!(await editor.edit((e) => e.replace(editor.document.lineAt(0).range, 'export const RETRIES = 5;')))) throw new Error('the edit was not applied');
  const titles = await waitFor('the stale mark in the CodeLens', async () => {
    const t = await lensTitles(editor.document.uri);
    return t.some((x) => /may be stale/.test(x)) ? t : undefined;
  }, 30_000, 500);
  suite.record('lensStale', titles[0]);
  const view = await fileMemories(svc, 'src/retry.ts');
  const stale = view.items.find((x) => x.status === 'stale');
  if (!stale || !/src\/retry\.ts changed/.test(stale.reason ?? '')) throw new Error(`the view's memories: ${JSON.stringify(view.items)}`);
  suite.record('viewStale', stale.reason);
  // Left stale (the edit is never saved) and shown in the "Memories for This File" view: the
  // harness screenshots the page as this case ends (docs/marketplace/images/codelens-stale.png).
  await vscode.commands.executeCommand('claudeMem.fileMemories.focus');
  await vscode.window.showTextDocument(editor.document);
}, 60_000);

suite.test('reverting the unsaved edit keeps the file\'s memories', async () => {
  const svc = ours();
  // Waits first: the harness screenshots the page as the previous case ends (polling every 300 ms),
  // and that picture (stale CodeLens, the file's memories in the view) is codelens-stale.png in
  // docs/marketplace/images/.
  await new Promise((r) => setTimeout(r, 3000));
  await vscode.commands.executeCommand('workbench.action.files.revert');
  const { items } = await fileMemories(svc, 'src/retry.ts');
  if (!items.some((m) => m.citations.some((c) => c.path === 'src/retry.ts'))) throw new Error(`the file's memories: ${JSON.stringify(items)}`);
}, 30_000);

export const run = () => suite.run();
