// Replays recorded-shape hook events through the real hook CLI (`node dist/cli.js hook <platform>
// <handler>`, stdin the platform's JSON) against a running worker, as an agent platform would.
import { spawn } from 'node:child_process';
import { CLI_JS, until, type RunningWorker } from './worker';

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

/** Waits until the worker's queue has no pending or running work. */
export async function drained(w: RunningWorker, ms = 30_000): Promise<void> {
  await until(
    async () => {
      const r = await w.req('GET', '/api/queue');
      const b = r.body as { pending: number; inFlight: number };
      return r.status === 200 && b.pending === 0 && b.inFlight === 0;
    },
    ms,
    'the queue to drain',
  );
}
