// UserPromptSubmit: record the prompt (and the session, on its first prompt).
import { cleanIncomingText } from '../../../common/privacy/incoming';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';

export async function sessionInitHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  if (!input.sessionId) {
    env.log.warn(`${input.rawEvent ?? 'UserPromptSubmit'} without session_id; nothing sent`, { platform: input.platform });
    return {};
  }
  // Cleaned here, so the spool never holds the prompt's private blocks or secrets. A prompt that was
  // all private goes as an empty block: the worker still records a private prompt and skips its turn.
  const p = input.prompt === undefined ? undefined : cleanIncomingText(input.prompt);
  const prompt = p === undefined ? undefined : p.removed > 0 && p.value.trim() === '' ? '<private></private>' : p.value;
  await call(env, 'POST', '/api/sessions/init', { contentSessionId: input.sessionId, cwd: input.cwd ?? process.cwd(), prompt, platform: input.platform });
  return {};
}
