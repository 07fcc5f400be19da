// Runs a test entry inside a real VS Code extension host, the way @vscode/test-web does:
// the workbench gets extensionDevelopmentPath + extensionTestsPath through the smoke-test
// payload, the extension host require()s the entry and awaits its run(), then the
// workbench calls window.codeAutomationExit(code), which we expose to Node with Playwright.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RESULTS_ENV, type HostReport } from '../host/report';
import { bundleHostTests } from './bundle';
import { fakeLmExtension } from './paths';
import { openSession, type CpuUse, type PeakMemory, type Session, type SessionOptions } from './session';
import { StepError } from './steps';

export interface ExtensionTestsOptions extends Omit<SessionOptions, 'payload' | 'beforeOpen'> {
  /** TS or JS file (repo-relative or absolute) exporting `async run()`; runs in the extension host. */
  testsEntry: string;
  /** Budget for run() to finish once the workbench is up. */
  timeoutMs?: number;
  /** Called with the live session after the tests ended, before it closes (read logs, screenshots). */
  inspect?: (session: Session) => Promise<void> | void;
}

export interface ExtensionTestsResult {
  report: HostReport;
  /** Milliseconds since code-server was spawned. */
  timings: { listening: number; workbench: number; exit: number };
  /** Absolute Date.now() when code-server was spawned, to relate host timestamps to it. */
  spawnedAt: number;
  memory: PeakMemory;
  /** CPU seconds until the tests ended. */
  cpu: CpuUse;
  /** Lines the workbench logged through codeAutomationLog. */
  log: string[];
}

export async function runExtensionTests(opts: ExtensionTestsOptions): Promise<ExtensionTestsResult> {
  const log: string[] = [];
  let exited: (code: number) => void = () => undefined;
  const exit = new Promise<number>((r) => (exited = r));
  const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-tests-'));
  let session: Session | undefined;
  try {
    const bundle = await bundleHostTests(opts.testsEntry, bundleDir);
    const resultsFile = path.join(bundleDir, 'results.json');
    session = await openSession({
      ...opts,
      developmentExtensions: [...(opts.developmentExtensions ?? [fakeLmExtension]), bundleDir],
      extensionEnv: { ...opts.extensionEnv, [RESULTS_ENV]: resultsFile },
      payload: (server, devPath) => [['extensionTestsPath', server.remoteUri(devPath(bundle.entry))]],
      beforeOpen: async (page) => {
        await page.exposeFunction('codeAutomationLog', (level: string, args: unknown[]) => {
          log.push(`[${level}] ${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`);
        });
        await page.exposeFunction('codeAutomationExit', (code: number) => exited(code));
        // Log-service lines (they start with %c) already came through codeAutomationLog;
        // the rest (failed loads, uncaught errors) only reach the console.
        page.on('console', (m) => void (m.text().startsWith('%c') || log.push(`[console.${m.type()}] ${m.text()}`)));
      },
    });
    const s = session;
    await s.steps.screenshot('workbench');
    // A screenshot as each host case ends (the host cannot take one): the page as that case left it.
    const shots = new Map<string, string | undefined>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        let finished: HostReport['tests'] = [];
        try {
          finished = readReport(resultsFile).tests;
        } catch {
          // caught mid-write: read it again on the next turn
        }
        for (const t of finished) {
          if (shots.has(t.name)) continue;
          shots.set(t.name, undefined);
          shots.set(t.name, await s.steps.screenshot(`host ${t.name}${t.ok ? '' : ' FAILED'}`).catch(() => undefined));
        }
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    const code = await s.steps
      .step('extension tests finish', () =>
        withTimeout(exit, opts.timeoutMs ?? 120_000, () => {
          const partial = readReport(resultsFile);
          const done = partial.tests.map((t) => `${t.ok ? 'ok' : 'FAIL'} ${t.name}`).join(', ') || 'none';
          return `codeAutomationExit: host case ${partial.running ? `"${partial.running}" still running` : 'none started'} (finished: ${done})`;
        }),
      )
      .finally(async () => {
        watching = false;
        await watcher;
      });
    const exitAt = Date.now();
    const cpu = s.cpu();
    await s.steps.screenshot('tests-finished');
    await opts.inspect?.(s);
    const report = readReport(resultsFile);
    for (const t of report.tests) if (t.error) t.error = bundle.mapStack(t.error);
    s.steps.writeText('host-report.json', JSON.stringify(report, null, 2));
    s.steps.writeText('workbench.log.txt', log.join('\n'));
    const failed = report.tests.filter((t) => !t.ok);
    if (code !== 0 || failed.length) {
      // Named after the first failed host case, pointing at the screenshot taken when it ended.
      const details = failed.map((t) => `  - ${t.name}: ${t.error}${shots.get(t.name) ? `\n    screenshot: ${shots.get(t.name)}` : ''}`).join('\n');
      const first = failed[0];
      throw new StepError(
        s.steps.suite,
        first ? `host: ${first.name}` : 'extension host tests',
        new Error(first ? `${failed.length} host case(s) failed (exit code ${code}):\n${details}` : `exit code ${code} with no failed case recorded; last log lines:\n${log.slice(-30).join('\n')}`),
        (first && shots.get(first.name)) || s.steps.dir,
      );
    }
    const since = (t: number): number => t - s.server.spawnedAt;
    return {
      report,
      timings: { listening: since(s.server.listeningAt), workbench: since(s.workbenchAt), exit: since(exitAt) },
      spawnedAt: s.server.spawnedAt,
      memory: s.peakMemory(),
      cpu,
      log,
    };
  } finally {
    await session?.close();
    fs.rmSync(bundleDir, { recursive: true, force: true });
  }
}

function readReport(file: string): HostReport {
  if (!fs.existsSync(file)) return { tests: [], data: {} };
  return JSON.parse(fs.readFileSync(file, 'utf8')) as HostReport;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what()}`)), ms)));
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
