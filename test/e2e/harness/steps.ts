// Named steps for e2e suites: a failure says which step broke and leaves a screenshot of
// the page at that moment in test-artifacts/e2e/<suite>/ (git-ignored), beside the logs.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { artifactsRoot } from './paths';

export class StepError extends Error {
  constructor(
    readonly suite: string,
    readonly step: string,
    cause: unknown,
    /** A screenshot of the failure, or the artifacts folder. */
    readonly see?: string,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`[e2e ${suite}] step "${step}" failed: ${why}${see ? `\n  see: ${see}` : ''}`, { cause });
    this.name = 'StepError';
  }
}

export class Steps {
  readonly dir: string;
  page: Page | undefined;
  /** Each step that finished, with its wall time and CPU seconds (for the log; nothing asserts on them). */
  readonly timings: Array<{ step: string; ms: number; cpuS?: number; ok: boolean }> = [];
  /** CPU seconds spent so far by the processes a step drives (the session sets it). */
  cpu: (() => number) | undefined;
  private shots = 0;

  constructor(readonly suite: string) {
    this.dir = path.join(artifactsRoot, suite.replace(/[^\w.-]+/g, '-'));
    // Fresh per run, so a stale failure shot never passes for a new one.
    fs.rmSync(this.dir, { recursive: true, force: true });
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /** Runs fn as a named step; on failure screenshots the page and throws a StepError. */
  async step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const start = Date.now();
    const cpuStart = this.cpu?.();
    const timing = (ok: boolean) => ({ step: name, ms: Date.now() - start, ...(cpuStart !== undefined && this.cpu ? { cpuS: Math.round((this.cpu() - cpuStart) * 100) / 100 } : {}), ok });
    try {
      const v = await fn();
      this.timings.push(timing(true));
      return v;
    } catch (err) {
      this.timings.push(timing(false));
      if (err instanceof StepError) throw err; // already named by an inner step
      const shot = await this.screenshot(`${name}-FAILED`).catch(() => undefined);
      throw new StepError(this.suite, name, err, shot ?? this.dir);
    }
  }

  /** The timings as one line: `step 1234 ms 2.5 CPU s; ...`. */
  summary(): string {
    return this.timings.map((x) => `${x.step} ${x.ms} ms${x.cpuS !== undefined ? ` ${x.cpuS} CPU s` : ''}${x.ok ? '' : ' FAILED'}`).join('; ');
  }

  /** Saves <nn>-<name>.png and returns its path (undefined when there is no page yet). */
  async screenshot(name: string): Promise<string | undefined> {
    if (!this.page || this.page.isClosed()) return undefined;
    const file = path.join(this.dir, `${String(++this.shots).padStart(2, '0')}-${name.replace(/[^\w.-]+/g, '-').slice(0, 100)}.png`);
    await this.page.screenshot({ path: file, timeout: 10_000 });
    return file;
  }

  writeText(name: string, text: string): string {
    const file = path.join(this.dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return file;
  }
}
