// The team hub's status bar item: hidden while team memory is off; otherwise connected,
// offline with N records waiting, or error. Click runs "Share Project Memory".
import * as vscode from 'vscode';
import type { TeamStatus } from '../../common/contract';
import { teamStatusText } from './statusText';

export class TeamStatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('claudeMem.team', vscode.StatusBarAlignment.Right, 99);

  constructor() {
    this.item.name = vscode.l10n.t('Claude Mem Team');
    this.item.command = 'claudeMem.shareProject';
  }

  update(s: TeamStatus | undefined): void {
    const t = teamStatusText(s);
    if (!t) return void this.item.hide();
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.warn ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
