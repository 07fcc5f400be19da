// PostToolUse and PostToolUseFailure: queue the tool use for compression. Nothing in the answer
// matters to the hook, so through the spool it stops waiting once the worker has claimed the request.
import { checkObservationRequest } from '../../../common/contract/validate';
import { scrubToolUse } from '../../../common/privacy/toolUse';
import { readSettings } from '../../../common/node/config';
import { fingerprintToolUse } from '../../../common/node/freshness/fingerprint';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';
import { boundField } from '../shrink';

/** Our own tools (MCP server as each platform names it, and the extension's language-model tools): storing their use would only echo memory back into memory. */
const OWN_TOOLS = /^(?:mcp__claude-mem__|mcp_claude-mem_|claude-mem-)|^memory_(?:search|timeline|get|context|save)$/;

export async function observationHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  const { sessionId, toolName } = input;
  if (!sessionId || !toolName) {
    env.log.warn(`${input.rawEvent ?? 'PostToolUse'} without ${sessionId ? 'tool_name' : 'session_id'}; nothing sent`, { platform: input.platform });
    return {};
  }
  if (OWN_TOOLS.test(toolName)) return {};
  const { settings } = readSettings(env.target.dataDir);
  const max = settings.maxFieldChars;
  const maxTotal = Math.max(max, Math.floor(settings.maxBodyBytes / 8));
  // Strip private blocks, drop secret files' content and redact secrets before anything is cut.
  const use = scrubToolUse(input.toolInput, input.toolResponse, toolName);
  await call(env, 'POST', '/api/sessions/observations', {
    contentSessionId: sessionId,
    tool_name: toolName,
    tool_input: boundField(use.input, max, maxTotal),
    tool_response: boundField(use.response, max, maxTotal),
    cwd: input.cwd ?? process.cwd(),
    tool_use_id: input.toolUseId,
    platform: input.platform,
    // Fingerprints of the files the tool touched, taken here where the files are (docs/freshness.md).
    citations: fingerprintToolUse({ cwd: input.cwd, tool_name: toolName, tool_input: input.toolInput }),
  }, { ackAtClaim: true, check: checkObservationRequest });
  return {};
}
