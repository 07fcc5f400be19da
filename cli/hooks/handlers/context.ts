// SessionStart (and SubagentStart, where the platform sends one): make sure a worker runs, check
// the project's cited files against the work tree and branch (cli/freshnessCheck.ts), then hand the
// agent the project's memory as additionalContext, asked for on this branch; the check's verdicts
// ride in that request (POST /api/context/inject). No worker in time: the same shape, empty context.
import { contextMarkdown } from '../../../common/contract/replies';
import { projectFromCwd } from '../../../common/node/project';
import { query } from '../../client';
import { checkProject, citedPath, hookAnswers, viewParams, type Send } from '../../freshnessCheck';
import { ensureWorker } from '../../startStop';
import { DEFAULT_START_MS } from '../budgets';
import { tookPath } from '../codePaths';
import type { HookInput, HookReply } from '../input';
import { claimInjection } from '../injectClaim';
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
  // Several installed hook files for one conversation: the first prints the context, the rest nothing.
  if (input.sessionId && !claimInjection(env.target.dataDir, `${event}:${input.source ?? ''}:${input.sessionId}`)) {
    env.log.info('context already injected for this session by another hook file; printing nothing');
    return { silent: true };
  }
  const cwd = input.cwd ?? process.cwd();
  const project = projectFromCwd(cwd);
  const cited = citedPath(project);
  let first = await call(env, 'GET', cited, undefined, { optionalRoute: true });
  // Only when nothing listens: a worker that is there but slow is not replaced.
  if (!first.ok && first.reason === 'network' && first.code === 'ECONNREFUSED') {
    if (process.env.CLAUDE_MEM_NO_AUTOSTART === '1') return reply('');
    tookPath('w');
    const budget = Number(process.env.CLAUDE_MEM_HOOK_START_MS) || DEFAULT_START_MS;
    const h = await ensureWorker(env.target, budget);
    if (!h) {
      env.log.warn(`no worker became healthy within ${budget} ms; starting the session without memory`);
      return reply('');
    }
    env.log.info(`started worker pid ${h.pid} on port ${h.port}`);
    first = await call(env, 'GET', cited, undefined, { optionalRoute: true });
  }
  // The cited list is already here: the check sends only its verdicts.
  const send: Send = async (method, path, body) => {
    if (method === 'GET' && path === cited) return first.ok ? first.reply.body : undefined;
    const r = await call(env, method, path, body, { optionalRoute: true, checkBody: true });
    return r.ok ? r.reply.body : undefined;
  };
  const { view, check } = await checkProject(send, project, cwd, hookAnswers(env.target.dataDir));
  if (check) tookPath('c');
  const url = `/api/context/inject${query({ project, ...viewParams(view) })}`;
  // The check travels with the context request: one round trip (an older worker without the POST: two).
  let r = check ? await call(env, 'POST', url, check, { optionalRoute: true, checkBody: true }) : await call(env, 'GET', url, undefined, { optionalRoute: true });
  if (check && !r.ok && r.reason === 'not_found') {
    await send('POST', '/api/freshness/check', check);
    r = await call(env, 'GET', url, undefined, { optionalRoute: true });
  }
  return reply(r.ok ? contextText(r.reply.body, env) : '');
}
