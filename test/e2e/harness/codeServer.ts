// Starts a throwaway code-server (VS Code 1.139 server + web workbench) on 127.0.0.1 with
// its own HOME, XDG dirs, user data and extensions. The sessions of a test file share one
// (harness/session.ts), each with its own data dir, worker port, workspace and browser context.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultSettings, freePort, serverEnv } from './codeServerConfig';
import { installExtensions } from './extensions';
import { assertToolsInstalled, codeServerEntry, node24 } from './paths';
import { killGroup, killMentioning, stopGroup } from './processControl';

export interface CodeServerOptions {
  /** .vsix files installed before the server starts (installed once, then copied: harness/extensions.ts). */
  vsixes?: string[];
  /** Extra user settings (merged over the test defaults). */
  settings?: Record<string, unknown>;
  /**
   * Remote machine settings (<user-data-dir>/Machine/settings.json). Settings of `machine` scope
   * (e.g. claudeMem.worker.*, claudeMem.compression.*) are read only from here in a remote window
   * such as code-server's: VS Code ignores their user-settings value there.
   */
  machineSettings?: Record<string, unknown>;
  /** Extra environment for the server and so its extension host. */
  env?: Record<string, string>;
  /** Honour the `payload` query (extensionDevelopmentPath, extensionTestsPath). */
  smokeTestDriver?: boolean;
  /** Built-in extensions the server does not load (VSCODE_SKIP_BUILTIN_EXTENSIONS). Default: heavyBuiltins. */
  skipBuiltinExtensions?: string[];
  /** Milliseconds to wait for "HTTP server listening". */
  startTimeoutMs?: number;
  /** Extra code-server arguments, e.g. ['--log', 'trace']. */
  args?: string[];
  /** Written to <CLAUDE_MEM_DATA_DIR>/settings.json before anything starts: the worker's own settings (docs/configuration.md). */
  workerSettings?: Record<string, unknown>;
}

export interface CodeServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** Temp root holding home/, data/ (user data, logs), extensions/. */
  readonly root: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** CLAUDE_MEM_DATA_DIR and CLAUDE_MEM_WORKER_PORT the extension sees: never the user's. */
  readonly claudeMemDataDir: string;
  readonly workerPort: number;
  /** Date.now() just before the server process was spawned. */
  readonly spawnedAt: number;
  /** Date.now() when it printed its listening address. */
  readonly listeningAt: number;
  /** The server's stdout+stderr so far. */
  output(): string;
  /** Whether the server process has ended. */
  exited(): boolean;
  /** Makes code-server load its VS Code server (seconds, done lazily on the first page request). */
  warmUp(): Promise<void>;
  /** `vscode-remote://` URI of a path on this machine, as the workbench addresses it. */
  remoteUri(fsPath: string): string;
  stop(): Promise<void>;
}

/** Running servers and their temp roots. */
const live = new Map<ChildProcess, string>();
// A crashed test must not leave servers (each holds ~500 MB) or workers behind.
process.once('exit', () => {
  for (const [child, root] of live) {
    killGroup(child, 'SIGKILL');
    killMentioning(root);
  }
});

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  assertToolsInstalled();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-'));
  const home = path.join(root, 'home');
  const userDataDir = path.join(root, 'data');
  const extensionsDir = path.join(root, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'User/settings.json'), JSON.stringify({ ...defaultSettings, ...options.settings }, null, 2));
  if (options.machineSettings) {
    fs.mkdirSync(path.join(userDataDir, 'Machine'), { recursive: true });
    fs.writeFileSync(path.join(userDataDir, 'Machine/settings.json'), JSON.stringify(options.machineSettings, null, 2));
  }

  const claudeMemDataDir = path.join(root, 'claude-mem');
  if (options.workerSettings) {
    fs.mkdirSync(claudeMemDataDir, { recursive: true });
    fs.writeFileSync(path.join(claudeMemDataDir, 'settings.json'), JSON.stringify(options.workerSettings, null, 2));
  }
  const workerPort = await freePort();
  const env = serverEnv({ home, claudeMemDataDir, workerPort, extra: options.env, skipBuiltins: options.skipBuiltinExtensions });
  const common = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--config', path.join(root, 'config.yaml')];

  if (options.vsixes?.length) installExtensions(options.vsixes, extensionsDir, env);

  const args = [
    codeServerEntry,
    ...common,
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    // A page that went away without closing its window (the default keeps its extension host for hours).
    '--reconnection-grace-time', '3',
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(options.args ?? []),
  ];
  const spawnedAt = Date.now();
  // detached: its own process group, so stop() also ends the extension host, pty host, watchers.
  const child = spawn(node24, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(child, root);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error('timed out')), options.startTimeoutMs ?? 60_000);
    const onData = (): void => {
      const m = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) done(undefined, Number(m[1]));
    };
    const onExit = (code: number | null): void => done(new Error(`exited with ${code}`));
    function done(err?: Error, p?: number): void {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(new Error(`code-server did not start: ${err.message}\n${out}`));
      else resolve(p!);
    }
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  }).catch(async (err: unknown) => {
    await stopGroup(child);
    live.delete(child);
    throw err;
  });
  const listeningAt = Date.now();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    root,
    userDataDir,
    extensionsDir,
    claudeMemDataDir,
    workerPort,
    spawnedAt,
    listeningAt,
    output: () => out,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    async warmUp() {
      const res = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
      await res.arrayBuffer();
    },
    remoteUri: (fsPath) => `vscode-remote://127.0.0.1:${port}${path.resolve(fsPath)}`,
    async stop() {
      await stopGroup(child);
      live.delete(child);
      killMentioning(root);
      if (!process.env.CLAUDE_MEM_E2E_KEEP) fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
