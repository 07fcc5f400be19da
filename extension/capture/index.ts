// Every capture kind, registered together. Each adapter only turns a vscode event into a CaptureEvent.
import * as vscode from 'vscode';
import { Capture } from '../core/capture';
import { Exclusions } from '../core/exclusions';
import { enabledGlobs, SECTION } from '../core/settings';
import { withCitations } from '../freshness/cite';
import { unsavedText } from '../freshness/controller';
import type { Session, WindowState } from '../session';
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

/** Capture for this window: the rules (trust, pause, settings, exclusions) and every capture kind. */
export function startCapture(w: WindowState, s: Session): Capture {
  const settings = w.settings;
  const filesExclude = () => (settings().respectFilesExclude ? enabledGlobs(vscode.workspace.getConfiguration('files').get('exclude')) : []);
  const exclusions = new Exclusions({ globs: settings().exclude, filesExclude: filesExclude(), respectGitignore: settings().respectGitignore });
  const capture = new Capture({
    trusted: () => vscode.workspace.isTrusted,
    paused: w.paused,
    settings: () => settings().capture,
    exclusions,
    folderOf: w.folderOf,
    primaryFolder: () => w.folders()[0],
    projectOf: w.projectOf,
    send: (project, req) => void s.tracker.observe(project, withCitations(req, vscode.workspace.getConfiguration(SECTION).get<boolean>('freshness.enabled', true), unsavedText)),
    log: w.log,
  });
  w.context.subscriptions.push(
    registerCapture(capture, {
      terminalOutputChars: () => {
        const c = settings().capture;
        return c.enabled && c.kinds.terminal && vscode.workspace.isTrusted && !w.paused() ? c.outputChars : undefined;
      },
      onGitignoreSaved: () => exclusions.gitignore.invalidate(),
    }),
    w.onDidChangeSettings(() => exclusions.update({ globs: settings().exclude, filesExclude: filesExclude(), respectGitignore: settings().respectGitignore })),
    { dispose: () => capture.dispose() },
  );
  return capture;
}
