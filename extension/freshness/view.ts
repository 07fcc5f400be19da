// "Memories for This File": a tree view that follows the active editor, and a CodeLens on the
// file's first line with the count and the stale mark. Both read FreshnessController.memories().
import * as vscode from 'vscode';
import { recordRef, type MemoryFreshness } from '../../common/contract';
import type { FreshnessController } from './controller';
import { lensTitle, STATUS_ICON, statusText } from './labels';

const THEME: Record<MemoryFreshness['status'], [string, string | undefined]> = {
  fresh: ['pass', undefined],
  confirmed: ['verified', 'testing.iconPassed'],
  stale: ['warning', 'list.warningForeground'],
  retired: ['archive', 'disabledForeground'],
  aged: ['history', 'disabledForeground'],
};

export class FileMemoriesView implements vscode.TreeDataProvider<MemoryFreshness>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: vscode.Disposable[];

  constructor(private readonly c: FreshnessController) {
    this.subs = [c.onDidChange(() => this.changed.fire()), vscode.window.onDidChangeActiveTextEditor(() => this.changed.fire())];
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }

  getTreeItem(m: MemoryFreshness): vscode.TreeItem {
    const item = new vscode.TreeItem(`${recordRef('observation', m.id)} ${m.title}`);
    const [icon, color] = THEME[m.status];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.description = statusText(m, vscode.l10n);
    item.tooltip = new vscode.MarkdownString(`**${recordRef('observation', m.id)} ${m.title}**\n\n${STATUS_ICON[m.status]} ${statusText(m, vscode.l10n)}\n\n${m.citations.map((c) => `- \`${c.path}\` ${c.state}${c.movedFrom ? ` (${vscode.l10n.t('moved from {0}', `\`${c.movedFrom}\``)})` : ''}`).join('\n')}`, true);
    item.contextValue = `claudeMem.memory.${m.status}`;
    item.command = { command: 'claudeMem.freshness.open', title: vscode.l10n.t('Open Memory'), arguments: [m] };
    return item;
  }

  async getChildren(el?: MemoryFreshness): Promise<MemoryFreshness[]> {
    if (el) return [];
    const uri = vscode.window.activeTextEditor?.document.uri;
    return uri ? this.c.memories(uri) : [];
  }
}

export class FileMemoriesLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly c: FreshnessController,
    private readonly on: () => boolean,
  ) {
    this.sub = c.onDidChange(() => this.changed.fire());
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!this.on() || doc.uri.scheme !== 'file') return [];
    const title = lensTitle(await this.c.memories(doc.uri), vscode.l10n);
    if (!title) return [];
    return [new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), { title, command: 'claudeMem.fileMemories.pick', arguments: [doc.uri], tooltip: vscode.l10n.t('Memories about this file: open, confirm, retire, re-verify') })];
  }
}
