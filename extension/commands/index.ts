// Every command of the Command Palette (package.json lists them), registered together. Freshness
// registers its own (extension/freshness/index.ts).
import * as vscode from 'vscode';
import type { Services } from '../services';
import type { Team } from '../team';
import { installAgentHooksCommand, registerAgentHooks } from './agentHooks';
import { exportCommand, forgetProjectCommand, importCommand, saveSelectionCommand, showContextCommand, showObservationCommand } from './memory';
import { searchCommand } from './search';
import { clearApiKeyCommand, installHooksCommand, openPanelCommand, pauseCommand, restartCommand, setApiKeyCommand, toggleCaptureCommand } from './worker';

export function registerCommands(services: Services, team: Team): void {
  const { context, log } = services;
  const reg = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  reg('claudeMem.search', searchCommand(services));
  reg('claudeMem.showContext', showContextCommand(services));
  reg('claudeMem.showObservation', showObservationCommand());
  reg('claudeMem.saveSelection', saveSelectionCommand(services));
  reg('claudeMem.openPanel', openPanelCommand());
  reg('claudeMem.export', exportCommand(services));
  reg('claudeMem.import', importCommand(services));
  reg('claudeMem.forgetProject', forgetProjectCommand(services));
  reg('claudeMem.pauseCapture', pauseCommand(services, true));
  reg('claudeMem.resumeCapture', pauseCommand(services, false));
  reg('claudeMem.toggleCapture', toggleCaptureCommand(services));
  reg('claudeMem.restartWorker', restartCommand(services));
  reg('claudeMem.installClaudeCodeHooks', installHooksCommand(services));
  reg('claudeMem.installAgentHooks', installAgentHooksCommand(services));
  context.subscriptions.push(registerAgentHooks(services));
  reg('claudeMem.setApiKey', setApiKeyCommand(services));
  reg('claudeMem.clearApiKey', clearApiKeyCommand(services));
  reg('claudeMem.showLog', () => log.show());
  reg('claudeMem.shareProject', () => team.share());
  reg('claudeMem.unshareProject', () => team.unshare());
  reg('claudeMem.forgetTeamHub', () => team.forget());
}
