// `claude-mem hook <platform> <handler>`: read the platform's hook JSON on stdin, turn it into the
// one internal HookInput (adapters/), run the handler (handlers/), print only the platform's JSON.
// Never exits 2 (that would block the user's session).
import { resolve as resolvePath } from 'node:path';
import { defaultDataDir } from '../../common/node/config';
import { targetFromEnv, type ClientTarget } from '../client';
import { pickAdapter, platformArg, ADAPTERS, type Adapter } from './adapters';
import { DEFAULT_START_MS } from './budgets';
import type { HookInput, HookReply, Json } from './input';
import { HookLog, parseHookInput, readStdinSync, writeStdout, type HookEnv } from './io';

type Handler = (input: HookInput, env: HookEnv) => Promise<HookReply>;

/** Where a hook reads its payload and writes its answer: the process's own stdio, or strings. */
export interface HookStdio {
  readStdin(): string | Buffer;
  writeStdout(value: unknown): void;
  writeStderr(text: string): void;
}

const PROCESS_STDIO: HookStdio = { readStdin: readStdinSync, writeStdout, writeStderr: (text) => void process.stderr.write(text) };

/**
 * Each handler, loaded when its event runs: the bundle initialises a module (and requires its
 * builtins) on first import, so a hook sets up only the modules its own event needs.
 */
export const HOOK_HANDLERS: Record<string, () => Promise<Handler>> = {
  context: async () => (await import('./handlers/context')).contextHook,
  'session-init': async () => (await import('./handlers/session-init')).sessionInitHook,
  observation: async () => (await import('./handlers/observation')).observationHook,
  'file-context': async () => (await import('./handlers/file-context')).fileContextHook,
  summarize: async () => (await import('./handlers/summarize')).summarizeHook,
  'session-end': async () => (await import('./handlers/session-end')).sessionEndHook,
};

/** What to print when the handler fails or runs out of time. */
function fallback(handler: string, adapter: Adapter, input: HookInput): Json {
  return handler === 'context' ? adapter.write(input, { context: '', event: input.event === 'subagent-start' ? 'SubagentStart' : 'SessionStart' }) : {};
}

/** One hook event. `stdio` is the process's unless a caller replays events in one process (the memory eval). */
export async function runHook(args: string[], stdio: HookStdio = PROCESS_STDIO): Promise<number> {
  // `hook <platform> <handler>`, or `hook <handler>` (the platform told from the payload).
  const named = args.length >= 2 ? platformArg(args[0]) : 'auto';
  const event = (args.length >= 2 ? args[1] : args[0]) ?? '';
  const load = named && Object.prototype.hasOwnProperty.call(HOOK_HANDLERS, event) ? HOOK_HANDLERS[event] : undefined;
  if (!load || !named) {
    stdio.writeStdout(fallback(event, ADAPTERS['claude-code'], { platform: 'claude-code', event: 'other' }));
    stdio.writeStderr(`claude-mem: unknown hook "${args.join(' ')}"; expected: hook <${Object.keys(ADAPTERS).join('|')}|auto> <${Object.keys(HOOK_HANDLERS).join('|')}>\n`);
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
    stdio.writeStdout(fallback(event, ADAPTERS[named === 'auto' ? 'claude-code' : named], { platform: 'claude-code', event: 'other' }));
    stdio.writeStderr(`claude-mem: ${(e as Error).message}\n`);
    return 1;
  }
  const log = new HookLog(target.dataDir, event);
  const env: HookEnv = { target, log, exitCode: 0, stderr: [] };
  let raw: string | Buffer;
  try {
    raw = stdio.readStdin();
  } catch (e) {
    log.warn(`could not read stdin: ${(e as Error).message}`);
    raw = '';
  }
  const parsed = parseHookInput(raw);
  if (parsed.problem) log.warn(`${parsed.problem}; continuing with what there is`, { bytes: parsed.bytes });
  const adapter = pickAdapter(parsed.input, named);
  const input = adapter.read(parsed.input);
  log.debug('hook input', { bytes: parsed.bytes, platform: input.platform, event: input.rawEvent, session: input.sessionId });

  let out: Json | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = load()
      .then((handler) => handler(input, env))
      .then((reply) => (reply.silent ? undefined : adapter.write(input, reply)));
    if (event === 'context') {
      // context may start a worker: whatever happens, answer before Claude Code's own hook timeout.
      // The other hooks are bounded by their single request's timeout.
      const limitMs = (Number(process.env.CLAUDE_MEM_HOOK_START_MS) || DEFAULT_START_MS) + 6000;
      const watchdog = new Promise<Json | undefined>((done) => {
        timer = setTimeout(() => {
          log.warn(`hook gave up after ${limitMs} ms`);
          done(fallback(event, adapter, input));
        }, limitMs);
      });
      out = await Promise.race([work, watchdog]);
    } else out = await work;
  } catch (e) {
    log.error(`hook failed: ${(e as Error).stack ?? String(e)}`);
    env.stderr.push(`claude-mem: ${event} hook failed: ${(e as Error).message} (see ${log.file})`);
    env.exitCode = 1;
    out = fallback(event, adapter, input);
  } finally {
    clearTimeout(timer);
  }
  if (out !== undefined) stdio.writeStdout(out);
  if (env.stderr.length) stdio.writeStderr(env.stderr.join('\n') + '\n');
  return env.exitCode;
}
