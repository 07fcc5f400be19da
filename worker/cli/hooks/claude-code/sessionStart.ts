// SessionStart's output shape and start-up budget, shared by the context hook and the dispatcher
// (which prints the empty shape when the hook fails) without loading the context hook itself.
import type { Json } from '../io';

/** How long SessionStart waits for a worker it had to start (env CLAUDE_MEM_HOOK_START_MS). */
export const DEFAULT_START_MS = 5000;

export function sessionStartOutput(additionalContext: string): Json {
  return { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext } };
}
