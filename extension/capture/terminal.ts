// Terminal commands, where shell integration reports them: command line, exit code, and a bounded
// head and tail of the output (read from the command's start, as the API requires).
import * as vscode from 'vscode';
import type { Capture } from '../core/capture';
import { BoundedOutput } from '../core/observe';

export function registerTerminal(capture: Capture, wanted: () => number | undefined): vscode.Disposable[] {
  const outputs = new WeakMap<vscode.TerminalShellExecution, { out: BoundedOutput; done: Promise<void> }>();
  return [
    vscode.window.onDidStartTerminalShellExecution((e) => {
      const max = wanted(); // undefined: terminal capture is off right now; 0: command lines only
      if (!max) return;
      const out = new BoundedOutput(max * 2); // raw data carries escape sequences: read more, clean later
      const done = (async () => {
        try {
          for await (const chunk of e.execution.read()) out.push(chunk);
        } catch {
          /* the stream ends with the terminal */
        }
      })();
      outputs.set(e.execution, { out, done });
    }),
    vscode.window.onDidEndTerminalShellExecution(async (e) => {
      const rec = outputs.get(e.execution);
      if (rec) await Promise.race([rec.done, new Promise((r) => setTimeout(r, 500))]);
      capture.handle({
        kind: 'terminal',
        commandLine: e.execution.commandLine.value,
        exitCode: e.exitCode,
        output: rec?.out.text(),
        cwd: e.execution.cwd?.scheme === 'file' ? e.execution.cwd.fsPath : undefined,
      });
    }),
  ];
}
