// How the model host groups the texts of one message into graph runs. tfjs pads every row of a
// run to the run's longest text, so a run costs about rows x longest: texts are taken shortest
// first and a run is closed before that product passes a token budget (RUN_TOKENS, protocol.ts).

/**
 * The runs, as lists of indexes into `lengths` (token counts): shortest first; within a run,
 * rows x longest <= budget, except a text longer than the budget, which runs alone.
 */
export function planRuns(lengths: readonly number[], budget: number): number[][] {
  if (lengths.length === 0) return [];
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const runs: number[][] = [];
  let run: number[] = [];
  for (const i of order) {
    // Sorted ascending: the newcomer is the run's longest.
    if (run.length > 0 && (run.length + 1) * Math.max(1, lengths[i]) > budget) {
      runs.push(run);
      run = [];
    }
    run.push(i);
  }
  runs.push(run);
  return runs;
}

/** Token ids cut to at most maxTokens (0: no cut). */
export function capTokens(ids: number[], maxTokens: number): number[] {
  return maxTokens > 0 && ids.length > maxTokens ? ids.slice(0, maxTokens) : ids;
}

/** A message with graph runs left, as the scheduler sees it. */
export interface QueuedJob {
  background: boolean;
  /** Runs not started yet. */
  left: number;
}

/**
 * What the host does next: a query's run first; else a background (indexing) run, except within
 * holdMs of the last query answered, when it waits out the rest of that time (or until a message
 * comes). Someone searching sends the next query soon after the last answer (typing, paging, an
 * agent's follow-up); held back, the backlog leaves the model free for it instead of making it
 * wait for a run under way (up to RUN_TOKENS tokens, 40-60 ms of CPU). A backlog held since
 * `heldSince` for maxHoldMs runs once anyway, so searches that never pause cannot stop it.
 * Undefined: nothing to run.
 */
export function nextJob<T extends QueuedJob>(
  jobs: readonly T[],
  now: number,
  lastAnsweredAt: number,
  holdMs: number,
  heldSince?: number,
  maxHoldMs = Infinity,
): { job: T } | { waitMs: number } | undefined {
  const query = jobs.find((j) => !j.background && j.left > 0);
  if (query) return { job: query };
  const background = jobs.find((j) => j.left > 0);
  if (!background) return undefined;
  const wait = Math.min(lastAnsweredAt + holdMs - now, (heldSince ?? now) + maxHoldMs - now);
  return wait > 0 ? { waitMs: wait } : { job: background };
}
