// How fast the background indexer is embedding, for GET /api/search/status: records stored per
// second over the last RATE_WINDOW_MS of indexing, and from it how long the backlog still takes.
// Time spent idle (nothing to embed) is not counted, so a pause does not make the rate look slow.
import type { SearchStatus } from '../../common/contract';

/** The rate is taken over about this much recent indexing. */
export const RATE_WINDOW_MS = 60_000;
/** Fewer records than this in the window give no rate (the first batch includes loading the model). */
const MIN_SAMPLES = 2;

/** pending, embedded since start, records a second (null until there is enough to tell), pending / rate in ms. */
type BacklogProgress = NonNullable<SearchStatus['backlog']>;

export class BacklogRate {
  private samples: { at: number; n: number }[] = [];
  private idleSince: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** A batch of n records was stored. */
  stored(n: number): void {
    const at = this.now();
    let counted = n;
    if (this.idleSince !== undefined) {
      // Shift the window past the idle gap: only time spent indexing counts. The first batch after
      // a pause only restarts the clock (it also paid for waking the model, and its start is unknown).
      const gap = at - this.idleSince;
      for (const s of this.samples) s.at += gap;
      this.idleSince = undefined;
      counted = 0;
    }
    this.samples.push({ at, n: counted });
    while (this.samples.length > 2 && at - this.samples[1].at > RATE_WINDOW_MS) this.samples.shift();
  }

  /** The indexer found nothing to do (or stopped): the clock stops until the next batch. */
  paused(): void {
    if (this.idleSince === undefined && this.samples.length > 0) this.idleSince = this.now();
  }

  /** Records per second, or null when fewer than MIN_SAMPLES batches were seen. */
  rate(): number | null {
    if (this.samples.length < MIN_SAMPLES) return null;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const end = this.idleSince ?? last.at;
    const ms = end - first.at;
    if (ms <= 0) return null;
    // The first sample marks the window's start: its records were embedded before it.
    const n = this.samples.slice(1).reduce((sum, s) => sum + s.n, 0);
    return (n * 1000) / ms;
  }

  progress(pending: number, embedded: number): BacklogProgress {
    const rate = this.rate();
    return {
      pending,
      embedded,
      ratePerSecond: rate === null ? null : Math.round(rate * 10) / 10,
      etaMs: pending === 0 ? 0 : rate ? Math.round((pending / rate) * 1000) : null,
    };
  }
}
