// VS Code agent hooks (the Local harness). Claude Code's file format with snake_case common fields
// (session_id, hook_event_name, transcript_path, timestamp; camelCase sessionId/hookEventName before
// 2026-09, still read), VS Code tool names with camelCase inputs (tool_input.filePath), matchers
// ignored, and no SessionEnd: Stop ends the session. Copilot sessions on the Agent Host run the
// Copilot SDK's hooks instead (Copilot CLI's format: the copilot-cli adapter).
// Source: microsoft/vscode-docs docs/agents/reference/hooks-reference.md and
// docs/agent-customization/hooks.md (approved 2026-09-16).
import { eventOf, first, firstStr, hookSpecificReply, str, type HookInput, type Json } from '../input';

export const vscodeAgent = {
  platform: 'vscode-agent' as const,
  read(raw: Json): HookInput {
    const rawEvent = firstStr(raw, 'hookEventName', 'hook_event_name');
    const event = eventOf(rawEvent);
    return {
      platform: 'vscode-agent',
      event,
      rawEvent,
      sessionId: firstStr(raw, 'sessionId', 'session_id'),
      cwd: str(raw.cwd),
      prompt: typeof raw.prompt === 'string' ? raw.prompt : undefined,
      toolName: firstStr(raw, 'tool_name', 'toolName'),
      toolInput: first(raw, 'tool_input', 'toolInput'),
      toolResponse: first(raw, 'tool_response', 'toolResponse'),
      toolUseId: firstStr(raw, 'tool_use_id', 'toolUseId'),
      transcriptPath: firstStr(raw, 'transcript_path', 'transcriptPath'),
      agentId: firstStr(raw, 'agent_id', 'agentId'),
      agentType: firstStr(raw, 'agent_type', 'agentType'),
      source: str(raw.source),
      reason: firstStr(raw, 'reason', 'trigger'),
      lastAssistantMessage: firstStr(raw, 'last_assistant_message', 'lastAssistantMessage'),
      endsSession: event === 'stop' || undefined,
    };
  },
  write: hookSpecificReply,
};
