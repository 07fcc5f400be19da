// Files created, deleted and renamed through VS Code (explorer, refactorings, workspace edits).
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';

export function registerFileOperations(capture: Capture): vscode.Disposable[] {
  const files = (uris: readonly vscode.Uri[]) => uris.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
  return [
    vscode.workspace.onDidCreateFiles((e) => {
      for (const file of files(e.files)) capture.handle({ kind: 'create', file });
    }),
    vscode.workspace.onDidDeleteFiles((e) => {
      for (const file of files(e.files)) capture.handle({ kind: 'delete', file });
    }),
    vscode.workspace.onDidRenameFiles((e) => {
      for (const f of e.files) {
        if (f.oldUri.scheme === 'file' && f.newUri.scheme === 'file') capture.handle({ kind: 'rename', file: f.oldUri.fsPath, newFile: f.newUri.fsPath });
      }
    }),
  ];
}
