// PostToolUse and PostToolUseFailure: queue the tool use for compression.
import { scrubToolUse } from '../../../../common/privacy/toolUse';
import { readSettings } from '../../../config';
import { call, str, type HookEnv, type Json } from '../io';
import { boundField } from '../shrink';

/** Our own MCP tools: storing their use would only echo memory back into memory. */
const OWN_TOOLS = /^mcp__claude-mem__/;

export async function observationHook(input: Json, env: HookEnv): Promise<Json> {
  const contentSessionId = str(input.session_id);
  const toolName = str(input.tool_name);
  if (!contentSessionId || !toolName) {
    env.log.warn(`${String(input.hook_event_name ?? 'PostToolUse')} without ${contentSessionId ? 'tool_name' : 'session_id'}; nothing sent`);
    return {};
  }
  if (OWN_TOOLS.test(toolName)) return {};
  const { settings } = readSettings(env.target.dataDir);
  const max = settings.maxFieldChars;
  const maxTotal = Math.max(max, Math.floor(settings.maxBodyBytes / 8));
  // PostToolUseFailure carries `error` (and is_interrupt) where PostToolUse has tool_response.
  const response =
    input.tool_response !== undefined
      ? input.tool_response
      : input.error !== undefined
        ? { error: input.error, ...(input.is_interrupt !== undefined ? { is_interrupt: input.is_interrupt } : {}) }
        : undefined;
  // Strip private blocks, drop secret files' content and redact secrets before anything is cut.
  const use = scrubToolUse(input.tool_input, response);
  await call(env, 'POST', '/api/sessions/observations', {
    contentSessionId,
    tool_name: toolName,
    tool_input: boundField(use.input, max, maxTotal),
    tool_response: boundField(use.response, max, maxTotal),
    cwd: str(input.cwd) ?? process.cwd(),
    tool_use_id: str(input.tool_use_id),
    platform: 'claude-code',
  });
  return {};
}
