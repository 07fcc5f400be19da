// SessionStart (and SubagentStart, where the platform sends one): make sure a worker runs, then
// hand the agent the project's memory as additionalContext. No worker in time: the same shape,
// empty context.
import { contextMarkdown } from '../../../common/contract/replies';
import { projectFromCwd } from '../../../common/node/project';
import { query } from '../../client';
import { ensureWorker } from '../../startStop';
import { DEFAULT_START_MS } from '../budgets';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';

/** The reply's markdown; a reply off the contract is our bug: logged, and the session starts without memory. */
export function contextText(body: unknown, env?: Pick<HookEnv, 'log'>): string {
  try {
    return contextMarkdown(body);
  } catch (e) {
    env?.log.error((e as Error).message);
    return '';
  }
}

export async function contextHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  const event = input.event === 'subagent-start' ? 'SubagentStart' : 'SessionStart';
  const reply = (context: string): HookReply => ({ context, event });
  const cwd = input.cwd ?? process.cwd();
  const path = `/api/context/inject${query({ project: projectFromCwd(cwd) })}`;
  let r = await call(env, 'GET', path, undefined, { optionalRoute: true });
  // Only when nothing listens: a worker that is there but slow is not replaced.
  if (!r.ok && r.reason === 'network' && r.code === 'ECONNREFUSED') {
    if (process.env.CLAUDE_MEM_NO_AUTOSTART === '1') return reply('');
    const budget = Number(process.env.CLAUDE_MEM_HOOK_START_MS) || DEFAULT_START_MS;
    const h = await ensureWorker(env.target, budget);
    if (!h) {
      env.log.warn(`no worker became healthy within ${budget} ms; starting the session without memory`);
      return reply('');
    }
    env.log.info(`started worker pid ${h.pid} on port ${h.port}`);
    r = await call(env, 'GET', path, undefined, { optionalRoute: true });
  }
  return reply(r.ok ? contextText(r.reply.body, env) : '');
}
