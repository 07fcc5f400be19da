// The extension's settings: their declarations (the source of package.json's
// contributes.configuration; a unit test keeps the two equal) and their normalisation into plain
// values. No vscode import: the vscode side passes a getter.
import { RETURN_FREED_MEMORY } from '../../common/node/mallocEnv';
import type { CaptureSettings } from './capture';

type Scope = 'application' | 'machine' | 'window' | 'resource';

export interface SettingDecl {
  type: 'boolean' | 'number' | 'string' | 'array';
  default: unknown;
  description?: string;
  markdownDescription?: string;
  enum?: string[];
  enumDescriptions?: string[];
  items?: { type: 'string' };
  minimum?: number;
  maximum?: number;
  scope?: Scope;
  order?: number;
}

export const SECTION = 'claudeMem';

/** Keys are relative to `claudeMem.`. */
export const SETTINGS: Record<string, SettingDecl> = {
  'worker.port': {
    type: 'number',
    default: 0,
    minimum: 0,
    maximum: 65535,
    scope: 'machine',
    markdownDescription: 'Loopback port of the memory worker. `0` uses `CLAUDE_MEM_WORKER_PORT`, else `37800 + uid % 100` (the same port the `claude-mem` CLI and Claude Code hooks use, so all share one worker).',
  },
  'worker.dataDir': {
    type: 'string',
    default: '',
    scope: 'machine',
    markdownDescription: 'Folder holding the memory database, its journal, `auth.token` and logs. Empty uses `CLAUDE_MEM_DATA_DIR`, else `~/.claude-mem-vscode`.',
  },
  'worker.idleShutdownMinutes': {
    type: 'number',
    default: 30,
    minimum: 0,
    scope: 'machine',
    markdownDescription: 'A worker started by VS Code stops itself after this many minutes with no client connected (`0` = never).',
  },
  'compression.provider': {
    type: 'string',
    default: 'auto',
    enum: ['auto', 'local', 'anthropic', 'vscode'],
    enumDescriptions: [
      'Anthropic when an API key is set, else the local heuristic.',
      'The local heuristic: no model, no network, always available.',
      'Claude through the Anthropic API (set the key with "Claude Mem: Set Anthropic API Key").',
      'Your own VS Code chat model (e.g. Copilot) through this window: no API key needed.',
    ],
    scope: 'machine',
    markdownDescription: 'What compresses captured events into observations and summaries. Applies to a worker this window starts.',
  },
  'compression.model': {
    type: 'string',
    default: '',
    scope: 'machine',
    markdownDescription: 'Anthropic model for compression (`CLAUDE_MEM_MODEL`); empty uses the worker default (a current Haiku model).',
  },
  'compression.vscodeModelFamily': {
    type: 'string',
    default: '',
    scope: 'machine',
    markdownDescription: 'With the `vscode` provider: the chat model family to use (for example `gpt-4o-mini`); empty picks the first available model.',
  },
  'capture.enabled': { type: 'boolean', default: true, scope: 'window', description: 'Capture editor activity into memory. Nothing is ever captured in an untrusted workspace.' },
  'capture.saves': { type: 'boolean', default: true, scope: 'window', description: 'Capture file saves (a diff summary: lines added and removed and a short excerpt, never the whole file).' },
  'capture.fileOperations': { type: 'boolean', default: true, scope: 'window', description: 'Capture files created, deleted and renamed in VS Code.' },
  'capture.terminal': { type: 'boolean', default: true, scope: 'window', description: 'Capture terminal commands (command line, exit code, a bounded part of the output) where shell integration reports them.' },
  'capture.tasks': { type: 'boolean', default: true, scope: 'window', description: 'Capture task runs and their exit codes.' },
  'capture.debug': { type: 'boolean', default: true, scope: 'window', description: 'Capture debug sessions ending.' },
  'capture.focus': { type: 'boolean', default: true, scope: 'window', description: 'Capture a file that keeps the editor focus for a while as "read".' },
  'capture.exclude': {
    type: 'array',
    items: { type: 'string' },
    default: [],
    scope: 'resource',
    markdownDescription: 'Globs of files never captured, relative to the workspace folder (e.g. `**/fixtures/**`, `*.sql`). Secret-looking files (`.env*`, `*.pem`, `*.key`, `id_rsa*`, credentials…) are always excluded.',
  },
  'capture.respectGitignore': { type: 'boolean', default: true, scope: 'resource', description: 'Never capture files that .gitignore ignores.' },
  'capture.respectFilesExclude': { type: 'boolean', default: true, scope: 'resource', markdownDescription: 'Never capture files matched by `#files.exclude#`.' },
  'capture.focusDelayMs': { type: 'number', default: 3000, minimum: 250, scope: 'window', description: 'How long a file must keep the focus to count as read, in milliseconds.' },
  'capture.excerptChars': { type: 'number', default: 1500, minimum: 0, maximum: 20000, scope: 'window', description: 'Largest excerpt of changed lines kept per save, in characters.' },
  'capture.terminalOutputChars': { type: 'number', default: 2000, minimum: 0, maximum: 50000, scope: 'window', description: 'Largest part of a command\'s output kept (head and tail), in characters. 0 keeps none.' },
  'session.idleSummaryMinutes': {
    type: 'number',
    default: 5,
    minimum: 0,
    scope: 'window',
    markdownDescription: 'After this many quiet minutes with no captured activity the session is summarized (`0` = only when an `@memory` turn completes and when the window closes).',
  },
  'context.observations': { type: 'number', default: 50, minimum: 0, maximum: 1000, scope: 'window', description: 'How many recent observations the injected project context lists.' },
  'context.sessions': { type: 'number', default: 10, minimum: 0, maximum: 100, scope: 'window', description: 'How many recent sessions the injected project context covers.' },
  'context.fullObservations': { type: 'number', default: 5, minimum: 0, maximum: 50, scope: 'window', description: 'How many of the listed observations the injected context shows in full.' },
  'context.tokenBudget': { type: 'number', default: 4000, minimum: 200, maximum: 100000, scope: 'window', description: 'Hard token budget of the injected project context.' },
  'team.injectTeammates': {
    type: 'boolean',
    default: true,
    scope: 'window',
    markdownDescription: "Put memory pulled from teammates (projects shared through team memory) into the context this window injects. Off: only your own machines' memory is injected; teammates' stays searchable. The worker's own `team.injectTeammates` (settings.json, for hooks of other agents) can turn it off for everyone. See docs/team.md.",
  },
  'chat.maxResults': { type: 'number', default: 10, minimum: 1, maximum: 50, scope: 'window', description: 'How many memories @memory and the search command retrieve.' },
  'chat.rerank': { type: 'boolean', default: true, scope: 'window', description: 'Let the chat model reorder the best 20 search results by relevance in @memory and search_memory (one short extra model request per search).' },
  // Read by extension/freshness (docs/freshness.md).
  'freshness.enabled': {
    type: 'boolean',
    default: true,
    scope: 'window',
    markdownDescription: 'Check memories against the files they cite (git blob ids of the files open in this window, and of every cited file when the worker connects) and report changes to the worker, which then marks those memories *may be stale*. See docs/freshness.md.',
  },
  'freshness.codeLens': { type: 'boolean', default: true, scope: 'window', markdownDescription: "Show a file's memories (and how many may be stale) in a CodeLens on its first line." },
};

export interface ExtensionSettings {
  port: number;
  dataDir: string;
  idleShutdownMs: number;
  provider: 'auto' | 'local' | 'anthropic' | 'vscode';
  model: string;
  vscodeModelFamily: string;
  capture: CaptureSettings;
  exclude: string[];
  respectGitignore: boolean;
  respectFilesExclude: boolean;
  idleSummaryMs: number;
  context: { observations: number; sessions: number; full: number; budget: number; teammates: boolean };
  maxResults: number;
  rerank: boolean;
}

export type Getter = (key: string) => unknown;

export function readSettings(get: Getter): ExtensionSettings {
  const val = <T>(key: string, ok: (v: unknown) => boolean): T => {
    const v = get(key);
    return (v !== undefined && ok(v) ? v : SETTINGS[key].default) as T;
  };
  const bool = (k: string) => val<boolean>(k, (v) => typeof v === 'boolean');
  const n = (k: string) => {
    const d = SETTINGS[k];
    const x = val<number>(k, (v) => typeof v === 'number' && Number.isFinite(v));
    return Math.min(d.maximum ?? Infinity, Math.max(d.minimum ?? -Infinity, x));
  };
  const s = (k: string) => val<string>(k, (v) => typeof v === 'string').trim();
  const provider = s('compression.provider');
  return {
    port: Math.round(n('worker.port')),
    dataDir: s('worker.dataDir'),
    idleShutdownMs: n('worker.idleShutdownMinutes') * 60_000,
    provider: (['auto', 'local', 'anthropic', 'vscode'].includes(provider) ? provider : 'auto') as ExtensionSettings['provider'],
    model: s('compression.model'),
    vscodeModelFamily: s('compression.vscodeModelFamily'),
    capture: {
      enabled: bool('capture.enabled'),
      kinds: {
        saves: bool('capture.saves'),
        fileOperations: bool('capture.fileOperations'),
        terminal: bool('capture.terminal'),
        tasks: bool('capture.tasks'),
        debug: bool('capture.debug'),
        focus: bool('capture.focus'),
      },
      focusDebounceMs: n('capture.focusDelayMs'),
      maxBaselineBytes: 1024 * 1024,
      excerptChars: n('capture.excerptChars'),
      outputChars: n('capture.terminalOutputChars'),
    },
    exclude: val<unknown[]>('capture.exclude', Array.isArray).filter((x): x is string => typeof x === 'string' && x.trim() !== ''),
    respectGitignore: bool('capture.respectGitignore'),
    respectFilesExclude: bool('capture.respectFilesExclude'),
    idleSummaryMs: n('session.idleSummaryMinutes') * 60_000,
    context: { observations: n('context.observations'), sessions: n('context.sessions'), full: n('context.fullObservations'), budget: n('context.tokenBudget'), teammates: bool('team.injectTeammates') },
    maxResults: n('chat.maxResults'),
    rerank: bool('chat.rerank'),
  };
}

/** The query of this window's context injection (GET /api/context/inject). */
export function contextParams(c: ExtensionSettings['context']): Record<string, number | undefined> {
  // teammates=0 only narrows: the worker's own team.injectTeammates can still turn teammates off.
  return { observations: c.observations, sessions: c.sessions, full: c.full, budget: c.budget, teammates: c.teammates ? undefined : 0 };
}

/**
 * Environment for a worker this window forks. The key from SecretStorage goes as
 * CLAUDE_MEM_EXTENSION_API_KEY (worker/compression/index.ts), apart from a user's own ANTHROPIC_API_KEY, so
 * that "Remove Anthropic API Key" can take it back from a running worker; a worker forked after the
 * removal never gets it.
 */
export function workerEnv(s: ExtensionSettings, apiKey: string | undefined): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    CLAUDE_MEM_IDLE_SHUTDOWN_MS: String(s.idleShutdownMs),
  };
  // glibc's malloc settings (common/node/mallocEnv.ts), unless the user's environment sets them.
  for (const [k, v] of Object.entries(RETURN_FREED_MEMORY)) env[k] = process.env[k] ?? v;
  if (s.provider !== 'auto') env.CLAUDE_MEM_PROVIDER = s.provider;
  if (s.model) env.CLAUDE_MEM_MODEL = s.model;
  if (apiKey) env.CLAUDE_MEM_EXTENSION_API_KEY = apiKey;
  return env;
}

/** `files.exclude` globs that are switched on (`true`; `{when}` objects count as on). */
export function enabledGlobs(filesExclude: unknown): string[] {
  if (!filesExclude || typeof filesExclude !== 'object') return [];
  return Object.entries(filesExclude as Record<string, unknown>)
    .filter(([, v]) => v === true || (!!v && typeof v === 'object'))
    .map(([k]) => k);
}
