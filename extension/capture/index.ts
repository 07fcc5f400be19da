// Every capture kind, registered together. Each adapter only turns a vscode event into a CaptureEvent.
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';
import { registerDebug } from './debug';
import { registerFileOperations } from './files';
import { registerFocus } from './focus';
import { registerSaves } from './saves';
import { registerTasks } from './tasks';
import { registerTerminal } from './terminal';

export function registerCapture(capture: Capture, o: { terminalOutputChars: () => number | undefined; onGitignoreSaved: () => void }): vscode.Disposable {
  return vscode.Disposable.from(
    ...registerSaves(capture, o.onGitignoreSaved),
    ...registerFileOperations(capture),
    ...registerTerminal(capture, o.terminalOutputChars),
    ...registerTasks(capture),
    ...registerDebug(capture),
    ...registerFocus(capture),
  );
}
