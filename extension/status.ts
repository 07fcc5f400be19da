// The status bar item: worker state, observations captured today, and capture pauses. Click opens the panel.
import * as vscode from 'vscode';
import { ENGLISH, type L10n } from './core/l10n';
import type { WorkerState } from './core/supervisor';
import { Debouncer } from './core/timers';
import type { Session, WindowState } from './session';

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

export function statusText(s: StatusInput, l10n: L10n = ENGLISH): { text: string; tooltip: string; warn: boolean } {
  const w = s.worker;
  const capture = !s.trusted ? l10n.t('capture off: untrusted workspace') : !s.captureEnabled ? l10n.t('capture off in settings') : s.paused ? l10n.t('capture paused') : l10n.t('capturing');
  const memory = l10n.t('Memory');
  switch (w.kind) {
    case 'starting':
      return { text: `$(sync~spin) ${memory}`, tooltip: w.attempt ? l10n.t('Claude Mem: starting the memory worker (attempt {0})…', w.attempt + 1) : l10n.t('Claude Mem: starting the memory worker…'), warn: false };
    case 'down':
      return { text: `$(warning) ${memory}`, tooltip: l10n.t('Claude Mem: worker down ({0}); retrying in {1} s. Click for the panel, or run "Claude Mem: Restart Worker".', w.error, Math.round(w.retryInMs / 1000)), warn: true };
    case 'stopped':
      return { text: `$(circle-slash) ${memory}`, tooltip: l10n.t('Claude Mem: stopped'), warn: false };
    case 'connected': {
      if (s.storage && s.storage.storage !== 'ok') {
        const what = s.storage.storage === 'degraded' ? l10n.t('degraded') : l10n.t('read-only');
        return {
          text: `$(warning) ${memory} ${what}`,
          tooltip: l10n.t('Claude Mem: {0} Click to open the Memory panel.', s.storage.message ?? l10n.t('storage is {0}', s.storage.storage)),
          warn: true,
        };
      }
      const icon = !s.trusted || !s.captureEnabled ? '$(shield)' : s.paused ? '$(debug-pause)' : '$(database)';
      const count = s.today === undefined ? '' : ` ${s.today}`;
      const provider = w.health.provider ? `, ${l10n.t('compression: {0} ({1})', w.health.provider.name, w.health.provider.state)}` : '';
      const worker = w.owned ? l10n.t('Worker pid {0} v{1} (started by this window)', w.pid, w.version) : l10n.t('Worker pid {0} v{1}', w.pid, w.version);
      return {
        text: `${icon} ${memory}${count}`,
        tooltip: l10n.t('Claude Mem: {0}. {1} observations today in this project. {2}{3}, queue {4}. Click to open the Memory panel.', capture, s.today ?? '?', worker, provider, w.health.queueDepth),
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
    this.item.name = vscode.l10n.t('Claude Mem');
    this.item.command = 'claudeMem.openPanel';
    this.item.text = `$(sync~spin) ${vscode.l10n.t('Memory')}`;
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
    const copy = vscode.l10n.t('Copy recover command');
    const openPanel = vscode.l10n.t('Open Memory panel');
    const actions = degraded ? [copy, openPanel] : [openPanel];
    void vscode.window.showWarningMessage(vscode.l10n.t('Claude Mem: {0}', msg), ...actions).then((pick) => {
      if (pick === copy) void vscode.env.clipboard.writeText(RECOVER_COMMAND);
      if (pick === openPanel) void vscode.commands.executeCommand('claudeMem.openPanel');
    });
  }

  update(s: StatusInput): void {
    const t = statusText({ storage: this.storage, ...s }, vscode.l10n);
    this.item.text = t.text;
    this.item.tooltip = t.tooltip;
    this.item.backgroundColor = t.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** The status bar item, kept current: worker state, pause, trust, and today's observation count. */
export function registerStatusBar(w: WindowState, s: Session): { refresh(): void } {
  const status = new StatusBar();
  let today: number | undefined;
  const refresh = () =>
    status.update({ worker: s.supervisor.state, today, paused: w.paused(), trusted: vscode.workspace.isTrusted, captureEnabled: w.settings().capture.enabled });
  // Today's observation count, refreshed on connect and (debounced) on new observations.
  const countToday = new Debouncer<void>(
    () => 1500,
    () => {
      s.api.countToday(w.primaryProject()).then(
        (n) => {
          today = n;
          refresh();
        },
        () => undefined,
      );
    },
  );
  w.context.subscriptions.push(
    status,
    s.onState((st) => {
      refresh();
      if (st.kind === 'connected') {
        void status.checkStorage(s.supervisor.client).then(refresh);
        countToday.poke();
      }
    }),
    s.onEvent((e) => {
      if (e.event === 'new_observation' || e.event === 'observation_deleted' || e.event === 'project_deleted' || e.event === 'session_forgotten') countToday.poke();
    }),
    w.onDidChangeSettings(() => refresh()),
    w.onDidChangePaused(() => refresh()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      w.log.info('workspace trusted: capture starts');
      refresh();
    }),
    { dispose: () => countToday.cancel() },
  );
  return { refresh };
}
