// Stop: ask for a summary of the turn, with the last prompt and reply (from the hook input, else
// from the end of the transcript).
import { capText } from '../../../privacy/filters';
import { call, str, type HookEnv, type Json } from '../io';
import { lastMessages } from '../transcript';

const MAX_MESSAGE = 100_000;

export async function summarizeHook(input: Json, env: HookEnv): Promise<Json> {
  const contentSessionId = str(input.session_id);
  if (!contentSessionId) {
    env.log.warn('Stop without session_id; nothing sent');
    return {};
  }
  const transcript = str(input.transcript_path);
  const fromTranscript = transcript ? lastMessages(transcript) : {};
  const assistant = str(input.last_assistant_message) ?? fromTranscript.assistant;
  const user = fromTranscript.user;
  await call(env, 'POST', '/api/sessions/summarize', {
    contentSessionId,
    cwd: str(input.cwd) ?? process.cwd(),
    platform: 'claude-code',
    last_user_message: user === undefined ? undefined : capText(user, MAX_MESSAGE),
    last_assistant_message: assistant === undefined ? undefined : capText(assistant, MAX_MESSAGE),
  });
  return {};
}
