// Stop: ask for a summary of the turn, with the last prompt and reply (from the hook input, else
// from the end of the transcript).
import { cleanAndCut } from '../../../../common/privacy';
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
    // Stripped and redacted before the cut, so no half of a private block or a secret survives it.
    last_user_message: user === undefined ? undefined : cleanAndCut(user, MAX_MESSAGE),
    last_assistant_message: assistant === undefined ? undefined : cleanAndCut(assistant, MAX_MESSAGE),
  });
  return {};
}
