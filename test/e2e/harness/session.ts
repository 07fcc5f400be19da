// One suite's world: a page on the workbench of the code-server and Chromium the test file's
// suites share, with a data dir, worker port, settings, workspace and browser context of its own,
// and peak memory and CPU sampled while it runs. runExtensionTests and withCodeServerPage build on it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './browser';
import { startCodeServer, type CodeServer, type CodeServerOptions } from './codeServer';
import { fakeLmExtension } from './paths';
import { defaultSettings, freePort } from './codeServerConfig';
import { killMentioning } from './processControl';
import { descendants, parents, treeCpuTicks, treePssMb } from './processTree';
import { Steps } from './steps';
import { waitForWorkbench, workbenchUrl, type Payload } from './workbench';

export interface SessionOptions extends CodeServerOptions {
  /** Names the artifacts folder test-artifacts/e2e/<suite>/ and error messages. */
  suite: string;
  /** Folder to open; default an empty temp folder. */
  workspace?: string;
  /** Environment for this session's extension host and so the worker it starts (the shared server keeps its own). */
  env?: Record<string, string>;
  /** Extension folders loaded as development extensions (no packaging). Default: the fake LM. */
  developmentExtensions?: string[];
  /** Environment for the extension host (through the payload, not the server). */
  extensionEnv?: Record<string, string>;
  /**
   * Extra payload entries, e.g. extensionTestsPath. A function: URIs need the server's port,
   * and files inside a development extension live at devPath(its source path).
   */
  payload?: (server: CodeServer, devPath: (src: string) => string) => Payload;
  /** Called after the page exists and before it navigates (exposeFunction goes here). */
  beforeOpen?: (page: Page) => Promise<void>;
  workbenchTimeoutMs?: number;
}

export interface PeakMemory {
  codeServerMb: number;
  chromiumMb: number;
}

/** CPU seconds used so far: load-independent, unlike wall time on a shared machine. */
export interface CpuUse {
  codeServerS: number;
  chromiumS: number;
}

export interface Session {
  server: CodeServer;
  browser: Browser;
  page: Page;
  steps: Steps;
  workspace: string;
  /** Date.now() when the workbench had rendered and connected. */
  workbenchAt: number;
  peakMemory(): PeakMemory;
  cpu(): CpuUse;
  /** *.log files the server wrote (extension host, output channels), relative path -> text. */
  serverLogs(): Map<string, string>;
  close(): Promise<void>;
}

/** The code-server and Chromium the sessions of this test file share, started by the first. */
interface Shared {
  key: string;
  server: CodeServer;
  browser: Browser;
}
let shared: Promise<Shared> | undefined;
let sessions = 0;

/**
 * The shared server and browser, started when none runs or the running one was started with
 * other server options (extensions, arguments, built-ins); the first session's steps name their start.
 */
async function sharedServer(opts: SessionOptions, steps: Steps): Promise<Shared> {
  const key = JSON.stringify([opts.vsixes ?? [], opts.args ?? [], opts.skipBuiltinExtensions ?? null, opts.smokeTestDriver ?? true]);
  const running = await shared?.catch(() => undefined);
  // A server that died (crashed, killed) is replaced too: a suite after it must not fail for it.
  if (shared && (running?.key !== key || running.server.exited())) await stopCodeServers();
  shared ??= (async () => {
    // The smoke-test driver is on by default: without it the workbench ignores the payload.
    const server = await steps.step('start code-server', () =>
      startCodeServer({ vsixes: opts.vsixes, args: opts.args, skipBuiltinExtensions: opts.skipBuiltinExtensions, startTimeoutMs: opts.startTimeoutMs, smokeTestDriver: opts.smokeTestDriver ?? true }),
    );
    try {
      // Chromium starts while code-server loads its VS Code server: both take seconds.
      const [browser] = await steps.step('launch chromium', () => Promise.all([launchChromium(), server.warmUp()]));
      return { key, server, browser };
    } catch (err) {
      await server.stop();
      throw err;
    }
  })();
  return shared.catch((err: unknown) => {
    shared = undefined;
    throw err;
  });
}

/** Stops the shared code-server and Chromium: a test file's `after` hook (they keep the process alive). */
export async function stopCodeServers(): Promise<void> {
  const s = await shared?.catch(() => undefined);
  shared = undefined;
  if (!s) return;
  await s.browser.close().catch(() => undefined);
  await s.server.stop();
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const steps = new Steps(opts.suite);
  const devExtensions = opts.developmentExtensions ?? [fakeLmExtension];
  const { server: host, browser } = await sharedServer(opts, steps);
  // What is this session's alone: its data dir and worker port (handed to its extension host with
  // the payload's extensionEnvironment, so a worker another session left can never answer it),
  // settings (written before its page loads them), workspace and browser context (SecretStorage and
  // the extensions' global state live browser-side).
  const root = path.join(host.root, 'sessions', `${++sessions}-${opts.suite.replace(/[^\w.-]+/g, '-')}`);
  const claudeMemDataDir = path.join(root, 'claude-mem');
  fs.mkdirSync(claudeMemDataDir, { recursive: true });
  if (opts.workerSettings) fs.writeFileSync(path.join(claudeMemDataDir, 'settings.json'), JSON.stringify(opts.workerSettings, null, 2));
  fs.writeFileSync(path.join(host.userDataDir, 'User/settings.json'), JSON.stringify({ ...defaultSettings, ...opts.settings }, null, 2));
  fs.mkdirSync(path.join(host.userDataDir, 'Machine'), { recursive: true });
  fs.writeFileSync(path.join(host.userDataDir, 'Machine/settings.json'), JSON.stringify(opts.machineSettings ?? {}, null, 2));
  const server: CodeServer = { ...host, claudeMemDataDir, workerPort: await freePort() };
  const logsBefore = logTimes(host);
  const outputFrom = host.output().length;

  const peak: PeakMemory = { codeServerMb: 0, chromiumMb: 0 };
  // CPU ticks per pid when the session opened and when last seen (processes that ended keep their last sample).
  const ticks = { server: new Map<number, number>(), other: new Map<number, number>() };
  const start = { server: new Map<number, number>(), other: new Map<number, number>() };
  const sample = (): void => {
    const tree = parents(); // one read of /proc for the whole sample: it is CPU the test itself spends
    const serverTree = new Set(descendants(host.pid, tree));
    peak.codeServerMb = Math.max(peak.codeServerMb, treePssMb(host.pid, new Set(), tree));
    // Chromium is a child of this test process; exclude the server and ourselves.
    peak.chromiumMb = Math.max(peak.chromiumMb, treePssMb(process.pid, new Set([...serverTree, process.pid]), tree));
    for (const [pid, t] of treeCpuTicks(process.pid, tree)) {
      if (pid !== process.pid) (serverTree.has(pid) ? ticks.server : ticks.other).set(pid, t);
    }
  };
  sample();
  for (const k of ['server', 'other'] as const) for (const [pid, t] of ticks[k]) start[k].set(pid, t);
  const seconds = (k: 'server' | 'other'): number => Math.round([...ticks[k]].reduce((a, [pid, t]) => a + t - (start[k].get(pid) ?? 0), 0)) / 100;
  // Every 5 s, and as each step ends: a sample reads /proc through, and once a second that took 10% of a core.
  const sampler = setInterval(sample, 5_000);
  sampler.unref();
  // What a step costs: the server's, Chromium's and this process's CPU seconds since the session opened.
  const self0 = process.cpuUsage();
  steps.cpu = () => {
    sample();
    const u = process.cpuUsage(self0);
    return seconds('server') + seconds('other') + (u.user + u.system) / 1e6;
  };

  let context: BrowserContext | undefined;
  const session: Partial<Session> = { server, steps };
  const close = async (): Promise<void> => {
    clearInterval(sampler);
    steps.cpu = undefined;
    saveServerLogs(server, steps, logsBefore, outputFrom);
    await context?.close().catch(() => undefined);
    // Its extension host and worker (their environment names the session's data dir); the server stays.
    killMentioning(root, true);
    if (!process.env.CLAUDE_MEM_E2E_KEEP) fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    const workspace = opts.workspace ?? path.join(root, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      // code-server brotli-compresses the 19 MB workbench.js on every request: seconds of
      // CPU on a busy 2-core machine, for a transfer over loopback.
      extraHTTPHeaders: { 'Accept-Encoding': 'identity' },
    });
    const page = await context.newPage();
    steps.page = page;
    await opts.beforeOpen?.(page);
    const dev = stageDevelopmentExtensions(path.join(root, 'dev-extensions'), devExtensions);
    const extensionEnv = { CLAUDE_MEM_DATA_DIR: claudeMemDataDir, CLAUDE_MEM_WORKER_PORT: String(server.workerPort), ...opts.env, ...opts.extensionEnv };
    const payload: Payload = [
      ...(devExtensions.length ? [['extensionDevelopmentPath', server.remoteUri(dev.dir)] as [string, string]] : []),
      ['extensionEnvironment', JSON.stringify(extensionEnv)],
      ...(opts.payload?.(server, dev.path) ?? []),
    ];
    await steps.step('open workbench', async () => {
      await page.goto(workbenchUrl(server, workspace, payload), { waitUntil: 'domcontentloaded' });
      await waitForWorkbench(page, opts.workbenchTimeoutMs);
    });
    const workbenchAt = Date.now();
    return Object.assign(session, {
      browser,
      page,
      workspace,
      workbenchAt,
      peakMemory: () => ({ ...peak }),
      cpu: () => {
        sample();
        return { codeServerS: seconds('server'), chromiumS: seconds('other') };
      },
      serverLogs: () => readLogs(server, logsBefore),
      close,
    }) as Session;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The workbench keeps the payload in a Map, so only one extensionDevelopmentPath survives.
 * A folder without package.json is scanned as a folder of extensions, so all of them are
 * copied (small fixtures; symlinks are not followed by the scanner) under one folder.
 */
function stageDevelopmentExtensions(dir: string, sources: string[]): { dir: string; path: (src: string) => string } {
  const staged = new Map<string, string>();
  for (const src of sources) {
    const dst = path.join(dir, path.basename(src));
    if ([...staged.values()].includes(dst)) throw new Error(`two development extensions named ${path.basename(src)}`);
    fs.cpSync(src, dst, { recursive: true });
    staged.set(path.resolve(src), dst);
  }
  const map = (src: string): string => {
    const abs = path.resolve(src);
    for (const [from, to] of staged) if (abs === from || abs.startsWith(from + path.sep)) return to + abs.slice(from.length);
    throw new Error(`${src} is not inside a development extension`);
  };
  return { dir, path: map };
}

/** Each *.log file the server wrote so far, with its modification time. */
function logTimes(server: CodeServer): Map<string, number> {
  const times = new Map<string, number>();
  const dir = path.join(server.userDataDir, 'logs');
  if (!fs.existsSync(dir)) return times;
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (rel.endsWith('.log')) times.set(rel, fs.statSync(path.join(dir, rel)).mtimeMs);
  }
  return times;
}

/** The *.log files written since `before` was taken (this session's extension host, window, the server's own). */
function readLogs(server: CodeServer, before: Map<string, number>): Map<string, string> {
  const logs = new Map<string, string>();
  for (const [rel, mtime] of logTimes(server)) {
    if (before.get(rel) !== mtime) logs.set(rel, fs.readFileSync(path.join(server.userDataDir, 'logs', rel), 'utf8'));
  }
  return logs;
}

/** Keeps the session's part of the server's output and logs beside the screenshots: the temp dirs are deleted. */
function saveServerLogs(server: CodeServer, steps: Steps, before: Map<string, number>, outputFrom: number): void {
  steps.writeText('code-server.out.txt', server.output().slice(outputFrom));
  for (const [rel, text] of readLogs(server, before)) steps.writeText(path.join('logs', rel), text);
  // The memory worker's own logs (CLAUDE_MEM_DATA_DIR/logs).
  const workerLogs = path.join(server.claudeMemDataDir, 'logs');
  if (fs.existsSync(workerLogs)) {
    for (const rel of fs.readdirSync(workerLogs, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(workerLogs, rel);
      if (fs.statSync(file).isFile()) steps.writeText(path.join('worker-logs', rel), fs.readFileSync(file, 'utf8'));
    }
  }
}
