// Task runs ending, with their exit codes.
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';

export function registerTasks(capture: Capture): vscode.Disposable[] {
  return [
    vscode.tasks.onDidEndTaskProcess((e) => {
      const t = e.execution.task;
      const folder = typeof t.scope === 'object' && t.scope && 'uri' in t.scope ? t.scope.uri.fsPath : undefined;
      capture.handle({ kind: 'task', task: t.name, exitCode: e.exitCode, source: t.source, folder });
    }),
  ];
}
