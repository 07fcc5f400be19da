// Claude Code: snake_case fields, PascalCase events (docs.claude.com/en/docs/claude-code/hooks).
import { eventOf, first, firstStr, hookSpecificReply, str, type HookInput, type Json } from '../input';

/** Fields shared by Claude Code and the platforms that copied its format (Codex, Copilot CLI's compatible mode). */
export function readSnake(raw: Json): Omit<HookInput, 'platform' | 'event'> {
  return {
    rawEvent: str(raw.hook_event_name),
    sessionId: firstStr(raw, 'session_id', 'sessionId'),
    cwd: str(raw.cwd),
    prompt: typeof raw.prompt === 'string' ? raw.prompt : undefined,
    toolName: firstStr(raw, 'tool_name', 'toolName'),
    toolInput: first(raw, 'tool_input', 'toolInput'),
    // PostToolUseFailure carries `error` (and is_interrupt) where PostToolUse has tool_response.
    toolResponse:
      raw.tool_response !== undefined
        ? raw.tool_response
        : raw.error !== undefined
          ? { error: raw.error, ...(raw.is_interrupt !== undefined ? { is_interrupt: raw.is_interrupt } : {}) }
          : undefined,
    toolUseId: firstStr(raw, 'tool_use_id', 'toolUseId'),
    transcriptPath: firstStr(raw, 'transcript_path', 'transcriptPath'),
    agentId: firstStr(raw, 'agent_id', 'agentId'),
    agentType: firstStr(raw, 'agent_type', 'agentType'),
    source: str(raw.source),
    reason: str(raw.reason),
    lastAssistantMessage: str(raw.last_assistant_message),
  };
}

export const claudeCode = {
  platform: 'claude-code' as const,
  read(raw: Json): HookInput {
    const base = readSnake(raw);
    return { platform: 'claude-code', event: eventOf(base.rawEvent), ...base };
  },
  write: hookSpecificReply,
};
