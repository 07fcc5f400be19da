// The paths through the hook code a run took (a file checked, a history shown, the spool or TCP),
// for the loader's code cache (cli/loader.ts): V8 caches only the functions a run compiled, so a
// cache made on one path (a read outside any repository) left another (a changed file's history)
// to be compiled on every run. A run that takes a path its cache was not made on makes it again.
// Shared with the loader through a global (the loader is another bundle); without the loader
// (tests running the sources) nothing happens.
export const CODE_CACHE_KEY = '__claudeMemCodeCache';

export interface CodeCacheHandle {
  /** The paths the cache in use was made on (letters). */
  paths: string;
  /** Makes the cache again at exit, with this path too. */
  remake(tag: string): void;
}

/** Marks a path (one lowercase letter) as taken by this run: a string search when the cache has it. */
export function tookPath(tag: string): void {
  const c = (globalThis as Record<string, unknown>)[CODE_CACHE_KEY] as CodeCacheHandle | undefined;
  if (c && !c.paths.includes(tag)) c.remake(tag);
}
