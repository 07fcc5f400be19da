// The status bar item: worker state, observations captured today, and capture pauses. Click opens the panel.
import * as vscode from 'vscode';
import type { WorkerState } from './core/supervisor';

/** The worker's storage as /api/readiness reports it: 'ok', 'degraded' (data missing) or 'read-only: …'. */
export interface StorageState {
  storage: string;
  message: string | null;
}

export interface StatusInput {
  worker: WorkerState;
  /** Unknown until asked (StatusBar.checkStorage); only a state other than 'ok' changes the item. */
  storage?: StorageState;
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
      if (s.storage && s.storage.storage !== 'ok') {
        const what = s.storage.storage === 'degraded' ? 'degraded' : 'read-only';
        return {
          text: `$(warning) Memory ${what}`,
          tooltip: `Claude Mem: ${s.storage.message ?? `storage is ${s.storage.storage}`} Click to open the Memory panel.`,
          warn: true,
        };
      }
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

/** What the user runs to recover degraded storage (shown in the notification). */
export const RECOVER_COMMAND = 'claude-mem stop && claude-mem recover';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('claudeMem.status', vscode.StatusBarAlignment.Right, 100);
  private storage: StorageState | undefined;
  /** Messages already shown as a notification: each is shown once per window. */
  private readonly told = new Set<string>();

  constructor() {
    this.item.name = 'Claude Mem';
    this.item.command = 'claudeMem.openPanel';
    this.item.text = '$(sync~spin) Memory';
    this.item.show();
  }

  /**
   * Asks the worker whether its storage is whole (on connect). A degraded or read-only store shows in
   * the item from then on, and once as a notification that says what to do.
   */
  async checkStorage(client: { request<T>(method: string, urlPath: string): Promise<{ status: number; body: T }> }): Promise<void> {
    try {
      const r = await client.request<Partial<StorageState>>('GET', '/api/readiness');
      if (r.status !== 200 || typeof r.body.storage !== 'string') return;
      this.storage = { storage: r.body.storage, message: typeof r.body.message === 'string' ? r.body.message : null };
    } catch {
      return;
    }
    const msg = this.storage.message;
    if (this.storage.storage === 'ok' || !msg || this.told.has(msg)) return;
    this.told.add(msg);
    const degraded = this.storage.storage === 'degraded';
    const actions = degraded ? ['Copy recover command', 'Open Memory panel'] : ['Open Memory panel'];
    void vscode.window.showWarningMessage(`Claude Mem: ${msg}`, ...actions).then((pick) => {
      if (pick === 'Copy recover command') void vscode.env.clipboard.writeText(RECOVER_COMMAND);
      if (pick === 'Open Memory panel') void vscode.commands.executeCommand('claudeMem.openPanel');
    });
  }

  update(s: StatusInput): void {
    const t = statusText({ storage: this.storage, ...s });
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
