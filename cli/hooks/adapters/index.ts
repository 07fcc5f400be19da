// The adapters, and which one a payload belongs to. The command line names a platform
// (`hook claude-code observation`), but one installed command can be run by several hosts: VS Code
// runs the hooks in ~/.claude/settings.json with its own payload. So a payload that plainly
// belongs to another platform wins over the command line; one that could be anyone's keeps it.
import type { HookInput, HookReply, Json, PlatformId } from '../input';
import { claudeCode } from './claude-code';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { GEMINI_EVENTS, geminiCli } from './gemini-cli';
import { vscodeAgent } from './vscode-agent';

export interface Adapter {
  platform: PlatformId;
  read(raw: Json): HookInput;
  write(input: HookInput, reply: HookReply): Json;
}

export const ADAPTERS: Record<PlatformId, Adapter> = {
  'claude-code': claudeCode,
  'vscode-agent': vscodeAgent,
  'copilot-cli': copilotCli,
  codex,
  'gemini-cli': geminiCli,
};

/** Command-line spellings of a platform; `auto` (or none) means: tell from the payload. */
const NAMES: Record<string, PlatformId | 'auto'> = {
  'claude-code': 'claude-code',
  'vscode-agent': 'vscode-agent',
  vscode: 'vscode-agent',
  copilot: 'vscode-agent',
  'copilot-cli': 'copilot-cli',
  codex: 'codex',
  'gemini-cli': 'gemini-cli',
  gemini: 'gemini-cli',
  auto: 'auto',
};

export function platformArg(name: string | undefined): PlatformId | 'auto' | undefined {
  return name !== undefined && Object.prototype.hasOwnProperty.call(NAMES, name) ? NAMES[name] : undefined;
}

const has = (raw: Json, k: string) => raw[k] !== undefined;
const isStr = (v: unknown) => typeof v === 'string' && v !== '';

/** The platform whose payload this plainly is, or undefined when nothing sets it apart. */
export function platformOfPayload(raw: Json): PlatformId | undefined {
  // Copilot CLI: toolArgs/toolResult (camelCase) or tool_result (its compatible format), or a camelCase id with a numeric timestamp.
  if (has(raw, 'toolArgs') || has(raw, 'toolResult') || has(raw, 'tool_result') || (isStr(raw.sessionId) && typeof raw.timestamp === 'number')) return 'copilot-cli';
  // VS Code agent hooks: camelCase common fields (before 2026-09; snake_case since: see pickAdapter).
  if (isStr(raw.hookEventName) || (isStr(raw.sessionId) && !isStr(raw.session_id))) return 'vscode-agent';
  const ev = raw.hook_event_name;
  if (typeof ev === 'string' && ev !== 'SessionStart' && ev !== 'SessionEnd' && Object.prototype.hasOwnProperty.call(GEMINI_EVENTS, ev)) return 'gemini-cli';
  if (isStr(raw.turn_id)) return 'codex';
  return undefined;
}

export function pickAdapter(raw: Json, named: PlatformId | 'auto'): Adapter {
  let seen = platformOfPayload(raw);
  // VS Code's Local harness running Claude Code's hook entries (chat.useClaudeHooks): since 2026-09
  // snake_case like Claude Code's, told apart by its ISO `timestamp` (Claude Code sends none).
  if (!seen && (named === 'claude-code' || named === 'auto') && isStr(raw.session_id) && isStr(raw.timestamp)) seen = 'vscode-agent';
  return ADAPTERS[seen ?? (named === 'auto' ? 'claude-code' : named)];
}
