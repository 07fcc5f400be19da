// Debug sessions ending.
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';

export function registerDebug(capture: Capture): vscode.Disposable[] {
  return [
    vscode.debug.onDidTerminateDebugSession((s) => {
      capture.handle({ kind: 'debug', name: s.name, type: s.type, folder: s.workspaceFolder?.uri.fsPath });
    }),
  ];
}
