// Commands about the worker and capture: restart, pause/resume, the API key, Claude Code hooks, panel, log.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InstallError, installClaudeCode } from '../../common/node/install';
import { refreshLauncher } from './agentHooks';
import { PANEL_VIEW_ID } from '../panel';
import type { Services } from '../services';

export function restartCommand(s: Services): () => Promise<void> {
  return async () => {
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Restarting the memory worker…') }, () => s.supervisor.restart());
    const st = s.supervisor.state;
    if (st.kind === 'connected') void vscode.window.showInformationMessage(vscode.l10n.t('Memory worker running (pid {0}).', st.pid));
    else void vscode.window.showWarningMessage(vscode.l10n.t('The memory worker did not come back yet; it keeps retrying. See "Claude Mem: Show Log".'));
  };
}

export function pauseCommand(s: Services, paused: boolean): () => Promise<void> {
  return async () => {
    await s.setPaused(paused);
    void vscode.window.setStatusBarMessage(paused ? vscode.l10n.t('Memory capture paused') : vscode.l10n.t('Memory capture resumed'), 3000);
  };
}

/** Used by the Memory panel's pause button: flips the state and returns the new one. */
export function toggleCaptureCommand(s: Services): () => Promise<{ paused: boolean }> {
  return async () => {
    const paused = !s.paused();
    await s.setPaused(paused);
    return { paused };
  };
}

export function setApiKeyCommand(s: Services): () => Promise<void> {
  return async () => {
    const key = await vscode.window.showInputBox({
      prompt: vscode.l10n.t('Anthropic API key for compressing memory with Claude. Stored in VS Code secret storage and passed only to the memory worker.'),
      password: true,
      ignoreFocusOut: true,
      placeHolder: 'sk-ant-…',
      validateInput: (v) => (v.trim() === '' || /\s/.test(v.trim()) ? vscode.l10n.t('Paste the key (no spaces)') : undefined),
    });
    if (key === undefined) return;
    await s.context.secrets.store(s.apiKeySecret, key.trim());
    s.log.info('Anthropic API key stored in secret storage');
    // The running worker gets it at once (memory only); a worker forked later gets it in its environment.
    const sent = await s.sendApiKey(key.trim());
    if (sent) void vscode.window.showInformationMessage(vscode.l10n.t('API key stored and handed to the memory worker.'));
    else void vscode.window.showInformationMessage(vscode.l10n.t('API key stored. The memory worker gets it when it next starts from this window.'));
  };
}

export function clearApiKeyCommand(s: Services): () => Promise<void> {
  return async () => {
    await s.context.secrets.delete(s.apiKeySecret);
    await s.sendApiKey(null);
    s.log.info('Anthropic API key removed from secret storage');
    void vscode.window.showInformationMessage(vscode.l10n.t('API key removed. A worker started from now on compresses without it.'));
  };
}

export function openPanelCommand(): () => Promise<void> {
  return async () => {
    await vscode.commands.executeCommand(`${PANEL_VIEW_ID}.focus`).then(undefined, () => vscode.commands.executeCommand('workbench.view.extension.claudeMem'));
  };
}

/** Install Claude Code Hooks: the same installer as `claude-mem install claude-code`, run in-process. */
export function installHooksCommand(s: Services): () => Promise<void> {
  return async () => {
    const scope = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('For me (all projects)'), description: '~/.claude/settings.json', scope: 'user' as const },
        { label: vscode.l10n.t('For this project'), description: vscode.l10n.t('.claude/settings.json in the workspace'), scope: 'project' as const },
      ],
      { placeHolder: vscode.l10n.t('Install the Claude Code hooks where?') },
    );
    if (!scope) return;
    const projectDir = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
    if (scope.scope === 'project' && !projectDir) return void vscode.window.showErrorMessage(vscode.l10n.t('Open a folder first.'));
    const target = s.supervisor.client.target;
    try {
      const r = installClaudeCode({
        scope: scope.scope,
        projectDir,
        nodePath: process.execPath,
        cliPath: s.context.asAbsolutePath(path.join('dist', 'cli.js')),
        runAsNode: typeof process.versions.electron === 'string',
        // Through <data dir>/bin/claude-mem, so an extension update does not break the hooks.
        launcher: refreshLauncher(s.context, target.dataDir, s.log),
        mcpEnv: { CLAUDE_MEM_DATA_DIR: target.dataDir, CLAUDE_MEM_WORKER_PORT: String(target.port) },
      });
      s.log.info(`Claude Code hooks installed (${r.scope}): ${r.settings.file}${r.settings.changed ? '' : ' (already up to date)'}${r.settings.backup ? `, backup ${r.settings.backup}` : ''}${r.mcp ? `; MCP: ${r.mcp.file}${r.mcp.skipped ? ` (${r.mcp.skipped})` : ''}` : ''}`);
      const open = vscode.l10n.t('Open Settings File');
      const pick = await vscode.window.showInformationMessage(
        r.settings.changed ? vscode.l10n.t('Claude Code hooks installed in {0}.', r.settings.file) : vscode.l10n.t('Claude Code hooks were already installed in {0}.', r.settings.file),
        open,
      );
      if (pick === open) await vscode.window.showTextDocument(vscode.Uri.file(r.settings.file));
    } catch (e) {
      const msg = e instanceof InstallError ? e.message : vscode.l10n.t('unexpected error: {0}', (e as Error).message);
      s.log.error(`installing the Claude Code hooks failed: ${msg}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Installing the Claude Code hooks failed: {0}', msg));
    }
  };
}
