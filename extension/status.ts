// The status bar item: worker state, observations captured today, and capture pauses. Click opens the panel.
import * as vscode from 'vscode';
import type { WorkerState } from './core/supervisor';

export interface StatusInput {
  worker: WorkerState;
  today: number | undefined;
  paused: boolean;
  trusted: boolean;
  captureEnabled: boolean;
}

export function statusText(s: StatusInput): { text: string; tooltip: string; warn: boolean } {
  const w = s.worker;
  const capture = !s.trusted ? 'capture off: untrusted workspace' : !s.captureEnabled ? 'capture off in settings' : s.paused ? 'capture paused' : 'capturing';
  switch (w.kind) {
    case 'starting':
      return { text: '$(sync~spin) Memory', tooltip: `Claude Mem: starting the memory worker${w.attempt ? ` (attempt ${w.attempt + 1})` : ''}…`, warn: false };
    case 'down':
      return { text: '$(warning) Memory', tooltip: `Claude Mem: worker down (${w.error}); retrying in ${Math.round(w.retryInMs / 1000)} s. Click for the panel, or run "Claude Mem: Restart Worker".`, warn: true };
    case 'stopped':
      return { text: '$(circle-slash) Memory', tooltip: 'Claude Mem: stopped', warn: false };
    case 'connected': {
      const icon = !s.trusted || !s.captureEnabled ? '$(shield)' : s.paused ? '$(debug-pause)' : '$(database)';
      const count = s.today === undefined ? '' : ` ${s.today}`;
      const provider = w.health.provider ? `, compression: ${w.health.provider.name} (${w.health.provider.state})` : '';
      return {
        text: `${icon} Memory${count}`,
        tooltip: `Claude Mem: ${capture}. ${s.today ?? '?'} observations today in this project. Worker pid ${w.pid} v${w.version}${w.owned ? ' (started by this window)' : ''}${provider}, queue ${w.health.queueDepth}. Click to open the Memory panel.`,
        warn: false,
      };
    }
  }
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('claudeMem.status', vscode.StatusBarAlignment.Right, 100);

  constructor() {
    this.item.name = 'Claude Mem';
    this.item.command = 'claudeMem.openPanel';
    this.item.text = '$(sync~spin) Memory';
    this.item.show();
  }

  update(s: StatusInput): void {
    const t = statusText(s);
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
