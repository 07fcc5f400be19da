// Search Memory: a quick pick whose results follow the typed query.
import * as vscode from 'vscode';
import { shortTime, TYPE_ICON, ref } from '../core/format';
import type { SearchHit } from '../core/memoryApi';
import { observationUri } from '../contentProvider';
import type { Services } from '../services';

interface HitItem extends vscode.QuickPickItem {
  hit?: SearchHit;
}

export function searchCommand(s: Services): () => Promise<void> {
  return async () => {
    const qp = vscode.window.createQuickPick<HitItem>();
    qp.placeholder = `Search the memory of ${s.project()} (keywords, file names, error text)`;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    let seq = 0;
    let timer: NodeJS.Timeout | undefined;
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
        qp.items = r.hits.length
          ? r.hits.map((h) => ({
              label: `${TYPE_ICON[h.type] ?? '•'} ${h.title}`,
              description: `${ref(h)} · ${h.type}`,
              detail: [shortTime(h.time), h.project, h.tokens !== undefined ? `~${h.tokens} tokens` : ''].filter(Boolean).join(' · '),
              alwaysShow: true,
              hit: h,
            }))
          : [{ label: `No memory matches "${query}"`, alwaysShow: true }];
        if (r.fallback) qp.title = r.fallback;
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
    qp.onDidAccept(async () => {
      const h = qp.selectedItems[0]?.hit;
      if (!h || h.kind !== 'observation') return;
      qp.hide();
      s.session.prompt(s.project(), `Search Memory: ${qp.value}`);
      const doc = await vscode.workspace.openTextDocument(observationUri(h.id));
      await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => vscode.window.showTextDocument(doc, { preview: true }));
    });
    qp.onDidHide(() => {
      if (timer) clearTimeout(timer);
      qp.dispose();
    });
    qp.show();
  };
}
