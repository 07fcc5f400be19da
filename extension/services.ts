// What commands, chat and tools share: the worker, the session, capture, settings and the context cache.
import type * as vscode from 'vscode';
import type { Capture } from './core/capture';
import type { ContextCache } from './core/contextCache';
import type { MemoryApi } from './core/memoryApi';
import type { SessionTracker } from './core/session';
import type { ExtensionSettings } from './core/settings';
import type { WorkerSupervisor } from './core/supervisor';
import type { WindowCompression } from './compression';
import { API_KEY_SECRET, type Session, type WindowState } from './session';

export interface Services {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  supervisor: WorkerSupervisor;
  api: MemoryApi;
  session: SessionTracker;
  capture: Capture;
  contextCache: ContextCache;
  settings(): ExtensionSettings;
  /** The project of the active editor's folder, else of the first workspace folder. */
  project(): string;
  paused(): boolean;
  setPaused(paused: boolean): Promise<void>;
  /** Secret storage key of the Anthropic API key. */
  readonly apiKeySecret: string;
  refreshStatus(): void;
  /** Hands the Anthropic key (or null: forget it) to the running worker; false when it could not. */
  sendApiKey(key: string | null): Promise<boolean>;
}

export function createServices(w: WindowState, s: Session, capture: Capture, model: WindowCompression, status: { refresh(): void }): Services {
  return {
    context: w.context,
    log: w.log,
    supervisor: s.supervisor,
    api: s.api,
    session: s.tracker,
    capture,
    contextCache: s.contextCache,
    settings: w.settings,
    project: w.currentProject,
    paused: w.paused,
    setPaused: w.setPaused,
    apiKeySecret: API_KEY_SECRET,
    refreshStatus: status.refresh,
    sendApiKey: model.sendApiKey,
  };
}
