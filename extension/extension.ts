// Extension entry: activate (SessionStart) and deactivate (SessionEnd). Wiring only: every piece of
// logic lives in core/, chat/, tools/ and capture/. activate returns at once; finding or starting
// the worker, reading the API key and fetching the project context all happen afterwards.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultDataDir, defaultPort } from '../common/node/config';
import { projectFromCwd } from '../common/node/project';
import type { StreamEvent } from '../common/contract';
import { registerCapture } from './capture';
import { installAgentHooksCommand, registerAgentHooks } from './commands/agentHooks';
import { lmRerank, registerChatParticipant } from './chat/participant';
import { exportCommand, forgetProjectCommand, importCommand, saveSelectionCommand, showContextCommand, showObservationCommand } from './commands/memory';
import { searchCommand } from './commands/search';
import { clearApiKeyCommand, installHooksCommand, openPanelCommand, pauseCommand, restartCommand, setApiKeyCommand, toggleCaptureCommand } from './commands/worker';
import { registerContentProvider } from './contentProvider';
import { Capture, folderLookup } from './core/capture';
import { CompressionServer } from './core/compressionServer';
import { ContextCache } from './core/contextCache';
import { Exclusions } from './core/exclusions';
import { MemoryApi } from './core/memoryApi';
import { QueuedPoster } from './core/poster';
import { SessionTracker, windowSessionId } from './core/session';
import { contextParams, enabledGlobs, readSettings, SECTION, workerEnv, type ExtensionSettings } from './core/settings';
import { WorkerSupervisor } from './core/supervisor';
import { Debouncer } from './core/timers';
import { vscodeLmPort } from './lmProvider';
import { registerFreshness, type Freshness } from './freshness';
import { withCitations } from './freshness/cite';
import { unsavedText } from './freshness/controller';
import { registerMemoryPanel } from './panel';
import type { Services } from './services';
import { StatusBar } from './status';
import { registerTeam } from './team';
import { registerTools } from './tools/register';

const API_KEY_SECRET = 'claudeMem.anthropicApiKey';
const PAUSED_KEY = 'claudeMem.capturePaused';

let active: { session: SessionTracker; supervisor: WorkerSupervisor; compression: CompressionServer; log: vscode.LogOutputChannel; dispose(): void } | undefined;

function loadSettings(): ExtensionSettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return readSettings((k) => cfg.get(k));
}

function targetOf(s: ExtensionSettings, log: vscode.LogOutputChannel): { host: string; port: number; dataDir: string } {
  let port = s.port;
  if (!port) {
    try {
      port = defaultPort(process.env);
    } catch (e) {
      log.warn((e as Error).message);
      port = defaultPort({});
    }
  }
  return { host: process.env.CLAUDE_MEM_WORKER_HOST || '127.0.0.1', port, dataDir: path.resolve(s.dataDir || defaultDataDir(process.env)) };
}

export function activate(context: vscode.ExtensionContext): { services: Services } {
  const started = Date.now();
  const log = vscode.window.createOutputChannel('Claude Mem', { log: true });
  context.subscriptions.push(log);
  let settings = loadSettings();
  let apiKey: string | undefined;
  const sid = windowSessionId(vscode.env.sessionId, vscode.env.machineId, process.pid, Date.now());
  if (sid.derived) log.warn(`this host gives no real session id ("${vscode.env.sessionId}"); using ${sid.id} for this window`);

  // Projects, as the worker derives them (git root name), per workspace folder; computed lazily.
  const folders = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const projects = new Map<string, string>();
  const projectOf = (folder: string | undefined): string => {
    if (!folder) return folders()[0] ? projectOf(folders()[0]) : 'unknown';
    let p = projects.get(folder);
    if (!p) {
      p = projectFromCwd(folder);
      projects.set(folder, p);
    }
    return p;
  };
  const folderOf = folderLookup(folders);
  const primaryProject = () => projectOf(folders()[0]);
  const currentProject = () => {
    const doc = vscode.window.activeTextEditor?.document.uri;
    return projectOf((doc?.scheme === 'file' && folderOf(doc.fsPath)) || folders()[0]);
  };

  const supervisor = new WorkerSupervisor({
    target: targetOf(settings, log),
    workerScript: context.asAbsolutePath(path.join('dist', 'worker.js')),
    env: () => workerEnv(settings, apiKey),
    log,
  });
  const poster = new QueuedPoster(() => (supervisor.state.kind === 'connected' ? supervisor.client : undefined));
  const api = new MemoryApi(() => supervisor.client);
  const contextCache = new ContextCache(api, () => contextParams(settings.context));

  const session = new SessionTracker({
    sessionId: sid.id,
    primaryProject,
    cwdOf: (project) => folders().find((f) => projectOf(f) === project),
    poster: () => poster,
    idleMs: () => settings.idleSummaryMs,
    // The trust and pause rules hold for every kind of capture: @memory turns, Search Memory picks, summaries.
    captureAllowed: () => vscode.workspace.isTrusted && settings.capture.enabled && !paused(),
    onSummary: (s) => log.debug(`summary requested (${s.reason}) for ${s.projects.join(', ')}`),
  });

  const filesExclude = () => (settings.respectFilesExclude ? enabledGlobs(vscode.workspace.getConfiguration('files').get('exclude')) : []);
  const exclusions = new Exclusions({ globs: settings.exclude, filesExclude: filesExclude(), respectGitignore: settings.respectGitignore });
  const paused = () => context.workspaceState.get<boolean>(PAUSED_KEY, false);
  const pauseChanged = new vscode.EventEmitter<boolean>();
  context.subscriptions.push(pauseChanged);
  const status = new StatusBar();
  let today: number | undefined;
  const refreshStatus = () =>
    status.update({ worker: supervisor.state, today, paused: paused(), trusted: vscode.workspace.isTrusted, captureEnabled: settings.capture.enabled });

  const capture = new Capture({
    trusted: () => vscode.workspace.isTrusted,
    paused,
    settings: () => settings.capture,
    exclusions,
    folderOf,
    primaryFolder: () => folders()[0],
    projectOf,
    send: (project, req) => void session.observe(project, withCitations(req, vscode.workspace.getConfiguration(SECTION).get<boolean>('freshness.enabled', true), unsavedText)),
    log,
  });

  const services: Services = {
    context,
    log,
    supervisor,
    api,
    session,
    capture,
    contextCache,
    settings: () => settings,
    project: currentProject,
    paused,
    async setPaused(p) {
      await context.workspaceState.update(PAUSED_KEY, p);
      void vscode.commands.executeCommand('setContext', PAUSED_KEY, p);
      log.info(p ? 'capture paused' : 'capture resumed');
      pauseChanged.fire(p);
      refreshStatus();
    },
    apiKeySecret: API_KEY_SECRET,
    refreshStatus,
    sendApiKey: (key) => sendApiKey(key),
  };

  /** The key goes to the worker's memory only (POST /api/agent/credentials); never logged. */
  async function sendApiKey(key: string | null): Promise<boolean> {
    // A worker forked from now on gets exactly this (none after a removal), without waiting for the secrets event.
    apiKey = key ?? undefined;
    if (supervisor.state.kind !== 'connected') return false;
    try {
      const r = await supervisor.client.request('POST', '/api/agent/credentials', { anthropicApiKey: key }, 3000);
      if (r.status !== 200) log.warn(`the worker did not take the API key (HTTP ${r.status})`);
      return r.status === 200;
    } catch (e) {
      log.warn(`handing the API key to the worker failed: ${(e as Error).message}`);
      return false;
    }
  }

  const compression = new CompressionServer({
    requester: () => (supervisor.state.kind === 'connected' ? supervisor.client : undefined),
    windowId: sid.id,
    port: vscodeLmPort(() => settings.vscodeModelFamily),
    enabled: () => settings.provider === 'vscode' || settings.provider === 'auto',
    log,
  });

  // Status: today's observation count, refreshed on connect and (debounced) on new observations.
  const countToday = new Debouncer<void>(
    () => 1500,
    () => {
      api.countToday(primaryProject()).then(
        (n) => {
          today = n;
          refreshStatus();
        },
        () => undefined,
      );
    },
  );

  let stream: { dispose(): void } | undefined;
  let freshness: Freshness | undefined;
  const onEvent = (e: StreamEvent) => {
    const project = typeof e.data.project === 'string' ? e.data.project : undefined;
    if (e.event === 'new_observation' || e.event === 'memory_freshness' || e.event === 'observation_deleted') freshness?.refresh(project);
    if (e.event === 'new_observation' || e.event === 'observation_deleted' || e.event === 'project_deleted') countToday.poke();
    if (e.event === 'new_summary' || e.event === 'project_deleted' || (e.event === 'new_observation' && e.data.imported)) contextCache.invalidate(project);
  };
  supervisor.onState((st) => {
    refreshStatus();
    if (st.kind === 'connected') {
      void status.checkStorage(supervisor.client).then(refreshStatus);
      poster.flush();
      countToday.poke();
      freshness?.refresh(undefined, true);
      if (apiKey && !st.owned) void sendApiKey(apiKey);
      compression.kick();
      stream ??= supervisor.client.subscribe(onEvent, (up) => {
        if (!up) void supervisor.suspect();
      });
      contextCache.get(primaryProject()).then(
        (t) => log.debug(`project context ready (${t.length} characters)`),
        (e: Error) => log.warn(`project context unavailable: ${e.message}`),
      );
    }
  });

  const chatDeps = { api, project: currentProject, session, context: () => contextCache.get(currentProject()).catch(() => ''), get maxResults() { return settings.maxResults; }, get rerank() { return settings.rerank; } };
  const toolDeps = { api, project: currentProject, context: () => contextCache.get(currentProject()), rerank: lmRerank(() => settings.rerank) };
  const reg = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  context.subscriptions.push(
    status,
    registerContentProvider(api, (p) => contextCache.get(p)),
    registerCapture(capture, {
      terminalOutputChars: () => (settings.capture.enabled && settings.capture.kinds.terminal && vscode.workspace.isTrusted && !paused() ? settings.capture.outputChars : undefined),
      onGitignoreSaved: () => exclusions.gitignore.invalidate(),
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION) && !e.affectsConfiguration('files.exclude')) return;
      settings = loadSettings();
      exclusions.update({ globs: settings.exclude, filesExclude: filesExclude(), respectGitignore: settings.respectGitignore });
      refreshStatus();
      if (e.affectsConfiguration(`${SECTION}.worker`)) log.info('worker settings changed: they apply after "Claude Mem: Restart Worker"');
      if (e.affectsConfiguration(`${SECTION}.compression`)) compression.kick();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: capture starts');
      refreshStatus();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => projects.clear()),
    context.secrets.onDidChange((e) => {
      if (e.key === API_KEY_SECRET) void context.secrets.get(API_KEY_SECRET).then((k) => (apiKey = k || undefined));
    }),
    { dispose: () => capture.dispose() },
    { dispose: () => stream?.dispose() },
    { dispose: () => countToday.cancel() },
  );

  // Chat and language-model tools exist from VS Code 1.95 on; a host without them still gets capture.
  try {
    context.subscriptions.push(registerChatParticipant(context, chatDeps, log));
  } catch (e) {
    log.warn(`@memory chat participant unavailable: ${(e as Error).message}`);
  }
  try {
    context.subscriptions.push(...registerTools(toolDeps, log));
  } catch (e) {
    log.warn(`language-model tools unavailable: ${(e as Error).message}`);
  }
  try {
    context.subscriptions.push(
      registerMemoryPanel(context, {
        client: () => supervisor.client,
        log,
        project: currentProject,
        capture: { isPaused: paused, onDidChange: (l) => pauseChanged.event(l) },
      }),
    );
  } catch (e) {
    log.warn(`memory panel unavailable: ${(e as Error).message}`);
  }

  // Freshness: the memories of the file in the editor (CodeLens, view) and stale checks (docs/freshness.md).
  try {
    freshness = registerFreshness({ client: () => (supervisor.state.kind === 'connected' ? supervisor.client : undefined), projectOf: (p) => projectOf(folderOf(p) || folders()[0]), log });
    context.subscriptions.push(freshness);
  } catch (e) {
    log.warn(`file memories unavailable: ${(e as Error).message}`);
  }

  reg('claudeMem.search', searchCommand(services));
  reg('claudeMem.showContext', showContextCommand(services));
  reg('claudeMem.showObservation', showObservationCommand());
  reg('claudeMem.saveSelection', saveSelectionCommand(services));
  reg('claudeMem.openPanel', openPanelCommand());
  reg('claudeMem.export', exportCommand(services));
  reg('claudeMem.import', importCommand(services));
  reg('claudeMem.forgetProject', forgetProjectCommand(services));
  reg('claudeMem.pauseCapture', pauseCommand(services, true));
  reg('claudeMem.resumeCapture', pauseCommand(services, false));
  reg('claudeMem.toggleCapture', toggleCaptureCommand(services));
  reg('claudeMem.restartWorker', restartCommand(services));
  reg('claudeMem.installClaudeCodeHooks', installHooksCommand(services));
  reg('claudeMem.installAgentHooks', installAgentHooksCommand(services));
  context.subscriptions.push(registerAgentHooks(services));
  reg('claudeMem.setApiKey', setApiKeyCommand(services));
  reg('claudeMem.clearApiKey', clearApiKeyCommand(services));
  reg('claudeMem.showLog', () => log.show());
  const team = registerTeam(services);
  context.subscriptions.push(team);
  reg('claudeMem.shareProject', () => team.share());
  reg('claudeMem.unshareProject', () => team.unshare());
  reg('claudeMem.forgetTeamHub', () => team.forget());
  void vscode.commands.executeCommand('setContext', PAUSED_KEY, paused());

  active = {
    session,
    supervisor,
    compression,
    log,
    dispose: () => supervisor.dispose(),
  };

  // Everything slow happens after activate has returned.
  setImmediate(() => {
    refreshStatus();
    void (async () => {
      try {
        apiKey = (await context.secrets.get(API_KEY_SECRET)) || undefined;
      } catch (e) {
        log.warn(`secret storage unavailable: ${(e as Error).message}`);
      }
      await supervisor.start();
      compression.start();
    })().catch((e: Error) => log.error(`worker start failed: ${e.stack ?? e.message}`));
  });

  log.info(`activated in ${Date.now() - started} ms (session ${sid.id}, ${vscode.workspace.isTrusted ? 'trusted' : 'untrusted: nothing is captured'})`);
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
