// VS Code agent hooks (Preview; Copilot and the Local harness). Claude Code's file format, but
// camelCase common fields (sessionId, hookEventName), VS Code tool names with camelCase inputs
// (tool_input.filePath), matchers ignored, and no SessionEnd: Stop ends the session.
// Source: microsoft/vscode-docs docs/agent-customization/hooks.md ("Agent hooks in Visual Studio Code").
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
