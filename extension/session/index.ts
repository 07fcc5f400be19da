// The window's session: its identity, the live settings, the workspace's projects, the pause state,
// the worker it talks to (supervisor, queued poster, memory API, context cache, live event stream)
// and the SessionTracker that reports this window to the worker. Every other feature is wired on it.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { defaultDataDir, defaultPort } from '../../common/node/config';
import { projectFromCwd } from '../../common/node/project';
import type { StreamEvent } from '../../common/contract';
import { folderLookup } from '../core/capture';
import { ContextCache } from '../core/contextCache';
import { MemoryApi } from '../core/memoryApi';
import { QueuedPoster } from '../core/poster';
import { SessionTracker, windowSessionId } from '../core/session';
import { contextParams, readSettings, SECTION, workerEnv, type ExtensionSettings } from '../core/settings';
import { WorkerSupervisor, type WorkerState } from '../core/supervisor';

export const API_KEY_SECRET = 'claudeMem.anthropicApiKey';
export const PAUSED_KEY = 'claudeMem.capturePaused';

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

/** What every feature of the window reads: identity, settings, projects, pause state. */
export interface WindowState {
  readonly context: vscode.ExtensionContext;
  readonly log: vscode.LogOutputChannel;
  /** This window's session id (vscode.env.sessionId, or one derived when the host gives none). */
  readonly sessionId: string;
  settings(): ExtensionSettings;
  /** After the settings were read again (a claudeMem.* or files.exclude change). */
  readonly onDidChangeSettings: vscode.Event<vscode.ConfigurationChangeEvent>;
  /** The Anthropic key as last read from secret storage (handed to a worker this window forks). */
  apiKey: string | undefined;
  folders(): string[];
  /** The project of a workspace folder, as the worker derives it (git root name). */
  projectOf(folder: string | undefined): string;
  folderOf(fsPath: string): string | undefined;
  primaryProject(): string;
  /** The project of the active editor's folder, else of the first workspace folder. */
  currentProject(): string;
  paused(): boolean;
  setPaused(paused: boolean): Promise<void>;
  readonly onDidChangePaused: vscode.Event<boolean>;
}

/** The window's state; its listeners go to context.subscriptions. */
export function openWindow(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): WindowState {
  let settings = loadSettings();
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

  const paused = () => context.workspaceState.get<boolean>(PAUSED_KEY, false);
  const pauseChanged = new vscode.EventEmitter<boolean>();
  const settingsChanged = new vscode.EventEmitter<vscode.ConfigurationChangeEvent>();
  context.subscriptions.push(
    pauseChanged,
    settingsChanged,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SECTION) && !e.affectsConfiguration('files.exclude')) return;
      settings = loadSettings();
      settingsChanged.fire(e);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => projects.clear()),
  );

  return {
    context,
    log,
    sessionId: sid.id,
    settings: () => settings,
    onDidChangeSettings: settingsChanged.event,
    apiKey: undefined,
    folders,
    projectOf,
    folderOf,
    primaryProject: () => projectOf(folders()[0]),
    currentProject: () => {
      const doc = vscode.window.activeTextEditor?.document.uri;
      return projectOf((doc?.scheme === 'file' && folderOf(doc.fsPath)) || folders()[0]);
    },
    paused,
    async setPaused(p) {
      await context.workspaceState.update(PAUSED_KEY, p);
      void vscode.commands.executeCommand('setContext', PAUSED_KEY, p);
      log.info(p ? 'capture paused' : 'capture resumed');
      pauseChanged.fire(p);
    },
    onDidChangePaused: pauseChanged.event,
  };
}

/** The worker this window talks to, and the window's session in it. */
export interface Session {
  supervisor: WorkerSupervisor;
  poster: QueuedPoster;
  api: MemoryApi;
  contextCache: ContextCache;
  tracker: SessionTracker;
  /** The worker's live events (one stream per window, opened on the first connect). */
  readonly onEvent: vscode.Event<StreamEvent>;
  /** The worker's state changes (after the session's own handling). */
  readonly onState: vscode.Event<WorkerState>;
}

export function startSession(w: WindowState): Session {
  const { context, log } = w;
  const supervisor = new WorkerSupervisor({
    target: targetOf(w.settings(), log),
    workerScript: context.asAbsolutePath(path.join('dist', 'worker.js')),
    env: () => workerEnv(w.settings(), w.apiKey),
    log,
  });
  const poster = new QueuedPoster(() => (supervisor.state.kind === 'connected' ? supervisor.client : undefined));
  const api = new MemoryApi(() => supervisor.client);
  const contextCache = new ContextCache(api, () => contextParams(w.settings().context));

  const tracker = new SessionTracker({
    sessionId: w.sessionId,
    primaryProject: w.primaryProject,
    cwdOf: (project) => w.folders().find((f) => w.projectOf(f) === project),
    poster: () => poster,
    idleMs: () => w.settings().idleSummaryMs,
    // The trust and pause rules hold for every kind of capture: @memory turns, Search Memory picks, summaries.
    captureAllowed: () => vscode.workspace.isTrusted && w.settings().capture.enabled && !w.paused(),
    onSummary: (s) => log.debug(`summary requested (${s.reason}) for ${s.projects.join(', ')}`),
  });

  const events = new vscode.EventEmitter<StreamEvent>();
  const states = new vscode.EventEmitter<WorkerState>();
  let stream: { dispose(): void } | undefined;
  supervisor.onState((st) => {
    if (st.kind === 'connected') {
      poster.flush();
      stream ??= supervisor.client.subscribe(
        (e) => events.fire(e),
        (up) => {
          if (!up) void supervisor.suspect();
        },
      );
      contextCache.get(w.primaryProject()).then(
        (t) => log.debug(`project context ready (${t.length} characters)`),
        (e: Error) => log.warn(`project context unavailable: ${e.message}`),
      );
    }
    states.fire(st);
  });
  context.subscriptions.push(
    events,
    states,
    events.event((e) => {
      const project = typeof e.data.project === 'string' ? e.data.project : undefined;
      if (e.event === 'new_summary' || e.event === 'project_deleted' || e.event === 'session_forgotten' || (e.event === 'new_observation' && e.data.imported)) contextCache.invalidate(project);
    }),
    w.onDidChangeSettings((e) => {
      if (e.affectsConfiguration(`${SECTION}.worker`)) log.info('worker settings changed: they apply after "Claude Mem: Restart Worker"');
    }),
    { dispose: () => stream?.dispose() },
  );
  return { supervisor, poster, api, contextCache, tracker, onEvent: events.event, onState: states.event };
}
