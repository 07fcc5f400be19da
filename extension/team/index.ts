// Team memory in VS Code (docs/team.md): the "Share Project Memory" command with the connection
// set-up, "Stop Sharing Project Memory", "Forget Team Hub Connection", and the hub's status bar
// item. The connection string lives in SecretStorage only and reaches the worker over the
// authenticated loopback API (POST /api/team/connection), which keeps it in memory.
import * as vscode from 'vscode';
import type { TeamStatus } from '../../common/contract';
import type { Services } from '../services';
import { TeamStatusItem } from './status';

export const TEAM_URL_SECRET = 'claudeMem.teamHubUrl';
const POLL_MS = 15_000;
const PUSHING_POLL_MS = 2_000;

export interface Team extends vscode.Disposable {
  share(): Promise<void>;
  unshare(): Promise<void>;
  forget(): Promise<void>;
}

export function registerTeam(s: Services): Team {
  const item = new TeamStatusItem();
  let timer: NodeJS.Timeout | undefined;
  let last: TeamStatus | undefined;

  const request = async <T>(method: string, p: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: T }> => {
    if (s.supervisor.state.kind !== 'connected') throw new Error('the memory worker is not running');
    return s.supervisor.client.request<T>(method, p, body, timeoutMs);
  };

  const refresh = async (): Promise<TeamStatus | undefined> => {
    try {
      const r = await request<TeamStatus>('GET', '/api/team/status');
      last = r.status === 200 ? r.body : undefined;
    } catch {
      last = undefined;
    }
    item.update(last);
    schedule();
    return last;
  };

  const handOver = async (url: string | null): Promise<void> => {
    const r = await request<TeamStatus | { error: string }>('POST', '/api/team/connection', { url }, 20_000);
    if (r.status !== 200) throw new Error((r.body as { error?: string }).error ?? `HTTP ${r.status}`);
  };

  const waitConnected = async (ms: number): Promise<TeamStatus | undefined> => {
    const end = Date.now() + ms;
    for (;;) {
      const st = await refresh();
      if (!st || st.state === 'connected' || st.state === 'error' || Date.now() > end) return st;
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const askUrl = async (): Promise<string | undefined> => {
    const url = await vscode.window.showInputBox({
      title: vscode.l10n.t('Team hub (PostgreSQL)'),
      prompt: vscode.l10n.t('Connection string of the team hub, e.g. postgres://alice:…@db.example.com:5432/team_hub?sslmode=require. Kept in VS Code secret storage; never in settings or logs.'),
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (/^postgres(ql)?:\/\/\S+$/.test(v.trim()) ? undefined : vscode.l10n.t('A postgres:// or postgresql:// URL')),
    });
    return url?.trim() || undefined;
  };

  const worker = s.supervisor.onState((st) => {
    if (st.kind !== 'connected') return item.update(undefined);
    // A worker started elsewhere (the CLI) gets the stored connection string too.
    void (async () => {
      const url = await s.context.secrets.get(TEAM_URL_SECRET).then(undefined, () => undefined);
      const now = await refresh();
      if (url && now && (now.source === null || now.state === 'off')) await handOver(url).catch((e: Error) => s.log.warn(`team hub connection not handed over: ${e.message}`));
      await refresh();
    })();
  });
  // Every refresh sets the next one from what it saw: slower while team memory is off (one cheap GET a
  // minute notices a CLI connect), soon while records are being pushed (so "Team N" does not linger).
  let disposed = false;
  function schedule(): void {
    if (disposed) return;
    clearTimeout(timer);
    const ms = !last || last.state === 'off' ? 4 * POLL_MS : last.state === 'connected' && last.waiting > 0 ? PUSHING_POLL_MS : POLL_MS;
    timer = setTimeout(() => void refresh(), ms);
  }
  schedule();

  async function share(): Promise<void> {
    let st = await refresh();
    if (!st) return void vscode.window.showErrorMessage(vscode.l10n.t('The memory worker is not running, or has no team memory; update Claude Mem.'));
    if (st.state !== 'connected') {
      const stored = await s.context.secrets.get(TEAM_URL_SECRET);
      const url = st.state === 'error' || !stored ? await askUrl() : stored;
      if (!url) return;
      const after = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Connecting to the team hub…') }, async () => {
        await handOver(url);
        return waitConnected(15_000);
      });
      st = after;
      if (after?.state !== 'connected') {
        return void vscode.window.showErrorMessage(vscode.l10n.t('Team hub: {0}. See docs/team.md for the set-up.', `${after?.state ?? vscode.l10n.t('unreachable')}${after?.lastError ? `: ${after.lastError}` : ''}`));
      }
      await s.context.secrets.store(TEAM_URL_SECRET, url);
      s.log.info(`team hub connected (${after.hub}) as ${after.author}`);
    }
    const current = s.project();
    const projects = await request<{ projects: { name: string }[] }>('GET', '/api/projects').then((r) => r.body.projects.map((p) => p.name), () => [] as string[]);
    const shared = new Set(st?.shares.map((x) => x.project) ?? []);
    const names = [current, ...projects.filter((p) => p !== current)].filter((p) => !shared.has(p));
    const pick = await vscode.window.showQuickPick(
      names.map((n) => ({ label: n, description: n === current ? 'this workspace' : undefined })),
      { placeHolder: vscode.l10n.t("Share which project's memory with your team? (observations and summaries, secrets redacted)") },
    );
    if (!pick) return;
    const what = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Observations and summaries'), prompts: false },
        { label: vscode.l10n.t('Observations, summaries and my prompts'), description: vscode.l10n.t('prompts are shared only when you choose this'), prompts: true },
      ],
      { placeHolder: vscode.l10n.t('What of "{0}" should teammates get?', pick.label) },
    );
    if (!what) return;
    const r = await request<{ project: string; team: string; queued: number; error?: string }>('POST', '/api/team/share', { project: pick.label, prompts: what.prompts }, 30_000);
    if (r.status !== 200) return void vscode.window.showErrorMessage(vscode.l10n.t('Sharing {0} failed: {1}', pick.label, r.body.error ?? `HTTP ${r.status}`));
    void vscode.window.showInformationMessage(vscode.l10n.t('Sharing "{0}" with team {1}; {2} record(s) on their way.', r.body.project, r.body.team, r.body.queued));
    await refresh();
  }

  async function unshare(): Promise<void> {
    const st = await refresh();
    const names = st?.shares.map((x) => x.project) ?? [];
    if (names.length === 0) return void vscode.window.showInformationMessage(vscode.l10n.t('No project is shared.'));
    const pick = await vscode.window.showQuickPick(names, { placeHolder: vscode.l10n.t('Stop sharing which project? (what is on the hub stays)') });
    if (!pick) return;
    await request('POST', '/api/team/unshare', { project: pick });
    await refresh();
  }

  async function forget(): Promise<void> {
    await s.context.secrets.delete(TEAM_URL_SECRET);
    await handOver(null).catch(() => undefined);
    await refresh();
    void vscode.window.showInformationMessage(vscode.l10n.t('Team hub connection removed from secret storage.'));
  }

  return {
    share: () => share().catch((e: Error) => void vscode.window.showErrorMessage(vscode.l10n.t('Team memory: {0}', e.message))),
    unshare: () => unshare().catch((e: Error) => void vscode.window.showErrorMessage(vscode.l10n.t('Team memory: {0}', e.message))),
    forget: () => forget().catch((e: Error) => void vscode.window.showErrorMessage(vscode.l10n.t('Team memory: {0}', e.message))),
    dispose: () => {
      disposed = true;
      clearTimeout(timer);
      timer = undefined;
      worker.dispose();
      item.dispose();
    },
  };
}
