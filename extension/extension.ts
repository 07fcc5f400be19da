// Extension entry: activate (SessionStart) and deactivate (SessionEnd). Wiring only.
import * as vscode from 'vscode';

let log: vscode.LogOutputChannel | undefined;

export function activate(context: vscode.ExtensionContext): void {
  log = vscode.window.createOutputChannel('Claude Mem', { log: true });
  context.subscriptions.push(log);
  log.info(`claude-mem-vscode activated (session ${vscode.env.sessionId})`);
}

export function deactivate(): void {
  log?.info('claude-mem-vscode deactivated');
}
