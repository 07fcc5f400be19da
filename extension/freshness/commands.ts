// Open, confirm, retire and re-verify a memory, from the view, the CodeLens quick pick, or by id.
import * as vscode from 'vscode';
import { recordRef, type MemoryFreshness } from '../../common/contract';
import { findRepo, fingerprint } from '../../common/node/freshness/gitRepo';
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
  const fail = (e: unknown) => void vscode.window.showErrorMessage(vscode.l10n.t('Claude Mem: {0}', (e as Error).message));

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
        void vscode.window.setStatusBarMessage(`$(verified) ${vscode.l10n.t('#{0} confirmed: {1}', id, r.title)}`, 4000);
      } catch (e) {
        fail(e);
      }
    },
    async retire(t) {
      const id = idOf(t);
      if (!id) return;
      const retire = vscode.l10n.t('Retire');
      const ok = await vscode.window.showWarningMessage(vscode.l10n.t('Retire memory #{0}? It stays stored (search finds it, marked retired) but is no longer injected as context.', id), { modal: true }, retire);
      if (ok !== retire) return;
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
        const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Re-verifying memory #{0}…', id) }, () => api.verify(id, files));
        c.invalidate();
        const message =
          r.verdict === 'still-true'
            ? vscode.l10n.t('Memory #{0} is still true: confirmed.', id)
            : r.verdict === 'changed'
              ? vscode.l10n.t('Memory #{0} is changed: replaced by #{1}.', id, String(r.replacedBy))
              : vscode.l10n.t('Memory #{0} is no longer true: retired.', id);
        const open = await vscode.window.showInformationMessage(message, ...(r.replacedBy ? [vscode.l10n.t('Open the new memory')] : []));
        if (open && r.replacedBy) await openMemory(r.replacedBy);
      } catch (e) {
        if (e instanceof FreshnessError && e.status === 409) {
          const confirm = vscode.l10n.t('Confirm');
          const retire = vscode.l10n.t('Retire');
          const choice = await vscode.window.showWarningMessage(vscode.l10n.t('No compression model can re-check memory #{0} now. Does it still hold?', id), confirm, retire);
          if (choice === confirm) await cmds.confirm(id);
          else if (choice === retire) await cmds.retire(id);
        } else fail(e);
      }
    },
    async pick(uri) {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target) return;
      const items = await c.memories(target);
      if (items.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('No memory is about this file yet.'));
        return;
      }
      type Item = vscode.QuickPickItem & { m: MemoryFreshness };
      const qp = vscode.window.createQuickPick<Item>();
      const btn = (icon: string, tooltip: string) => ({ iconPath: new vscode.ThemeIcon(icon), tooltip });
      const OPEN = btn('go-to-file', vscode.l10n.t('Open'));
      const CONFIRM = btn('check', vscode.l10n.t('Confirm: still true'));
      const RETIRE = btn('archive', vscode.l10n.t('Retire'));
      const VERIFY = btn('sync', vscode.l10n.t('Re-verify with the model'));
      qp.title = vscode.l10n.t('Memories about {0}', c.fileRef(target)?.rel ?? target.fsPath);
      qp.items = items.map((m) => ({
        label: `${STATUS_ICON[m.status]} ${recordRef('observation', m.id)} ${m.title}`,
        description: statusText(m, vscode.l10n),
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
