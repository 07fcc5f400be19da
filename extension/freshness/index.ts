// Registers freshness in the editor: the controller (checks), the "Memories for This File" view,
// the CodeLens, and the commands. Called once from extension.ts.
import * as vscode from 'vscode';
import type { Requester } from '../core/memoryApi';
import type { Session, WindowState } from '../session';
import { FreshnessApi } from './api';
import { freshnessCommands } from './commands';
import { FreshnessController } from './controller';
import { FileMemoriesLens, FileMemoriesView } from './view';

export interface FreshnessDeps {
  client(): Requester | undefined;
  projectOf(fsPath: string): string;
  log: vscode.LogOutputChannel;
}

export interface Freshness extends vscode.Disposable {
  controller: FreshnessController;
  /** After the worker connects or a new memory arrives. */
  refresh(project?: string, fullCheck?: boolean): void;
}

const SECTION = 'claudeMem.freshness';

export function registerFreshness(deps: FreshnessDeps): Freshness {
  const cfg = () => vscode.workspace.getConfiguration(SECTION);
  const enabled = () => cfg().get<boolean>('enabled', true);
  const api = new FreshnessApi(deps.client);
  const controller = new FreshnessController({ api, projectOf: deps.projectOf, enabled, log: deps.log });
  const view = new FileMemoriesView(controller);
  const lens = new FileMemoriesLens(controller, () => enabled() && cfg().get<boolean>('codeLens', true));
  const cmds = freshnessCommands(api, controller);
  const subs: vscode.Disposable[] = [
    controller,
    view,
    lens,
    vscode.window.registerTreeDataProvider('claudeMem.fileMemories', view),
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lens),
    vscode.commands.registerCommand('claudeMem.freshness.open', cmds.open),
    vscode.commands.registerCommand('claudeMem.freshness.confirm', cmds.confirm),
    vscode.commands.registerCommand('claudeMem.freshness.retire', cmds.retire),
    vscode.commands.registerCommand('claudeMem.freshness.verify', cmds.verify),
    vscode.commands.registerCommand('claudeMem.fileMemories.pick', cmds.pick),
    vscode.commands.registerCommand('claudeMem.freshness.checkNow', () => controller.checkAll()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) controller.invalidate();
    }),
  ];
  return {
    controller,
    refresh(project, fullCheck) {
      controller.invalidate(project);
      if (fullCheck) void controller.checkAll();
    },
    dispose() {
      for (const s of subs) s.dispose();
    },
  };
}

/** Freshness for this window, kept current: a full check on connect, the file's memories on every change. */
export function startFreshness(w: WindowState, s: Session): vscode.Disposable {
  const freshness = registerFreshness({
    client: () => (s.supervisor.state.kind === 'connected' ? s.supervisor.client : undefined),
    projectOf: (p) => w.projectOf(w.folderOf(p) || w.folders()[0]),
    log: w.log,
  });
  return vscode.Disposable.from(
    freshness,
    s.onState((st) => {
      if (st.kind === 'connected') freshness.refresh(undefined, true);
    }),
    s.onEvent((e) => {
      const project = typeof e.data.project === 'string' ? e.data.project : undefined;
      if (e.event === 'new_observation' || e.event === 'memory_freshness' || e.event === 'observation_deleted') freshness.refresh(project);
    }),
  );
}
