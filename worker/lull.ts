// Background work on the worker's event loop waits for requests. A full-text index merge step,
// which holds the loop for a few milliseconds and dirties chunks that a checkpoint then packs, waits
// for a lull: none in flight, and LULL_MS since one last started or ended, so a burst of requests
// (a search box typed into, an agent's hook burst, a client's searches one after another) goes
// first. A step of the start-up fill, which reads a page of rows, waits only while one is in flight
// (a hybrid search waiting for its query embedding): the searches after it go faster once it is
// done, so it goes on between them. Either waits at most MAX_WAIT_MS a step, so steady traffic
// slows the work but never stops it. A long-lived request (the model bridge's long poll) is not
// told (server/app.ts), nor is the event stream, which is answered at once and streams after.

/** Quiet this long before background work goes. */
const LULL_MS = 10;
/** A step waits at most this long. */
const MAX_WAIT_MS = 250;

export class Lull {
  private last = -Infinity;
  private inFlight = 0;
  /** Waits under way, woken when a request ends. */
  private readonly sleepers = new Set<() => void>();

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
      for (const wake of this.sleepers) wake();
    };
  }

  /** Resolves once no request is in flight and none started or ended for lullMs, or after maxWaitMs. */
  wait(): Promise<void> {
    return this.until((now) => (this.inFlight > 0 ? Infinity : this.last + this.lullMs - now));
  }

  /** Resolves once no request is in flight, however lately one ended, or after maxWaitMs. */
  idle(): Promise<void> {
    return this.until(() => (this.inFlight > 0 ? Infinity : 0));
  }

  /** Sleeps while `left` says how long to wait yet (<= 0: done; Infinity: until a request ends), at most maxWaitMs in all. */
  private async until(left: (now: number) => number): Promise<void> {
    const start = performance.now();
    for (;;) {
      const now = performance.now();
      const ms = Math.min(left(now), start + this.maxWaitMs - now);
      if (ms <= 0) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.sleepers.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, ms);
        this.sleepers.add(wake);
      });
    }
  }
}
