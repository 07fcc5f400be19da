// The one hook input every handler reads, whatever platform ran the hook. Adapters
// (adapters/<platform>.ts) build it from the platform's stdin and format the reply for its stdout;
// handlers never see a platform's raw field names.

export type PlatformId = 'claude-code' | 'vscode-agent' | 'copilot-cli' | 'codex' | 'gemini-cli';

export const PLATFORM_IDS: readonly PlatformId[] = ['claude-code', 'vscode-agent', 'copilot-cli', 'codex', 'gemini-cli'];

/** Lifecycle points, in our words. */
export type HookEvent =
  | 'session-start'
  | 'prompt'
  | 'pre-tool'
  | 'post-tool'
  | 'post-tool-failure'
  | 'pre-compact'
  | 'subagent-start'
  | 'subagent-stop'
  | 'stop'
  | 'session-end'
  | 'other';

export interface HookInput {
  platform: PlatformId;
  event: HookEvent;
  /** The event name as the platform spelled it (echoed in hookSpecificOutput.hookEventName). */
  rawEvent?: string;
  sessionId?: string;
  cwd?: string;
  prompt?: string;
  toolName?: string;
  toolInput?: unknown;
  toolResponse?: unknown;
  toolUseId?: string;
  transcriptPath?: string;
  agentId?: string;
  agentType?: string;
  /** SessionStart's source (startup, resume, clear, compact, new). */
  source?: string;
  /** SessionEnd's reason. */
  reason?: string;
  lastAssistantMessage?: string;
  /** This event ends the session (VS Code's Stop: it has no SessionEnd). */
  endsSession?: boolean;
}

/** What a handler has to say; the adapter turns it into the platform's stdout JSON. */
export interface HookReply {
  /** Text for the model (additionalContext); '' still prints the event's shape. */
  context?: string;
  /** The event the context answers, when the input did not name one. */
  event?: 'SessionStart' | 'SubagentStart' | 'PreToolUse';
  /** Print nothing at all (another hook process of the same conversation answers). */
  silent?: true;
}

export type Json = Record<string, unknown>;

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The first of several documented spellings of one field. */
export function first(o: Json, ...keys: string[]): unknown {
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
  return undefined;
}

export function firstStr(o: Json, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(o[k]);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Claude Code's event names (VS Code, Codex and Copilot CLI's compatible format use the same). */
export const PASCAL_EVENTS: Record<string, HookEvent> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  PostToolUseFailure: 'post-tool-failure',
  PreCompact: 'pre-compact',
  SubagentStart: 'subagent-start',
  SubagentStop: 'subagent-stop',
  Stop: 'stop',
  SessionEnd: 'session-end',
};

export function eventOf(name: string | undefined, table: Record<string, HookEvent> = PASCAL_EVENTS): HookEvent {
  return name !== undefined && Object.prototype.hasOwnProperty.call(table, name) ? table[name] : 'other';
}

/** The standard hookSpecificOutput reply (Claude Code, VS Code, Codex, Gemini CLI). */
export function hookSpecificReply(input: HookInput, reply: HookReply): Json {
  if (reply.context === undefined) return {};
  const hookEventName = input.rawEvent && input.event !== 'other' ? input.rawEvent : (reply.event ?? 'SessionStart');
  return { hookSpecificOutput: { hookEventName, additionalContext: reply.context } };
}
