// `claude-mem hook claude-code <event>`: read the hook JSON on stdin, call the worker, print only
// the hook's JSON. Never exits 2 (that would block the user's session in Claude Code).
import { resolve as resolvePath } from 'node:path';
import { defaultDataDir } from '../../config';
import { targetFromEnv, type ClientTarget } from '../client';
import { DEFAULT_START_MS, sessionStartOutput } from './claude-code/sessionStart';
import { HookLog, parseHookInput, readStdinSync, writeStdout, type HookEnv, type Json } from './io';

type Handler = (input: Json, env: HookEnv) => Promise<Json>;

/**
 * Each event's handler, loaded when its event runs: the bundle initialises a module (and requires
 * its builtins) on first import, so a hook sets up only the modules its own event needs.
 */
export const CLAUDE_CODE_EVENTS: Record<string, () => Promise<Handler>> = {
  context: async () => (await import('./claude-code/context')).contextHook,
  'session-init': async () => (await import('./claude-code/session-init')).sessionInitHook,
  observation: async () => (await import('./claude-code/observation')).observationHook,
  'file-context': async () => (await import('./claude-code/file-context')).fileContextHook,
  summarize: async () => (await import('./claude-code/summarize')).summarizeHook,
  'session-end': async () => (await import('./claude-code/session-end')).sessionEndHook,
};

/** What to print when the handler fails or runs out of time. */
function fallback(event: string): Json {
  return event === 'context' ? sessionStartOutput('') : {};
}

export async function runHook(args: string[]): Promise<number> {
  const [platform, event = ''] = args;
  const load = platform === 'claude-code' && Object.prototype.hasOwnProperty.call(CLAUDE_CODE_EVENTS, event) ? CLAUDE_CODE_EVENTS[event] : undefined;
  if (!load) {
    writeStdout(fallback(event));
    process.stderr.write(`claude-mem: unknown hook "${args.join(' ')}"; expected: hook claude-code <${Object.keys(CLAUDE_CODE_EVENTS).join('|')}>\n`);
    return 1;
  }
  let target: ClientTarget;
  try {
    target = targetFromEnv();
  } catch (e) {
    // A bad CLAUDE_MEM_WORKER_PORT: say so, never block the session.
    target = { host: '127.0.0.1', port: 0, dataDir: resolvePath(defaultDataDir()) };
    const log = new HookLog(target.dataDir, event);
    log.error((e as Error).message);
    writeStdout(fallback(event));
    process.stderr.write(`claude-mem: ${(e as Error).message}\n`);
    return 1;
  }
  const log = new HookLog(target.dataDir, event);
  const env: HookEnv = { target, log, exitCode: 0, stderr: [] };
  let raw: string | Buffer;
  try {
    raw = readStdinSync();
  } catch (e) {
    log.warn(`could not read stdin: ${(e as Error).message}`);
    raw = '';
  }
  const { input, problem, bytes } = parseHookInput(raw);
  if (problem) log.warn(`${problem}; continuing with what there is`, { bytes });
  log.debug('hook input', { bytes, session: typeof input.session_id === 'string' ? input.session_id : undefined });

  let out: Json;
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = load().then((handler) => handler(input, env));
    if (event === 'context') {
      // context may start a worker: whatever happens, answer before Claude Code's own hook timeout.
      // The other hooks are bounded by their single request's timeout.
      const limitMs = (Number(process.env.CLAUDE_MEM_HOOK_START_MS) || DEFAULT_START_MS) + 6000;
      const watchdog = new Promise<Json>((done) => {
        timer = setTimeout(() => {
          log.warn(`hook gave up after ${limitMs} ms`);
          done(fallback(event));
        }, limitMs);
      });
      out = await Promise.race([work, watchdog]);
    } else out = await work;
  } catch (e) {
    log.error(`hook failed: ${(e as Error).stack ?? String(e)}`);
    env.stderr.push(`claude-mem: ${event} hook failed: ${(e as Error).message} (see ${log.file})`);
    env.exitCode = 1;
    out = fallback(event);
  } finally {
    clearTimeout(timer);
  }
  writeStdout(out);
  if (env.stderr.length) process.stderr.write(env.stderr.join('\n') + '\n');
  return env.exitCode;
}
