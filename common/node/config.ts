// Worker configuration: environment first, then <dataDir>/settings.json (read by settingsFile.ts), then defaults.
// Kept free of heavy imports: the hook CLI loads it on every event. Named imports only (a namespace
// import makes the bundle copy every export of node:fs onto a new object), and node:os is loaded
// only when $HOME is not set (loading it costs a hook about 2 M instructions, 2% of a node start).
import { join, resolve } from 'node:path';
import { readSettingsFile } from './settingsFile';

export interface Settings {
  /** Tools whose uses are never stored. */
  skipTools: string[];
  /** Globs matched against the project name and cwd; matches are never captured. */
  excludedProjects: string[];
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
  /** Largest accepted import body, bytes. */
  maxImportBytes: number;
  /** Each stored tool field is cut to this many characters (head and tail kept). */
  maxFieldChars: number;
  /** Snapshot once the journal has grown past this many bytes. */
  snapshotJournalBytes: number;
  /** Deleted text leaves the files on disk (snapshots, journals) within this many ms of the delete, plus the time to write two snapshots. */
  compactAfterDeleteMs: number;
  /** Allow binding to a non-loopback host. */
  allowRemoteBind: boolean;
  /** Shut down after this many ms without any client request; 0 = never. */
  idleShutdownMs: number;
  // ---- compression (docs/agent.md; the settings keep the old word: agent*) ----
  /** 'anthropic' | 'vscode' | 'local'; '' chooses: CLAUDE_MEM_PROVIDER, else anthropic with a key, else local. */
  provider: string;
  /** Anthropic model; CLAUDE_MEM_MODEL wins; '' = the default Haiku. */
  model: string;
  /** One model call may take this long before it counts as a (retried) failure. */
  agentTimeoutMs: number;
  /** A job failing this many times goes to the dead-letter state. */
  agentMaxAttempts: number;
  /** Retry backoff: base * 2^(attempt-1), capped, with jitter (x0.5-1). */
  agentRetryBaseMs: number;
  agentRetryMaxMs: number;
  /** Batches in flight at once. */
  agentConcurrency: number;
  /** Tool uses of one session per model call, and how long a partial batch may wait. */
  batchMaxUses: number;
  batchMaxAgeMs: number;
  /** Model tokens (input + output) per local day; then work goes local until midnight. 0 = no limit. */
  dailyTokenBudget: number;
  /** Each tool field in a prompt is capped to this many characters (head and tail kept). */
  promptFieldChars: number;
  /** Largest reply asked of the model. */
  modelMaxOutputTokens: number;
  /** 'worth': only failures, their fixes and stated choices go to the model, every other tool use gets its local note; 'every': all tool uses go to the model. */
  modelObservations: string;
  /** With the vscode provider, work waits this long for a window before going local. */
  vscodeWaitMs: number;
  /** A quota pause lasts this long before one probe call. */
  quotaPauseMs: number;
}

export const DEFAULT_SETTINGS: Settings = {
  skipTools: ['TodoWrite', 'AskUserQuestion', 'ListMcpResourcesTool', 'SlashCommand', 'Skill', 'manage_todo_list', 'ask_user', 'write_todos'],
  excludedProjects: [],
  maxBodyBytes: 8 * 1024 * 1024,
  maxImportBytes: 256 * 1024 * 1024,
  maxFieldChars: 64 * 1024,
  snapshotJournalBytes: 32 * 1024 * 1024,
  compactAfterDeleteMs: 60_000,
  allowRemoteBind: false,
  idleShutdownMs: 0,
  provider: '',
  model: '',
  agentTimeoutMs: 60_000,
  agentMaxAttempts: 5,
  agentRetryBaseMs: 5_000,
  agentRetryMaxMs: 600_000,
  agentConcurrency: 2,
  batchMaxUses: 10,
  batchMaxAgeMs: 30_000,
  dailyTokenBudget: 2_000_000,
  promptFieldChars: 4_000,
  modelMaxOutputTokens: 4_096,
  modelObservations: 'worth',
  vscodeWaitMs: 120_000,
  quotaPauseMs: 3_600_000,
};

export interface WorkerConfig {
  dataDir: string;
  host: string;
  port: number;
  settings: Settings;
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_MEM_DATA_DIR || join(homeDir(), '.claude-mem-vscode');
}

/**
 * What os.homedir() returns: libuv answers $HOME (%USERPROFILE% on Windows) when it is set, and
 * asks the password database only when it is not. So node:os is needed only then.
 */
export function homeDir(): string {
  const fromEnv = process.platform === 'win32' ? process.env.USERPROFILE : process.env.HOME;
  if (fromEnv) return fromEnv;
  // require, not a static import: see the note at the top.
  return (require('node:os') as typeof import('node:os')).homedir();
}

export function defaultPort(env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = env.CLAUDE_MEM_WORKER_PORT;
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`CLAUDE_MEM_WORKER_PORT must be a port number, got "${fromEnv}"`);
    return n;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return 37800 + (uid % 100);
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

export function readSettings(dataDir: string): { settings: Settings; problem?: string } {
  const { raw, problem } = readSettingsFile(dataDir);
  const merged: Settings = { ...DEFAULT_SETTINGS };
  for (const key of Object.keys(DEFAULT_SETTINGS) as (keyof Settings)[]) {
    const v = raw[key];
    if (v === undefined) continue;
    const d = DEFAULT_SETTINGS[key];
    if (Array.isArray(d) ? Array.isArray(v) && v.every((x) => typeof x === 'string') : typeof v === typeof d) {
      (merged as unknown as Record<string, unknown>)[key] = v;
    }
  }
  return problem ? { settings: merged, problem } : { settings: merged };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig & { problem?: string } {
  const dataDir = resolve(defaultDataDir(env));
  const { settings, problem } = readSettings(dataDir);
  if (env.CLAUDE_MEM_ALLOW_REMOTE === '1') settings.allowRemoteBind = true;
  if (env.CLAUDE_MEM_IDLE_SHUTDOWN_MS) settings.idleShutdownMs = Number(env.CLAUDE_MEM_IDLE_SHUTDOWN_MS) || 0;
  if (env.CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES) settings.snapshotJournalBytes = Number(env.CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES) || settings.snapshotJournalBytes;
  if (env.CLAUDE_MEM_COMPACT_AFTER_DELETE_MS) settings.compactAfterDeleteMs = Math.max(0, Number(env.CLAUDE_MEM_COMPACT_AFTER_DELETE_MS) || 0) || settings.compactAfterDeleteMs;
  return { dataDir, host: env.CLAUDE_MEM_WORKER_HOST || '127.0.0.1', port: defaultPort(env), settings, problem };
}
