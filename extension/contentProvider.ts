// Read-only documents for memory: `claude-mem:/observation/<id>.md` and `claude-mem:/context/<project>.md`.
import * as vscode from 'vscode';
import { observationMarkdown } from './core/format';
import type { MemoryApi } from './core/memoryApi';

export const SCHEME = 'claude-mem';

export function observationUri(id: number): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/observation/${id}.md` });
}

export function contextUri(project: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/context/${encodeURIComponent(project)}.md` });
}

export function registerContentProvider(api: MemoryApi, context: (project: string) => Promise<string>): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
    async provideTextDocumentContent(uri) {
      const obs = /^\/observation\/(\d+)\.md$/.exec(uri.path);
      if (obs) {
        const [o] = await api.get([Number(obs[1])]);
        return o ? observationMarkdown(o) : vscode.l10n.t('Observation #{0} does not exist (deleted, or in another data dir).', obs[1]);
      }
      const ctx = /^\/context\/(.+)\.md$/.exec(uri.path);
      if (ctx) return context(decodeURIComponent(ctx[1]));
      return vscode.l10n.t('Unknown memory document.');
    },
  });
}
