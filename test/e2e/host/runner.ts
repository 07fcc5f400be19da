// A minimal test runner for inside the extension host (mocha is not needed for this):
// cases run in order, each with a timeout; results go to $CLAUDE_MEM_E2E_RESULTS and the
// console; run() rejects when any case failed, which makes the extension host exit with 1.
import * as fs from 'node:fs';
import { RESULTS_ENV, type HostReport } from './report';

type Fn = () => unknown;

export interface HostSuite {
  test(name: string, fn: Fn, timeoutMs?: number): void;
  /** Keeps a measurement for the Node side (e.g. a timestamp). */
  record(key: string, value: unknown): void;
  run(): Promise<void>;
}

export function createSuite(): HostSuite {
  const cases: Array<{ name: string; fn: Fn; timeoutMs: number }> = [];
  const report: HostReport = { tests: [], data: {} };
  const write = (): void => {
    const file = process.env[RESULTS_ENV];
    if (file) fs.writeFileSync(file, JSON.stringify(report, null, 2));
  };
  return {
    test: (name, fn, timeoutMs = 30_000) => void cases.push({ name, fn, timeoutMs }),
    record: (key, value) => void (report.data[key] = value),
    async run() {
      for (const c of cases) {
        const start = Date.now();
        report.running = c.name;
        write();
        try {
          await withTimeout(Promise.resolve().then(c.fn), c.timeoutMs);
          report.tests.push({ name: c.name, ok: true, ms: Date.now() - start });
          console.log(`[e2e host] ok   ${c.name} (${Date.now() - start} ms)`);
        } catch (err) {
          const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
          report.tests.push({ name: c.name, ok: false, ms: Date.now() - start, error });
          console.error(`[e2e host] FAIL ${c.name}: ${error}`);
        }
        report.running = undefined;
        write(); // after each case, so a hang still leaves the earlier results
      }
      const failed = report.tests.filter((t) => !t.ok);
      if (failed.length) throw new Error(`${failed.length} of ${cases.length} host tests failed: ${failed.map((t) => t.name).join('; ')}`);
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Polls until check() returns a truthy value; the error names what was awaited. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 20_000, everyMs = 20): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
