// Saves: a diff against the last known content (kept from open and from the previous save).
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';

export function registerSaves(capture: Capture, onGitignoreSaved: () => void): vscode.Disposable[] {
  const isFile = (d: vscode.TextDocument) => d.uri.scheme === 'file';
  // Documents already open when we start become baselines too (after activation, off the hot path).
  setTimeout(() => {
    for (const d of vscode.workspace.textDocuments) if (isFile(d)) capture.remember(d.uri.fsPath, d.getText());
  }, 0);
  return [
    vscode.workspace.onDidOpenTextDocument((d) => {
      if (isFile(d)) capture.remember(d.uri.fsPath, d.getText());
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (isFile(d)) capture.forget(d.uri.fsPath);
    }),
    vscode.workspace.onDidSaveTextDocument((d) => {
      if (!isFile(d)) return;
      if (/(^|[\\/])\.gitignore$/.test(d.uri.fsPath)) onGitignoreSaved();
      capture.handle({ kind: 'save', file: d.uri.fsPath, before: undefined, after: d.getText() });
    }),
  ];
}
