// GitHub Copilot CLI. Two payload formats, chosen by how the event is named in the hook file:
// camelCase events (sessionStart, userPromptSubmitted, preToolUse, postToolUse, agentStop, ...)
// with camelCase fields (sessionId, toolName, toolArgs, toolResult{resultType,textResultForLlm}),
// or PascalCase events with snake_case fields (tool_result{result_type,text_result_for_llm}).
// toolArgs was a JSON string in early versions. Tools: view, create, edit, bash, glob, grep, web_fetch.
// Source: github/docs content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md.
import { eventOf, first, firstStr, hookSpecificReply, PASCAL_EVENTS, str, type HookEvent, type HookInput, type HookReply, type Json } from '../input';

const CAMEL_EVENTS: Record<string, HookEvent> = {
  ...PASCAL_EVENTS,
  sessionStart: 'session-start',
  sessionEnd: 'session-end',
  userPromptSubmitted: 'prompt',
  preToolUse: 'pre-tool',
  postToolUse: 'post-tool',
  postToolUseFailure: 'post-tool-failure',
  agentStop: 'stop',
  subagentStart: 'subagent-start',
  subagentStop: 'subagent-stop',
  preCompact: 'pre-compact',
};

function parseArgs(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** toolResult {resultType, textResultForLlm} (or snake_case): the text, with the outcome when not a success. */
function resultOf(raw: Json): { response: unknown; failed: boolean } {
  const r = first(raw, 'toolResult', 'tool_result', 'tool_response');
  if (r && typeof r === 'object' && !Array.isArray(r)) {
    const o = r as Json;
    const type = firstStr(o, 'resultType', 'result_type');
    const text = first(o, 'textResultForLlm', 'text_result_for_llm');
    if (type !== undefined || text !== undefined) {
      const failed = type !== undefined && type !== 'success';
      return { response: failed ? { result: type, output: text } : text, failed };
    }
  }
  if (raw.error !== undefined) return { response: { error: raw.error }, failed: true };
  return { response: r, failed: false };
}

export const copilotCli = {
  platform: 'copilot-cli' as const,
  read(raw: Json): HookInput {
    const rawEvent = firstStr(raw, 'hook_event_name', 'hookEventName');
    let event = eventOf(rawEvent, CAMEL_EVENTS);
    const { response, failed } = resultOf(raw);
    if (event === 'post-tool' && failed) event = 'post-tool-failure';
    return {
      platform: 'copilot-cli',
      event,
      rawEvent,
      sessionId: firstStr(raw, 'sessionId', 'session_id'),
      cwd: str(raw.cwd),
      prompt: typeof raw.prompt === 'string' ? raw.prompt : firstStr(raw, 'initialPrompt', 'initial_prompt'),
      toolName: firstStr(raw, 'toolName', 'tool_name'),
      toolInput: parseArgs(first(raw, 'toolArgs', 'tool_input', 'toolInput')),
      toolResponse: response,
      toolUseId: firstStr(raw, 'toolCallId', 'tool_call_id', 'tool_use_id'),
      transcriptPath: firstStr(raw, 'transcriptPath', 'transcript_path'),
      agentType: firstStr(raw, 'agentName', 'agent_name'),
      source: str(raw.source),
      reason: firstStr(raw, 'reason', 'stopReason', 'stop_reason'),
    };
  },
  /** camelCase hooks read a top-level additionalContext; the compatible format reads hookSpecificOutput. */
  write(input: HookInput, reply: HookReply): Json {
    if (reply.context === undefined) return {};
    if (input.rawEvent && /^[A-Z]/.test(input.rawEvent)) return hookSpecificReply(input, reply);
    return reply.context === '' ? {} : { additionalContext: reply.context };
  },
};
