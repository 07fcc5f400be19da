// A file that keeps the editor focus for a while counts as "read" (debounced in the core).
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';

export function registerFocus(capture: Capture): vscode.Disposable[] {
  const fileOf = (e: vscode.TextEditor | undefined) => (e && e.document.uri.scheme === 'file' ? e.document.uri.fsPath : undefined);
  return [vscode.window.onDidChangeActiveTextEditor((e) => capture.focusChanged(fileOf(e)))];
}
