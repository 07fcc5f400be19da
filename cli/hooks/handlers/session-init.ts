// UserPromptSubmit: record the prompt (and the session, on its first prompt).
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';

export async function sessionInitHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  if (!input.sessionId) {
    env.log.warn(`${input.rawEvent ?? 'UserPromptSubmit'} without session_id; nothing sent`, { platform: input.platform });
    return {};
  }
  await call(env, 'POST', '/api/sessions/init', { contentSessionId: input.sessionId, cwd: input.cwd ?? process.cwd(), prompt: input.prompt, platform: input.platform });
  return {};
}
