// VS Code agent hooks (Copilot agent sessions): the stable launcher rewritten on every activation,
// the "Install Agent Hooks" command, and a one-time offer when VS Code has agent hooks and none of
// ours are installed. The hook commands run <data dir>/bin/claude-mem, never this version's folder.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { claudeCodeInstallState, InstallError, installVscodeAgent, vscodeAgentInstallState } from '../../common/node/install';
import { writeLauncher } from '../../common/node/launcher';
import type { Services } from '../services';

export const INSTALL_AGENT_HOOKS = 'claudeMem.installAgentHooks';
const OFFERED_KEY = 'claudeMem.agentHooksOffered';

/** Points <data dir>/bin/claude-mem at this install. Never throws: hooks then run whatever it named before. */
export function refreshLauncher(context: vscode.ExtensionContext, dataDir: string, log: vscode.LogOutputChannel): string | undefined {
  try {
    const r = writeLauncher({ dataDir, node: process.execPath, cli: context.asAbsolutePath(path.join('dist', 'cli.js')), runAsNode: typeof process.versions.electron === 'string' });
    if (r.changed) log.info(`hook launcher ${r.file} now runs this install`);
    return r.file;
  } catch (e) {
    log.warn(`could not write the hook launcher: ${(e as Error).message}`);
    return undefined;
  }
}

function workspaceDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}

export function installAgentHooksCommand(s: Services): () => Promise<void> {
  return async () => {
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('For me (all workspaces)'), description: '~/.copilot/hooks/claude-mem.json', scope: 'user' as const },
        { label: vscode.l10n.t('For this workspace'), description: vscode.l10n.t('.github/hooks/claude-mem.json (shared through the repository)'), scope: 'workspace' as const },
      ],
      { placeHolder: vscode.l10n.t('Install the agent hooks (Copilot agent sessions write to and read from memory) where?') },
    );
    if (!pick) return;
    const projectDir = workspaceDir();
    if (pick.scope === 'workspace' && !projectDir) return void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder first.'));
    const dataDir = s.supervisor.client.target.dataDir;
    const launcher = refreshLauncher(s.context, dataDir, s.log);
    try {
      const r = installVscodeAgent({
        scope: pick.scope,
        projectDir,
        launcher,
        nodePath: process.execPath,
        cliPath: s.context.asAbsolutePath(path.join('dist', 'cli.js')),
        runAsNode: typeof process.versions.electron === 'string',
        env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir },
      });
      s.log.info(`agent hooks installed (${r.scope}): ${r.file.file}${r.file.changed ? '' : ' (already up to date)'}${r.file.backup ? `, backup ${r.file.backup}` : ''}`);
      const open = vscode.l10n.t('Open Hook File');
      const answer = await vscode.window.showInformationMessage(
        (r.file.changed ? vscode.l10n.t('Agent hooks installed in {0}.', r.file.file) : vscode.l10n.t('Agent hooks were already installed in {0}.', r.file.file)) +
          ` ${vscode.l10n.t('Run by VS Code agent sessions (Local harness), Copilot on the VS Code Agent Host and Copilot CLI.')}` +
          (claudeInstalled() ? ` ${vscode.l10n.t('Claude Code hooks are installed too: VS Code runs them as well only with chat.useClaudeHooks on; each event is stored once and the context injected once.')}` : ''),
        open,
      );
      if (answer === open) await vscode.window.showTextDocument(vscode.Uri.file(r.file.file));
    } catch (e) {
      const msg = e instanceof InstallError ? e.message : vscode.l10n.t('unexpected error: {0}', (e as Error).message);
      s.log.error(`installing the agent hooks failed: ${msg}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Installing the agent hooks failed: {0}', msg));
    }
  };
}

function claudeInstalled(): boolean {
  const dir = workspaceDir();
  return claudeCodeInstallState({ scope: 'user' }).hooks > 0 || (!!dir && claudeCodeInstallState({ scope: 'project', projectDir: dir }).hooks > 0);
}

/** Agent hooks exist in this VS Code when its hook-file setting is registered. */
function agentHooksAvailable(): boolean {
  return vscode.workspace.getConfiguration('chat').inspect('hookFilesLocations') !== undefined;
}

/** Once per user: offer the install when VS Code has agent hooks and none of ours would run. */
export function offerAgentHooksOnce(s: Services): void {
  if (s.context.globalState.get<boolean>(OFFERED_KEY) || !agentHooksAvailable() || !vscode.workspace.isTrusted) return;
  const dir = workspaceDir();
  const installed = vscodeAgentInstallState({ scope: 'user' }).hooks > 0 || (!!dir && vscodeAgentInstallState({ scope: 'workspace', projectDir: dir }).hooks > 0) || claudeInstalled();
  if (installed) return;
  void s.context.globalState.update(OFFERED_KEY, true);
  const install = vscode.l10n.t('Install Agent Hooks');
  void vscode.window
    .showInformationMessage(vscode.l10n.t("Remember Copilot agent sessions too? Agent hooks let memory record their prompts, edits and commands, and give each new session the project's context."), install, vscode.l10n.t('Not now'))
    .then((a) => (a === install ? vscode.commands.executeCommand(INSTALL_AGENT_HOOKS) : undefined));
}

/** Wiring for extension.ts: the launcher right after activation, the offer once the worker answers. */
export function registerAgentHooks(s: Services): vscode.Disposable {
  setImmediate(() => refreshLauncher(s.context, s.supervisor.client.target.dataDir, s.log));
  const sub = s.supervisor.onState((st) => {
    if (st.kind === 'connected') {
      sub.dispose();
      offerAgentHooksOnce(s);
    }
  });
  return sub;
}
