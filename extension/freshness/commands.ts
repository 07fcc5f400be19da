// Open, confirm, retire and re-verify a memory, from the view, the CodeLens quick pick, or by id.
import * as vscode from 'vscode';
import type { MemoryFreshness } from '../../common/contract';
import { findRepo, fingerprint } from '../../worker/freshness/gitRepo';
import { observationUri } from '../contentProvider';
import { FreshnessError, type FreshnessApi } from './api';
import type { FreshnessController } from './controller';
import { STATUS_ICON, statusText } from './labels';
import { verifyFiles } from './verify';

type Target = MemoryFreshness | number | undefined;

export interface FreshnessCommands {
  open(t: Target): Promise<void>;
  confirm(t: Target): Promise<void>;
  retire(t: Target): Promise<void>;
  verify(t: Target): Promise<void>;
  pick(uri?: vscode.Uri): Promise<void>;
}

export async function openMemory(id: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(observationUri(id));
  await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => vscode.window.showTextDocument(doc, { preview: true }));
}

export function freshnessCommands(api: FreshnessApi, c: FreshnessController): FreshnessCommands {
  const idOf = (t: Target): number | undefined => (typeof t === 'number' ? t : t?.id);
  const fileOfActive = () => {
    const uri = vscode.window.activeTextEditor?.document.uri;
    return uri ? c.fileRef(uri) : undefined;
  };
  const repoHere = () => fileOfActive()?.repo ?? (vscode.workspace.workspaceFolders?.[0] ? findRepo(vscode.workspace.workspaceFolders[0].uri.fsPath) : undefined);
  const fail = (e: unknown) => void vscode.window.showErrorMessage(`Claude Mem: ${(e as Error).message}`);

  const cmds: FreshnessCommands = {
    async open(t) {
      const id = idOf(t);
      if (id) await openMemory(id);
    },
    async confirm(t) {
      const id = idOf(t);
      if (!id) return;
      try {
        // Re-anchor to the content as it is now, where it can be read here (else the worker uses the last checked content).
        const repo = repoHere();
        const m = typeof t === 'object' ? t : undefined;
        const files = m && repo ? m.citations.map((x) => ({ path: x.path, blob: fingerprint(repo.root, x.path).blob })) : [];
        const r = await api.confirm(id, files.filter((x) => x.blob));
        c.invalidate();
        void vscode.window.setStatusBarMessage(`$(verified) #${id} confirmed: ${r.title}`, 4000);
      } catch (e) {
        fail(e);
      }
    },
    async retire(t) {
      const id = idOf(t);
      if (!id) return;
      const ok = await vscode.window.showWarningMessage(`Retire memory #${id}? It stays stored (search finds it, marked retired) but is no longer injected as context.`, { modal: true }, 'Retire');
      if (ok !== 'Retire') return;
      try {
        await api.retire(id);
        c.invalidate();
      } catch (e) {
        fail(e);
      }
    },
    async verify(t) {
      const m = typeof t === 'object' ? t : undefined;
      const id = idOf(t);
      if (!id || !m) return;
      try {
        const files = await verifyFiles(repoHere(), m);
        if (files.length === 0) throw new FreshnessError('this memory cites no file to check it against', 400);
        const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Re-verifying memory #${id}…` }, () => api.verify(id, files));
        c.invalidate();
        const what = r.verdict === 'still-true' ? 'still true: confirmed' : r.verdict === 'changed' ? `changed: replaced by #${r.replacedBy}` : 'no longer true: retired';
        const open = await vscode.window.showInformationMessage(`Memory #${id} is ${what}.`, ...(r.replacedBy ? ['Open the new memory'] : []));
        if (open && r.replacedBy) await openMemory(r.replacedBy);
      } catch (e) {
        if (e instanceof FreshnessError && e.status === 409) {
          const choice = await vscode.window.showWarningMessage(`No compression model can re-check memory #${id} now. Does it still hold?`, 'Confirm', 'Retire');
          if (choice === 'Confirm') await cmds.confirm(id);
          else if (choice === 'Retire') await cmds.retire(id);
        } else fail(e);
      }
    },
    async pick(uri) {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) return;
      const items = await c.memories(target);
      if (items.length === 0) {
        void vscode.window.showInformationMessage('No memory is about this file yet.');
        return;
      }
      type Item = vscode.QuickPickItem & { m: MemoryFreshness };
      const qp = vscode.window.createQuickPick<Item>();
      const btn = (icon: string, tooltip: string) => ({ iconPath: new vscode.ThemeIcon(icon), tooltip });
      const OPEN = btn('go-to-file', 'Open');
      const CONFIRM = btn('check', 'Confirm: still true');
      const RETIRE = btn('archive', 'Retire');
      const VERIFY = btn('sync', 'Re-verify with the model');
      qp.title = `Memories about ${c.fileRef(target)?.rel ?? target.fsPath}`;
      qp.items = items.map((m) => ({
        label: `${STATUS_ICON[m.status]} #${m.id} ${m.title}`,
        description: statusText(m),
        detail: m.citations.map((x) => `${x.path}${x.state !== 'fresh' ? ` (${x.state})` : ''}`).join(' · '),
        buttons: m.status === 'stale' ? [OPEN, VERIFY, CONFIRM, RETIRE] : m.status === 'retired' ? [OPEN] : [OPEN, CONFIRM, RETIRE],
        m,
      }));
      qp.onDidTriggerItemButton(async (e) => {
        qp.hide();
        const b = e.button;
        if (b === OPEN) await cmds.open(e.item.m);
        else if (b === CONFIRM) await cmds.confirm(e.item.m);
        else if (b === RETIRE) await cmds.retire(e.item.m);
        else if (b === VERIFY) await cmds.verify(e.item.m);
      });
      qp.onDidAccept(async () => {
        const m = qp.selectedItems[0]?.m;
        qp.hide();
        if (m) await cmds.open(m);
      });
      qp.onDidHide(() => qp.dispose());
      qp.show();
    },
  };
  return cmds;
}
