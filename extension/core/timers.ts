// Timer functions as a value, so the idle timer and debouncers can run on a test clock.
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Fires `fn` once `ms` have passed without another poke. */
export class Debouncer<T> {
  private handle: unknown;
  private pending: T | undefined;

  constructor(
    private readonly ms: () => number,
    private readonly fn: (value: T) => void,
    private readonly timers: Timers = realTimers,
  ) {}

  poke(value: T): void {
    this.cancel();
    this.pending = value;
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      const v = this.pending as T;
      this.pending = undefined;
      this.fn(v);
    }, this.ms());
  }

  cancel(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    this.pending = undefined;
  }
}
