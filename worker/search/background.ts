// Work done on the worker's event loop one small step at a time: a generator stepped on timers, so
// a request waits at most one step (a few milliseconds), and with `wait` (a lull in requests,
// lull.ts) not even that while requests are in flight. The keyword warm-up when it runs here
// (listWarmer.ts) and the start-up fill of the rows' lengths, facts and identifiers (service.ts).

/** Between two steps. */
const PAUSE_MS = 2;

export interface Stepping {
  /** Ends it between two steps (`done` is not called). */
  stop(): void;
  /** Settles at the end, after a step threw, or at stop(). */
  ended: Promise<void>;
}

/**
 * Steps `steps` to its end, the first step after delayMs (default: on the next timer). keepAlive: the
 * timers keep the process alive (someone awaits the end); done: called once at the end, with the
 * error if a step threw; wait: awaited before each step.
 */
export function stepInBackground(steps: Iterator<unknown>, opts: { delayMs?: number; keepAlive?: boolean; done?: (error?: Error) => void; wait?: () => Promise<void> } = {}): Stepping {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  const tick = async () => {
    if (opts.wait) await opts.wait();
    if (stopped) return;
    let error: Error | undefined;
    try {
      if (!steps.next().done) return schedule(PAUSE_MS);
    } catch (e) {
      error = e as Error;
    }
    stopped = true;
    settle();
    opts.done?.(error);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void tick(), ms);
    if (!opts.keepAlive) timer.unref();
  };
  schedule(opts.delayMs ?? 0);
  return {
    ended,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      settle();
    },
  };
}
