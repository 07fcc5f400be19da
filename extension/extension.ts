// Extension entry: activate (SessionStart) and deactivate (SessionEnd). Wiring only: one call per
// feature, each in its own folder (session/, status.ts, capture/, model/, chat/, tools/, panel/,
// freshness/, team/, commands/). activate returns at once; finding or starting the worker, reading
// the API key and fetching the project context all happen afterwards.
import * as vscode from 'vscode';
import { startCapture } from './capture';
import { registerChat } from './chat/participant';
import { registerCommands } from './commands';
import { registerContentProvider } from './contentProvider';
import type { CompressionServer } from './core/compressionServer';
import type { SessionTracker } from './core/session';
import type { WorkerSupervisor } from './core/supervisor';
import { startFreshness } from './freshness';
import { startCompression } from './compression';
import { openMemoryPanel } from './panel';
import { createServices, type Services } from './services';
import { openWindow, PAUSED_KEY, startSession } from './session';
import { registerStatusBar } from './status';
import { registerTeam } from './team';
import { registerMemoryTools } from './tools/register';

let active: { session: SessionTracker; supervisor: WorkerSupervisor; compression: CompressionServer; log: vscode.LogOutputChannel; dispose(): void } | undefined;

/** A feature the host may lack (chat and language-model tools exist from VS Code 1.95 on): its failure is logged, the rest still runs. */
function optional(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, what: string, register: () => vscode.Disposable | vscode.Disposable[]): void {
  try {
    const d = register();
    context.subscriptions.push(...(Array.isArray(d) ? d : [d]));
  } catch (e) {
    log.warn(`${what} unavailable: ${(e as Error).message}`);
  }
}

export function activate(context: vscode.ExtensionContext): { services: Services } {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Claude Mem', { log: true });
  context.subscriptions.push(log);

  const win = openWindow(context, log);
  const session = startSession(win);
  const status = registerStatusBar(win, session);
  const capture = startCapture(win, session);
  const model = startCompression(win, session);
  const services = createServices(win, session, capture, model, status);
  context.subscriptions.push(registerContentProvider(session.api, (p) => session.contextCache.get(p)));

  optional(context, log, '@memory chat participant', () => registerChat(services));
  optional(context, log, 'language-model tools', () => registerMemoryTools(services));
  optional(context, log, 'memory panel', () => openMemoryPanel(win, session));
  // Freshness: the memories of the file in the editor (CodeLens, view) and stale checks (docs/freshness.md).
  optional(context, log, 'file memories', () => startFreshness(win, session));

  const team = registerTeam(services);
  context.subscriptions.push(team);
  registerCommands(services, team);
  void vscode.commands.executeCommand('setContext', PAUSED_KEY, win.paused());

  active = { session: session.tracker, supervisor: session.supervisor, compression: model.compression, log, dispose: () => session.supervisor.dispose() };

  // Everything slow happens after activate has returned.
  setImmediate(() => {
    status.refresh();
    void (async () => {
      await model.loadApiKey();
      await session.supervisor.start();
      model.compression.start();
    })().catch((e: Error) => log.error(`worker start failed: ${e.stack ?? e.message}`));
  });

  log.info(`activated in ${Date.now() - started} ms (session ${win.sessionId}, ${vscode.workspace.isTrusted ? 'trusted' : 'untrusted: nothing is captured'})`);
  return { services };
}

/** SessionEnd: mark the session complete (bounded wait), leave the worker running for other clients. */
export async function deactivate(): Promise<void> {
  const a = active;
  active = undefined;
  if (!a) return;
  try {
    await Promise.all([a.session.complete('window-closed', 1500), a.compression.stop()]);
  } finally {
    a.dispose();
    a.log.info('deactivated');
  }
}
