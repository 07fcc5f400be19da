// Background work on the worker's event loop waits for a lull in requests: LULL_MS since a request
// last started or ended. A burst of requests (a search box typed into, an agent's hook burst, a
// client's searches one after another) is then not served behind a full-text index merge step,
// each of which holds the loop for a few milliseconds and dirties chunks that a checkpoint then
// packs. It waits at most MAX_WAIT_MS a step, so steady traffic slows the work but never stops
// it. Only a request's start and end count, so a long-lived one (the event stream, the model
// bridge's long poll) is no burst.

/** Quiet this long before background work goes. */
const LULL_MS = 10;
/** A step waits at most this long. */
const MAX_WAIT_MS = 250;

export class Lull {
  private last = -Infinity;

  constructor(
    private readonly lullMs = LULL_MS,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {}

  /** A request started or ended. */
  request(): void {
    this.last = performance.now();
  }

  /** Resolves once no request started or ended for lullMs, or after maxWaitMs. */
  async wait(): Promise<void> {
    const start = performance.now();
    for (;;) {
      const now = performance.now();
      const left = Math.min(this.last + this.lullMs, start + this.maxWaitMs) - now;
      if (left <= 0) return;
      await new Promise((r) => setTimeout(r, left));
    }
  }
}
