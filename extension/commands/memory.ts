// Commands over stored memory: project context, save selection, show one observation, export,
// import, forget this project.
import * as os from 'node:os';
import * as vscode from 'vscode';
import { contextUri, observationUri } from '../contentProvider';
import type { Services } from '../services';

async function showMarkdown(uri: vscode.Uri): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => vscode.window.showTextDocument(doc, { preview: true }));
}

export function showContextCommand(s: Services): () => Promise<void> {
  return async () => {
    s.contextCache.invalidate(s.project());
    await showMarkdown(contextUri(s.project()));
  };
}

export function showObservationCommand(): (id?: number | string) => Promise<void> {
  return async (id) => {
    const raw = id ?? (await vscode.window.showInputBox({ prompt: 'Observation id', validateInput: (v) => (/^#?\d+$/.test(v.trim()) ? undefined : 'a number, like 123') }));
    if (raw === undefined) return;
    await showMarkdown(observationUri(Number(String(raw).replace(/^#/, ''))));
  };
}

export function saveSelectionCommand(s: Services): () => Promise<void> {
  return async () => {
    const editor = vscode.window.activeTextEditor;
    const text = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
    const input = text ?? (await vscode.window.showInputBox({ prompt: 'What should be remembered?', placeHolder: 'A decision, a gotcha, a root cause…' }));
    if (!input?.trim()) return;
    if (editor && text && s.capture && s.settings().capture.enabled) {
      const file = editor.document.uri;
      const excluded = file.scheme === 'file' ? s.capture.isExcluded(file.fsPath) : undefined;
      if (excluded === 'secret') {
        const ok = await vscode.window.showWarningMessage('This file looks like it holds secrets. Save the selection to memory anyway?', { modal: true }, 'Save');
        if (ok !== 'Save') return;
      }
    }
    const title = await vscode.window.showInputBox({ prompt: 'Title (optional)', value: text ? `${vscode.workspace.asRelativePath(editor!.document.uri)}:${editor!.selection.start.line + 1}` : '' });
    if (title === undefined) return;
    const body = text && editor ? `${text}\n\n(from ${vscode.workspace.asRelativePath(editor.document.uri)}, line ${editor.selection.start.line + 1})` : input;
    try {
      const r = await s.api.save(body, { title: title || undefined, project: s.project() });
      const pick = await vscode.window.showInformationMessage(r.duplicate ? `Already in memory as #${r.id}.` : `Saved to memory as #${r.id}.`, 'Show');
      if (pick === 'Show') await showMarkdown(observationUri(r.id));
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not save to memory: ${(e as Error).message}`);
    }
  };
}

export function exportCommand(s: Services): () => Promise<void> {
  return async () => {
    const which = await vscode.window.showQuickPick(
      [
        { label: `This project (${s.project()})`, project: s.project() as string | undefined },
        { label: 'Every project', project: undefined },
      ],
      { placeHolder: 'Export which memory?' },
    );
    if (!which) return;
    const name = `claude-mem-${(which.project ?? 'all').replace(/[^\w.-]/g, '_')}-${new Date().toISOString().slice(0, 10)}.json`;
    const base = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(base, name), filters: { JSON: ['json'] } });
    if (!target) return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Exporting memory…' }, async () => {
      try {
        const doc = await s.api.exportMemory(which.project);
        await vscode.workspace.fs.writeFile(target, Buffer.from(JSON.stringify(doc, null, 2)));
        void vscode.window.showInformationMessage(`Memory exported to ${target.fsPath}.`);
      } catch (e) {
        void vscode.window.showErrorMessage(`Export failed: ${(e as Error).message}`);
      }
    });
  };
}

export function importCommand(s: Services): () => Promise<void> {
  return async () => {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] }, openLabel: 'Import memory' });
    if (!picked?.[0]) return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Importing memory…' }, async () => {
      try {
        const raw = Buffer.from(await vscode.workspace.fs.readFile(picked[0])).toString('utf8');
        let doc: unknown;
        try {
          doc = JSON.parse(raw);
        } catch {
          throw new Error('the file is not JSON');
        }
        const r = await s.api.importMemory(doc);
        const counts = Object.entries(r.imported ?? {})
          .map(([k, v]) => `${v} ${k}`)
          .join(', ');
        s.contextCache.invalidate();
        void vscode.window.showInformationMessage(`Memory imported: ${counts || 'nothing new'}.`);
      } catch (e) {
        void vscode.window.showErrorMessage(`Import failed: ${(e as Error).message}`);
      }
    });
  };
}

export function forgetProjectCommand(s: Services): () => Promise<void> {
  return async () => {
    const project = s.project();
    const ok = await vscode.window.showWarningMessage(
      `Forget everything remembered about "${project}"?`,
      { modal: true, detail: 'Every session, prompt, observation and summary of this project is deleted from the memory database. Export it first if you may want it back.' },
      'Forget',
    );
    if (ok !== 'Forget') return;
    try {
      const r = await s.api.forgetProject(project);
      s.contextCache.invalidate(project);
      s.refreshStatus();
      void vscode.window.showInformationMessage(`Forgot ${project} (${r.sessions} sessions).`);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not forget ${project}: ${(e as Error).message}`);
    }
  };
}
