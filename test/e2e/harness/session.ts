// One suite's world: a fresh code-server, Chromium, and a page on the workbench, with
// peak memory sampled while it runs. runExtensionTests and withCodeServerPage build on it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser';
import { startCodeServer, type CodeServer, type CodeServerOptions } from './codeServer';
import { fakeLmExtension } from './paths';
import { descendants, treeCpuTicks, treePssMb } from './processTree';
import { Steps } from './steps';
import { waitForWorkbench, workbenchUrl, type Payload } from './workbench';

export interface SessionOptions extends CodeServerOptions {
  /** Names the artifacts folder test-artifacts/e2e/<suite>/ and error messages. */
  suite: string;
  /** Folder to open; default an empty temp folder. */
  workspace?: string;
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

export async function openSession(opts: SessionOptions): Promise<Session> {
  const steps = new Steps(opts.suite);
  const devExtensions = opts.developmentExtensions ?? [fakeLmExtension];
  // The smoke-test driver is on by default: without it the workbench ignores the payload.
  const server = await steps.step('start code-server', () => startCodeServer({ ...opts, smokeTestDriver: opts.smokeTestDriver ?? true }));
  let browser: Browser | undefined;
  const peak: PeakMemory = { codeServerMb: 0, chromiumMb: 0 };
  // Last CPU ticks seen per pid; processes that ended keep their last sample.
  const ticks = { server: new Map<number, number>(), other: new Map<number, number>() };
  const sample = (): void => {
    const serverTree = new Set(descendants(server.pid));
    peak.codeServerMb = Math.max(peak.codeServerMb, treePssMb(server.pid));
    // Chromium is a child of this test process; exclude the server and ourselves.
    peak.chromiumMb = Math.max(peak.chromiumMb, treePssMb(process.pid, new Set([...serverTree, process.pid])));
    for (const [pid, t] of treeCpuTicks(process.pid)) {
      if (pid !== process.pid) (serverTree.has(pid) ? ticks.server : ticks.other).set(pid, t);
    }
  };
  const seconds = (m: Map<number, number>): number => Math.round([...m.values()].reduce((a, b) => a + b, 0)) / 100;
  const sampler = setInterval(sample, 1000);
  sampler.unref();

  const session: Partial<Session> = { server, steps };
  const close = async (): Promise<void> => {
    clearInterval(sampler);
    saveServerLogs(server, steps);
    await browser?.close().catch(() => undefined);
    await server.stop();
  };
  try {
    const workspace = opts.workspace ?? path.join(server.root, 'workspace');
    fs.mkdirSync(workspace, { recursive: true });
    // Chromium starts while code-server loads its VS Code server: both take seconds.
    [browser] = await steps.step('launch chromium', () => Promise.all([launchChromium(), server.warmUp()]));
    const page = await browser.newPage({
      viewport: { width: 1280, height: 800 },
      // code-server brotli-compresses the 19 MB workbench.js on every request: seconds of
      // CPU on a busy 2-core machine, for a transfer over loopback.
      extraHTTPHeaders: { 'Accept-Encoding': 'identity' },
    });
    steps.page = page;
    await opts.beforeOpen?.(page);
    const dev = stageDevelopmentExtensions(path.join(server.root, 'dev-extensions'), devExtensions);
    const payload: Payload = [
      ...(devExtensions.length ? [['extensionDevelopmentPath', server.remoteUri(dev.dir)] as [string, string]] : []),
      ...(opts.extensionEnv ? [['extensionEnvironment', JSON.stringify(opts.extensionEnv)] as [string, string]] : []),
      ...(opts.payload?.(server, dev.path) ?? []),
    ];
    await steps.step('open workbench', async () => {
      await page.goto(workbenchUrl(server, workspace, payload), { waitUntil: 'domcontentloaded' });
      await waitForWorkbench(page, opts.workbenchTimeoutMs);
    });
    const workbenchAt = Date.now();
    sample();
    return Object.assign(session, {
      browser,
      page,
      workspace,
      workbenchAt,
      peakMemory: () => ({ ...peak }),
      cpu: () => {
        sample();
        return { codeServerS: seconds(ticks.server), chromiumS: seconds(ticks.other) };
      },
      serverLogs: () => readLogs(server),
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

function readLogs(server: CodeServer): Map<string, string> {
  const logs = new Map<string, string>();
  const dir = path.join(server.userDataDir, 'logs');
  if (!fs.existsSync(dir)) return logs;
  for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (rel.endsWith('.log')) logs.set(rel, fs.readFileSync(path.join(dir, rel), 'utf8'));
  }
  return logs;
}

/** Keeps the server's output and logs beside the screenshots: the temp dir is deleted. */
function saveServerLogs(server: CodeServer, steps: Steps): void {
  steps.writeText('code-server.out.txt', server.output());
  for (const [rel, text] of readLogs(server)) steps.writeText(path.join('logs', rel), text);
  // The memory worker's own logs (CLAUDE_MEM_DATA_DIR/logs).
  const workerLogs = path.join(server.claudeMemDataDir, 'logs');
  if (fs.existsSync(workerLogs)) {
    for (const rel of fs.readdirSync(workerLogs, { recursive: true, encoding: 'utf8' })) {
      const file = path.join(workerLogs, rel);
      if (fs.statSync(file).isFile()) steps.writeText(path.join('worker-logs', rel), fs.readFileSync(file, 'utf8'));
    }
  }
}
