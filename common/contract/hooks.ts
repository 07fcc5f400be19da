// The hook handlers the CLI runs (`claude-mem hook <platform> <handler>`): the one list that the
// installers, the handler table and the usage text are checked against.

export const HOOK_NAMES = ['context', 'session-init', 'observation', 'file-context', 'summarize', 'session-end'] as const;
export type HookName = (typeof HOOK_NAMES)[number];
