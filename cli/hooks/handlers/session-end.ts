// SessionEnd: mark the session complete (the worker queues a summary if none was made).
import { forgetSession } from '../fileContextState';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';

export async function completeSession(input: HookInput & { sessionId: string }, env: HookEnv, reason: string): Promise<void> {
  forgetSession(env.target.dataDir, input.sessionId);
  await call(env, 'POST', '/api/sessions/complete', { contentSessionId: input.sessionId, reason, cwd: input.cwd ?? process.cwd(), platform: input.platform });
}

export async function sessionEndHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  if (!input.sessionId) {
    env.log.warn(`${input.rawEvent ?? 'SessionEnd'} without session_id; nothing sent`, { platform: input.platform });
    return {};
  }
  await completeSession({ ...input, sessionId: input.sessionId }, env, input.reason ?? 'other');
  return {};
}
