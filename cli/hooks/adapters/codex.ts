// OpenAI Codex CLI: Claude Code's field names plus `model` and `turn_id`; tools Bash and
// apply_patch (and MCP tools); Stop ends a turn and there is no SessionEnd.
// Source: developers.openai.com/codex/hooks (hooks.md, May 2026).
import { eventOf, hookSpecificReply, str, type HookInput, type Json } from '../input';
import { readSnake } from './claude-code';

export const codex = {
  platform: 'codex' as const,
  read(raw: Json): HookInput {
    const base = readSnake(raw);
    // apply_patch's input is the patch text, under `command` or `input` depending on the version.
    return { platform: 'codex', event: eventOf(base.rawEvent), ...base, lastAssistantMessage: base.lastAssistantMessage ?? str(raw.lastAssistantMessage) };
  },
  write: hookSpecificReply,
};
