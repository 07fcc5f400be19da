// Gemini CLI: snake_case fields and its own event names (BeforeAgent, BeforeTool, AfterTool,
// AfterAgent, PreCompress); tool_response is {llmContent, returnDisplay, error}.
// Source: google-gemini/gemini-cli docs/hooks/reference.md.
import { eventOf, first, firstStr, hookSpecificReply, str, type HookEvent, type HookInput, type Json } from '../input';

export const GEMINI_EVENTS: Record<string, HookEvent> = {
  SessionStart: 'session-start',
  SessionEnd: 'session-end',
  BeforeAgent: 'prompt',
  AfterAgent: 'stop',
  BeforeTool: 'pre-tool',
  AfterTool: 'post-tool',
  PreCompress: 'pre-compact',
};

export const geminiCli = {
  platform: 'gemini-cli' as const,
  read(raw: Json): HookInput {
    const rawEvent = str(raw.hook_event_name);
    const response = first(raw, 'tool_response', 'toolResponse');
    const failed = !!response && typeof response === 'object' && (response as Json).error !== undefined && (response as Json).error !== null;
    let event = eventOf(rawEvent, GEMINI_EVENTS);
    if (event === 'post-tool' && failed) event = 'post-tool-failure';
    return {
      platform: 'gemini-cli',
      event,
      rawEvent,
      sessionId: firstStr(raw, 'session_id', 'sessionId'),
      cwd: str(raw.cwd),
      prompt: typeof raw.prompt === 'string' ? raw.prompt : undefined,
      toolName: firstStr(raw, 'tool_name', 'toolName'),
      toolInput: first(raw, 'tool_input', 'toolInput'),
      toolResponse: response,
      toolUseId: firstStr(raw, 'tool_use_id', 'tool_call_id'),
      transcriptPath: firstStr(raw, 'transcript_path'),
      source: firstStr(raw, 'source', 'trigger'),
      reason: str(raw.reason),
      lastAssistantMessage: firstStr(raw, 'prompt_response', 'last_assistant_message'),
    };
  },
  write: hookSpecificReply,
};
