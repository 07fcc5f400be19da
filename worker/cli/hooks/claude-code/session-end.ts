// SessionEnd: mark the session complete (the worker queues a summary if none was made).
import { call, str, type HookEnv, type Json } from '../io';
import { forgetSession } from './fileContextState';

export async function sessionEndHook(input: Json, env: HookEnv): Promise<Json> {
  const contentSessionId = str(input.session_id);
  if (!contentSessionId) {
    env.log.warn('SessionEnd without session_id; nothing sent');
    return {};
  }
  forgetSession(env.target.dataDir, contentSessionId);
  await call(env, 'POST', '/api/sessions/complete', {
    contentSessionId,
    reason: str(input.reason) ?? 'other',
    cwd: str(input.cwd) ?? process.cwd(),
    platform: 'claude-code',
  });
  return {};
}
