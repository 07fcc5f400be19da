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
    const raw = id ?? (await vscode.window.showInputBox({ prompt: vscode.l10n.t('Observation id'), validateInput: (v) => (/^#?\d+$/.test(v.trim()) ? undefined : vscode.l10n.t('a number, like 123')) }));
    if (raw === undefined) return;
    await showMarkdown(observationUri(Number(String(raw).replace(/^#/, ''))));
  };
}

export function saveSelectionCommand(s: Services): () => Promise<void> {
  return async () => {
    const editor = vscode.window.activeTextEditor;
    const text = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
    const input = text ?? (await vscode.window.showInputBox({ prompt: vscode.l10n.t('What should be remembered?'), placeHolder: vscode.l10n.t('A decision, a gotcha, a root cause…') }));
    if (!input?.trim()) return;
    if (editor && text && s.capture && s.settings().capture.enabled) {
      const file = editor.document.uri;
      const excluded = file.scheme === 'file' ? s.capture.isExcluded(file.fsPath) : undefined;
      if (excluded === 'secret') {
        const save = vscode.l10n.t('Save');
        const ok = await vscode.window.showWarningMessage(vscode.l10n.t('This file looks like it holds secrets. Save the selection to memory anyway?'), { modal: true }, save);
        if (ok !== save) return;
      }
    }
    const title = await vscode.window.showInputBox({ prompt: vscode.l10n.t('Title (optional)'), value: text ? `${vscode.workspace.asRelativePath(editor!.document.uri)}:${editor!.selection.start.line + 1}` : '' });
    if (title === undefined) return;
    const body = text && editor ? `${text}\n\n(from ${vscode.workspace.asRelativePath(editor.document.uri)}, line ${editor.selection.start.line + 1})` : input;
    try {
      const r = await s.api.save(body, { title: title || undefined, project: s.project() });
      const show = vscode.l10n.t('Show');
      const pick = await vscode.window.showInformationMessage(r.duplicate ? vscode.l10n.t('Already in memory as #{0}.', r.id) : vscode.l10n.t('Saved to memory as #{0}.', r.id), show);
      if (pick === show) await showMarkdown(observationUri(r.id));
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not save to memory: {0}', (e as Error).message));
    }
  };
}

export function exportCommand(s: Services): () => Promise<void> {
  return async () => {
    const which = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('This project ({0})', s.project()), project: s.project() as string | undefined },
        { label: vscode.l10n.t('Every project'), project: undefined },
      ],
      { placeHolder: vscode.l10n.t('Export which memory?') },
    );
    if (!which) return;
    const name = `claude-mem-${(which.project ?? 'all').replace(/[^\w.-]/g, '_')}-${new Date().toISOString().slice(0, 10)}.json`;
    const base = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(base, name), filters: { JSON: ['json'] } });
    if (!target) return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Exporting memory…') }, async () => {
      try {
        const doc = await s.api.exportMemory(which.project);
        await vscode.workspace.fs.writeFile(target, Buffer.from(JSON.stringify(doc, null, 2)));
        void vscode.window.showInformationMessage(vscode.l10n.t('Memory exported to {0}.', target.fsPath));
      } catch (e) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Export failed: {0}', (e as Error).message));
      }
    });
  };
}

export function importCommand(s: Services): () => Promise<void> {
  return async () => {
    const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { JSON: ['json'] }, openLabel: vscode.l10n.t('Import memory') });
    if (!picked?.[0]) return;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Importing memory…') }, async () => {
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
        void vscode.window.showInformationMessage(vscode.l10n.t('Memory imported: {0}.', counts || vscode.l10n.t('nothing new')));
      } catch (e) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Import failed: {0}', (e as Error).message));
      }
    });
  };
}

export function forgetProjectCommand(s: Services): () => Promise<void> {
  return async () => {
    const project = s.project();
    const forget = vscode.l10n.t('Forget');
    const ok = await vscode.window.showWarningMessage(
      vscode.l10n.t('Forget everything remembered about "{0}"?', project),
      { modal: true, detail: vscode.l10n.t('Every session, prompt, observation and summary of this project is deleted from the memory database. Export it first if you may want it back.') },
      forget,
    );
    if (ok !== forget) return;
    try {
      const r = await s.api.forgetProject(project);
      s.contextCache.invalidate(project);
      s.refreshStatus();
      void vscode.window.showInformationMessage(vscode.l10n.t('Forgot {0} ({1} sessions).', project, r.sessions));
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not forget {0}: {1}', project, (e as Error).message));
    }
  };
}
