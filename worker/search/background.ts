// Work done after start on the worker's event loop, one small step at a time: a generator stepped
// on timers, so a request waits at most one step (a few milliseconds). The keyword warm-up when it
// runs here (listWarmer.ts) and the start-up fill of the rows' lengths, prior facts and identifiers
// (service.ts).

/** Between two steps. */
const PAUSE_MS = 2;

export interface StepOptions {
  /** Before the first step. */
  delayMs?: number;
  /** Keeps the process alive until the end (someone awaits it); otherwise the timers are unref'd. */
  keepAlive?: boolean;
  /** Called once at the end, with the error when a step threw; never after stop(). */
  done?: (error?: Error) => void;
}

export interface Stepping {
  /** Ends it between two steps (`done` is not called). */
  stop(): void;
  /** Settles at the end, after a step threw, or at stop(). */
  ended: Promise<void>;
}

/** Steps `steps` to its end on timers. */
export function stepInBackground(steps: Iterator<unknown>, opts: StepOptions = {}): Stepping {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  const end = (error?: Error) => {
    stopped = true;
    settle();
    opts.done?.(error);
  };
  const tick = () => {
    timer = undefined;
    if (stopped) return;
    let r: IteratorResult<unknown>;
    try {
      r = steps.next();
    } catch (e) {
      end(e as Error);
      return;
    }
    if (r.done) end();
    else schedule(PAUSE_MS);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(tick, ms);
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
