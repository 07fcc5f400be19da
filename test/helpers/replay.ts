// Replays recorded-shape hook events against a running worker, as an agent platform would: through
// the real hook CLI (`node dist/cli.js hook <platform> <handler>`, stdin the platform's JSON), or
// through the CLI's own entry function (cli/hooks/run.ts runHook) in this process, which runs the
// same adapters and handlers without starting a node process per event.
import { spawn } from 'node:child_process';
import { runHook as runHookEntry } from '../../cli/hooks/run';
import { CLI_JS, type RunningWorker } from './worker';

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runHook(platform: string, handler: string, payload: unknown, env: Record<string, string>, timeoutMs = 30_000): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, 'hook', platform, handler], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
  });
}

/**
 * The same event through the CLI's entry function in this process: `env` is set in process.env for
 * the call (the hook reads its target from there) and put back after. One call at a time.
 */
export async function runHookHere(platform: string, handler: string, payload: unknown, env: Record<string, string>): Promise<HookRun> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  try {
    const code = await runHookEntry([platform, handler], {
      readStdin: () => (typeof payload === 'string' ? payload : JSON.stringify(payload)),
      writeStdout: (value) => (stdout += JSON.stringify(value)),
      writeStderr: (text) => (stderr += text),
    });
    return { code, stdout, stderr };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The environment that points the hook CLI at this worker (and never starts another). */
export function hookEnv(w: RunningWorker): Record<string, string> {
  return { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
}

/** The additionalContext a SessionStart hook printed ('' when none). */
export function injected(run: HookRun): string {
  try {
    const j = JSON.parse(run.stdout) as { hookSpecificOutput?: { additionalContext?: string }; additionalContext?: string };
    return j.hookSpecificOutput?.additionalContext ?? j.additionalContext ?? '';
  } catch {
    return '';
  }
}

/**
 * Polls until fn returns true, first every 25 ms, then twice as long each time up to everyMs: a
 * wait of a minute asks ~60 times, not 1,200 (each ask costs the worker and this process ~3 ms of
 * CPU), and a short one still ends within a few tens of ms.
 */
export async function waitFor(fn: () => Promise<boolean>, ms: number, what: string, everyMs = 250): Promise<void> {
  const end = Date.now() + ms;
  for (let pause = 25; ; pause = Math.min(everyMs, pause * 2)) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** Waits until the worker's queue has no pending or running work. */
export async function drained(w: RunningWorker, ms = 30_000): Promise<void> {
  await waitFor(
    async () => {
      const r = await w.req('GET', '/api/queue');
      const b = r.body as { pending: number; inFlight: number };
      return r.status === 200 && b.pending === 0 && b.inFlight === 0;
    },
    ms,
    'the queue to drain',
  );
}
