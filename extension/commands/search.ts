// Search Memory: a quick pick whose results follow the typed query. Each row shows a preview (the
// matched excerpt, and the memory opens beside as the selection moves) and the freshness mark;
// per-row buttons open, copy or forget the memory.
import * as vscode from 'vscode';
import { observationText, shortTime, typeIcon, ref } from '../core/format';
import type { SearchHit } from '../core/memoryApi';
import { observationUri } from '../contentProvider';
import type { Services } from '../services';

interface HitItem extends vscode.QuickPickItem {
  hit?: SearchHit;
}

const OPEN: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: vscode.l10n.t('Open') };
const COPY: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('copy'), tooltip: vscode.l10n.t('Copy the memory as text') };
const FORGET: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Forget (delete) this memory') };

/** One result row: title with the stale or retired mark, where it is from, and a one-line preview. */
export function hitItem(h: SearchHit): HitItem {
  const mark = h.freshness === 'stale' ? '$(warning) ' : h.freshness === 'retired' ? '$(archive) ' : '';
  const preview = h.snippet?.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
  const where = [shortTime(h.time), h.project, h.otherBranch && h.branch ? `branch ${h.branch}` : '', h.tokens !== undefined ? `~${h.tokens} tokens` : ''].filter(Boolean).join(' · ');
  return {
    label: `${mark}${typeIcon(h.type)} ${h.title}`,
    description: `${ref(h)} · ${h.type}${h.freshness === 'stale' ? ` · may be stale: ${h.staleReason ?? 'a cited file changed'}` : h.freshness === 'retired' ? ' · retired' : ''}`,
    detail: preview ? `${preview.slice(0, 200)}  —  ${where}` : where,
    alwaysShow: true,
    buttons: h.kind === 'observation' ? [OPEN, COPY, FORGET] : [],
    hit: h,
  };
}

async function openHit(h: SearchHit, beside = false): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(observationUri(h.id));
  if (beside) {
    await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
    return;
  }
  await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => vscode.window.showTextDocument(doc, { preview: true }));
}

export function searchCommand(s: Services): () => Promise<void> {
  return async () => {
    const qp = vscode.window.createQuickPick<HitItem>();
    qp.placeholder = vscode.l10n.t('Search the memory of {0} (keywords, file names, error text)', s.project());
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    let seq = 0;
    let timer: NodeJS.Timeout | undefined;
    let previewTimer: NodeJS.Timeout | undefined;
    const run = async (query: string) => {
      const mine = ++seq;
      if (!query.trim()) {
        qp.items = [];
        qp.busy = false;
        return;
      }
      qp.busy = true;
      try {
        const r = await s.api.search(query, { project: s.project(), limit: s.settings().maxResults * 3 });
        if (mine !== seq) return;
        qp.items = r.hits.length ? r.hits.map(hitItem) : [{ label: vscode.l10n.t('No memory matches "{0}"', query), alwaysShow: true }];
      } catch (e) {
        if (mine === seq) qp.items = [{ label: `$(error) ${(e as Error).message}`, alwaysShow: true }];
      } finally {
        if (mine === seq) qp.busy = false;
      }
    };
    qp.onDidChangeValue((v) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void run(v), 200);
    });
    // Preview: the highlighted memory opens beside, without taking the focus from the picker.
    qp.onDidChangeActive((items) => {
      if (previewTimer) clearTimeout(previewTimer);
      const h = items[0]?.hit;
      if (!h || h.kind !== 'observation') return;
      previewTimer = setTimeout(() => void openHit(h, true).catch(() => undefined), 250);
    });
    qp.onDidTriggerItemButton(async (e) => {
      const h = e.item.hit;
      if (!h) return;
      if (e.button === OPEN) {
        qp.hide();
        await openHit(h);
      } else if (e.button === COPY) {
        const [o] = await s.api.get([h.id]).catch(() => []);
        await vscode.env.clipboard.writeText(o ? observationText(o) : `${ref(h)} ${h.title}`);
        void vscode.window.setStatusBarMessage(`$(copy) ${vscode.l10n.t('memory {0} copied', ref(h))}`, 3000);
      } else if (e.button === FORGET) {
        const forget = vscode.l10n.t('Forget');
        const ok = await vscode.window.showWarningMessage(vscode.l10n.t('Forget memory {0} "{1}"? It is deleted from the memory database.', ref(h), h.title), { modal: true }, forget);
        if (ok !== forget) return;
        const r = await s.supervisor.client.request('DELETE', `/api/observation/${h.id}`).catch((err: Error) => ({ status: 0, body: { error: err.message } }));
        if (r.status !== 200) void vscode.window.showErrorMessage(vscode.l10n.t('Claude Mem: could not forget {0}: {1}', ref(h), JSON.stringify(r.body)));
        else qp.items = qp.items.filter((i) => i.hit?.id !== h.id || i.hit.kind !== h.kind);
      }
    });
    qp.onDidAccept(async () => {
      const h = qp.selectedItems[0]?.hit;
      if (!h || h.kind !== 'observation') return;
      qp.hide();
      s.session.prompt(s.project(), `Search Memory: ${qp.value}`);
      await openHit(h);
    });
    qp.onDidHide(() => {
      if (timer) clearTimeout(timer);
      if (previewTimer) clearTimeout(previewTimer);
      qp.dispose();
    });
    qp.show();
  };
}
