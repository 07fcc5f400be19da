// The observation taxonomy and the platforms: the one place that lists observation types, their
// meaning, label and icons, the concepts, and the record kinds. The compression prompts, the
// parser, the injected context, chat, the tools and the panel all read it from here. Data only.

export const PLATFORMS = ['claude-code', 'vscode', 'manual', 'import', 'vscode-agent', 'copilot-cli', 'codex', 'gemini-cli'] as const;
export type Platform = string;
/** The platform of sessions that hold records pulled from the team hub (worker/team/local.ts); never pushed back. */
export const TEAM_PLATFORM = 'team';

/**
 * Each observation type: what it means (for the model), a label for people, the emoji of the
 * injected context and chat, and the codicon of the panel.
 */
export const OBSERVATION_TYPE_INFO = {
  bugfix: { meaning: 'something was broken and is now fixed', label: 'Bug fix', emoji: '🔴', codicon: 'bug' },
  feature: { meaning: 'new capability or behaviour was added', label: 'Feature', emoji: '🟣', codicon: 'sparkle' },
  refactor: { meaning: 'code was restructured without changing behaviour', label: 'Refactor', emoji: '🔄', codicon: 'wrench' },
  change: { meaning: 'a generic modification (configuration, docs, dependencies, chores)', label: 'Change', emoji: '✅', codicon: 'edit' },
  discovery: { meaning: 'learning how existing code, a tool or a system works', label: 'Finding', emoji: '🔵', codicon: 'search' },
  decision: { meaning: 'a choice between options was made, with its reasons', label: 'Decision', emoji: '⚖️', codicon: 'law' },
  security_alert: { meaning: 'a security problem was found (secret exposed, vulnerable code, unsafe permission)', label: 'Security problem', emoji: '🚨', codicon: 'shield' },
  security_note: { meaning: 'a security-relevant fact worth remembering (auth flow, trust boundary, sanitising)', label: 'Security note', emoji: '🔐', codicon: 'lock' },
} as const;

export type ObservationType = keyof typeof OBSERVATION_TYPE_INFO;
export const OBSERVATION_TYPES = ['bugfix', 'feature', 'refactor', 'change', 'discovery', 'decision', 'security_alert', 'security_note'] as const satisfies readonly ObservationType[];

/** Used when the model names no type. */
export const DEFAULT_OBSERVATION_TYPE: ObservationType = 'discovery';

export const CONCEPTS = {
  'how-it-works': 'how a piece of code or a system operates',
  'why-it-exists': 'the purpose or rationale behind code or a design',
  'what-changed': 'a concrete modification that was made',
  'problem-solution': 'a problem and the way it was solved',
  gotcha: 'a trap, edge case or surprising behaviour',
  pattern: 'a reusable approach or convention in this codebase',
  'trade-off': 'a cost weighed against a benefit',
} as const;
export type Concept = keyof typeof CONCEPTS;

/** Records that are not observations, as rows and feed entries show them. */
export const RECORD_KIND_INFO = {
  summary: { label: 'session summary', emoji: '📋', codicon: 'checklist' },
  prompt: { label: 'prompt', emoji: '💬', codicon: 'comment' },
  session: { label: 'session', emoji: '🗂️', codicon: 'history' },
} as const;

const info = (type: string): { emoji: string; codicon: string } | undefined =>
  (OBSERVATION_TYPE_INFO as Record<string, { emoji: string; codicon: string }>)[type] ?? (RECORD_KIND_INFO as Record<string, { emoji: string; codicon: string }>)[type];

/** The emoji of an observation type or record kind ('•' for anything else). */
export function typeEmoji(type: string): string {
  return info(type)?.emoji ?? '•';
}

/** The codicon of an observation type or record kind ('circle-filled' for anything else). */
export function typeCodicon(type: string): string {
  return info(type)?.codicon ?? 'circle-filled';
}

/** "Legend: 🔴 bugfix · … · 📋 session summary": the types as the injected context shows them. */
export function typeLegend(): string {
  const types = OBSERVATION_TYPES.map((t) => `${OBSERVATION_TYPE_INFO[t].emoji} ${t.replace(/_/g, ' ')}`);
  return `Legend: ${[...types, `${RECORD_KIND_INFO.summary.emoji} ${RECORD_KIND_INFO.summary.label}`].join(' · ')}`;
}
