// Named debounce timers of the panel: a key restarts its timer (typing, bursts of live events).
export class Timers {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  debounce(key: string, ms: number, fn: () => void): void {
    this.clear(key);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        fn();
      }, ms),
    );
  }

  clear(key: string): void {
    const t = this.timers.get(key);
    if (t !== undefined) clearTimeout(t);
    this.timers.delete(key);
  }
}
