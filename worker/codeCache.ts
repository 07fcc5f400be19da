// What the worker's loader (worker/loader.ts, dist/worker.js) and the worker (dist/worker-main.js)
// say to each other: two bundles, so through the process, not through a module.

/** What the loader did with the code cache at this start (the worker logs it with its start). */
export type CodeCacheState = 'used' | 'made' | 'stale' | 'damaged' | 'rejected' | 'off';

/** The global the loader sets to the CodeCacheState. */
export const CODE_CACHE_STATE = Symbol.for('claude-mem.worker.codeCache');

/** Emitted on `process` once the worker listens: the loader then writes a new cache if it needs one. */
export const READY_EVENT = 'claude-mem-worker-ready';

/** The state the loader left, or 'off' when the worker runs without it (under tsx). */
export function codeCacheState(): CodeCacheState {
  return ((globalThis as Record<symbol, unknown>)[CODE_CACHE_STATE] as CodeCacheState | undefined) ?? 'off';
}
