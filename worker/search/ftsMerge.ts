// Keeps each full-text index in few segments. FTS4 adds a segment per write transaction and merges
// a level only once it holds 16 of them, so an imported or long-used store's index is dozens of
// segments (40 for bench/scale's 10k history), and every MATCH statement walks the b-tree of each:
// a statement that finds nothing cost 1.0-1.5 ms there against 0.03 ms on the same index merged
// (a keyword search runs several). So once writes pause, the index is merged a small step at a
// time (FTS4's incremental `merge=X,Y`, a journaled write like any other, replayed the same way),
// until no level holds two segments: at most one segment per level is left. A step writes at most
// STEP_PAGES pages (a few milliseconds), with a pause between steps, waits for a lull in requests
// (lull.ts) so a burst of them goes first, and waits while the page cache holds more dirty chunks
// than a delta checkpoint is taken at.
// The rows, their words and every score stay the same; only how the index is laid out changes.
import type { Logger } from '../../common/node/log';
import type { Lull } from '../lull';
import type { Store } from '../store/store';
import { KINDS } from './records';

/** Index pages a merge step writes at most. */
const STEP_PAGES = 16;
/** Merged once writes have paused this long... */
const QUIET_MS = 1000;
/** ...or this long after the first write, however busy. */
const MAX_WAIT_MS = 10_000;
/** Between steps. */
const PAUSE_MS = 5;
/**
 * A run of at least this many steps (after an import) ends with a checkpoint, so the next start
 * does not replay them (the store's idle checkpoint would take them only after a minute).
 */
const CHECKPOINT_STEPS = 16;

/** Whether a merge step can do something: a level holding two segments, or a merge under way (a negative end block). */
export function mergeDue(store: Pick<Store, 'all'>, fts: string): boolean {
  const rows = store.all<{ level: number; n: number; open: number }>(
    `SELECT level, count(*) AS n, sum(CAST(end_block AS TEXT) LIKE '-%') AS open FROM ${fts}_segdir GROUP BY level`,
  );
  return rows.some((r) => r.n >= 2 || r.open > 0);
}

export class FtsMerger {
  private timer: NodeJS.Timeout | undefined;
  private firstKick = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  /** Steps run so far (tests). */
  steps = 0;

  constructor(
    private readonly store: Store,
    private readonly log?: Logger,
    /** lull: each step waits for a lull in requests (lull.ts). */
    private readonly opts: { quietMs?: number; pauseMs?: number; lull?: Lull } = {},
  ) {}

  /** Something was written: merge once writes pause. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const now = Date.now();
    if (!this.timer) this.firstKick = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.opts.quietMs ?? QUIET_MS, this.firstKick + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.run().finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
    }, wait);
    this.timer.unref();
  }

  /** Settles when no merge is waiting or under way (tests). */
  async idle(): Promise<void> {
    while (this.timer || this.running) await (this.running ?? new Promise((r) => setTimeout(r, 5)));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    const pause = this.opts.pauseMs ?? PAUSE_MS;
    const first = this.steps;
    try {
      for (const k of Object.values(KINDS)) {
        while (!this.stopped && mergeDue(this.store, k.fts)) {
          await this.opts.lull?.wait();
          if (this.stopped) break;
          const worked = await this.store.write((tx) => {
            const before = Number(tx.get<{ n: number }>('SELECT total_changes() AS n')?.n);
            tx.run(`INSERT INTO ${k.fts}(${k.fts}) VALUES ('merge=${STEP_PAGES},2')`);
            // FTS4: a step that merged nothing changes fewer than two rows.
            return Number(tx.get<{ n: number }>('SELECT total_changes() AS n')?.n) - before >= 2;
          });
          this.steps++;
          if (!worked) break;
          await new Promise((r) => setTimeout(r, pause));
          // A step rewrites up to STEP_PAGES pages from a record of a few bytes: the chunks it dirties
          // are written out before they pile up in memory (after an import, ~120 MB of them at 100k).
          await this.store.dirtyRoom();
        }
      }
      if (!this.stopped && this.steps - first >= CHECKPOINT_STEPS) await this.store.snapshot();
    } catch (e) {
      // A store refusing writes or closing: the index stays as it is, searches read it all the same.
      if (!this.stopped) this.log?.warn('full-text index merge stopped', { error: (e as Error).message });
    }
  }
}
