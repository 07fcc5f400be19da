// The Memory panel (webview view in the "Memory" activity bar container). Filled in by the panel issue.
import * as vscode from 'vscode';
import type { WorkerClient } from '../workerClient';

export const PANEL_VIEW_ID = 'claudeMem.panel';

export interface PanelDeps {
  client: () => WorkerClient | undefined;
  log: vscode.LogOutputChannel;
}

export function registerMemoryPanel(_context: vscode.ExtensionContext, _deps: PanelDeps): vscode.Disposable {
  return new vscode.Disposable(() => undefined);
}
