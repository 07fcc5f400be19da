// UserPromptSubmit: record the prompt (and the session, on its first prompt).
import { call, str, type HookEnv, type Json } from '../io';

export async function sessionInitHook(input: Json, env: HookEnv): Promise<Json> {
  const contentSessionId = str(input.session_id);
  if (!contentSessionId) {
    env.log.warn('UserPromptSubmit without session_id; nothing sent');
    return {};
  }
  const prompt = typeof input.prompt === 'string' ? input.prompt : undefined;
  await call(env, 'POST', '/api/sessions/init', { contentSessionId, cwd: str(input.cwd) ?? process.cwd(), prompt, platform: 'claude-code' });
  return {};
}
