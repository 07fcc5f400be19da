// Time budgets the dispatcher needs without loading a handler.

/** How long SessionStart waits for a worker it had to start (env CLAUDE_MEM_HOOK_START_MS). */
export const DEFAULT_START_MS = 5000;
