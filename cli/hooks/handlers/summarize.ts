// Stop (and PreCompact, as a checkpoint of the session so far): ask for a summary, with the last
// prompt and reply (from the hook input, else from the end of the transcript). Where Stop ends the
// session (VS Code: there is no SessionEnd) the session is completed too.
import { cleanAndCut } from '../../../common/privacy';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';
import { lastMessages } from '../transcript';
import { completeSession } from './session-end';

const MAX_MESSAGE = 100_000;

export async function summarizeHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  const sessionId = input.sessionId;
  if (!sessionId) {
    env.log.warn(`${input.rawEvent ?? 'Stop'} without session_id; nothing sent`, { platform: input.platform });
    return {};
  }
  const fromTranscript = input.transcriptPath ? lastMessages(input.transcriptPath) : {};
  const assistant = input.lastAssistantMessage ?? fromTranscript.assistant;
  const user = fromTranscript.user;
  const r = await call(env, 'POST', '/api/sessions/summarize', {
    contentSessionId: sessionId,
    cwd: input.cwd ?? process.cwd(),
    platform: input.platform,
    // Stripped and redacted before the cut, so no half of a private block or a secret survives it.
    last_user_message: user === undefined ? undefined : cleanAndCut(user, MAX_MESSAGE),
    last_assistant_message: assistant === undefined ? undefined : cleanAndCut(assistant, MAX_MESSAGE),
  });
  if (input.endsSession && (r.ok || r.reason === 'rejected')) await completeSession({ ...input, sessionId }, env, 'stop');
  return {};
}
