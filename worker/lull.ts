// Background work on the worker's event loop waits for a lull in requests: none in flight, and
// LULL_MS since one last started or ended. A burst of requests (a search box typed into, an agent's
// hook burst, a client's searches one after another) and each request while it runs (a hybrid
// search waiting for its query embedding) are then not served behind background steps: a full-text
// index merge step, which holds the loop for a few milliseconds and dirties chunks that a
// checkpoint then packs, or a step of the start-up fill, which reads a page of rows. It waits at
// most MAX_WAIT_MS a step, so steady traffic slows the work but never stops it. A long-lived
// request (the model bridge's long poll) is not told (server/app.ts), nor is the event stream, which
// is answered at once and streams after.

/** Quiet this long before background work goes. */
const LULL_MS = 10;
/** A step waits at most this long. */
const MAX_WAIT_MS = 250;

export class Lull {
  private last = -Infinity;
  private inFlight = 0;

  constructor(
    private readonly lullMs = LULL_MS,
    private readonly maxWaitMs = MAX_WAIT_MS,
  ) {}

  /** A request started; call the function returned when it ends. */
  request(): () => void {
    this.last = performance.now();
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.last = performance.now();
    };
  }

  /** Resolves once no request is in flight and none started or ended for lullMs, or after maxWaitMs. */
  async wait(): Promise<void> {
    const start = performance.now();
    for (;;) {
      const now = performance.now();
      const cap = start + this.maxWaitMs - now;
      if (cap <= 0) return;
      const left = this.inFlight > 0 ? Math.min(this.lullMs, cap) : Math.min(this.last + this.lullMs - now, cap);
      if (left <= 0) return;
      await new Promise((r) => setTimeout(r, left));
    }
  }
}
