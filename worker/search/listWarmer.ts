// Builds the impact lists of a store's most common words in the background after start (and the
// rows' projects and times, rowFacts.ts, which filtered searches need), so the
// first search for a common word does not pay for ranking all its matches (about 2 µs a row: a
// word in two thirds of 100k rows costs 130 ms, which is what made keyword p95 at 100k). Low
// priority on the event loop: one small step at a time (a page of the index's vocabulary, or the
// matches of one word in a window of ids holding about 2,500 of them: termLists.ts), then a
// timer, so a request waits at most one step (5-20 ms at 100k). At 100k observations the 128 most
// common words take about 12 s of CPU over the first 15-20 s after start; a small store has no
// word common enough and is done after one look at its vocabulary.
import type { Logger } from '../../common/node/log';
import type { Store } from '../store/store';
import { KINDS, type KindTable } from './records';
import { buildFacts } from './rowFacts';
import { buildInSteps, COMMON_SHARE, noteVocabulary } from './termLists';

type Db = Pick<Store, 'all' | 'get'>;

/** Vocabulary terms read per step. */
const VOCAB_PAGE = 50;
const PAUSE_MS = 2;
/** Words in fewer rows are ranked on demand in a few milliseconds. */
const WARM_MIN_ROWS = 2048;

export class ListWarmer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Lists made so far (status and tests). */
  built = 0;
  done = false;

  constructor(
    private readonly store: Db,
    private readonly terms: number,
    private readonly log?: Logger,
  ) {}

  start(delayMs: number): void {
    if (this.terms <= 0) {
      this.done = true;
      return;
    }
    const steps = this.steps();
    const tick = () => {
      this.timer = undefined;
      if (this.stopped) return;
      let r: IteratorResult<void>;
      try {
        r = steps.next();
      } catch (e) {
        // A store being reloaded or closed: the lists are a cache; searches build what they need.
        this.log?.warn('keyword list warm-up stopped', { error: (e as Error).message });
        this.done = true;
        return;
      }
      if (r.done) {
        this.done = true;
        return;
      }
      this.timer = setTimeout(tick, PAUSE_MS).unref();
    };
    this.timer = setTimeout(tick, delayMs).unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One yield per step. */
  *steps(): Generator<void> {
    const t0 = performance.now();
    for (const k of [KINDS.observation, KINDS.summary, KINDS.prompt]) {
      // The rows' projects and times first: every filtered search uses them (rowFacts.ts).
      yield* buildFacts(this.store, k);
      const rows = Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM ${k.table}`)?.n ?? 0);
      const common: { term: string; df: number }[] = [];
      yield* this.vocabulary(k, rows, common);
      common.sort((a, b) => b.df - a.df);
      // Words above COMMON_SHARE last: a query with a rarer word leaves them out, so most searches
      // need only the others, which cost less to rank (the commonest cost most of the warm-up).
      const chosen = common.slice(0, this.terms);
      const rare = chosen.filter((x) => x.df <= COMMON_SHARE * rows);
      for (const { term, df } of [...rare, ...chosen.filter((x) => !rare.includes(x))]) yield* this.build(k, term, df, rows);
    }
    this.log?.info('keyword lists warmed', { lists: this.built, ms: Math.round(performance.now() - t0) });
  }

  /**
   * Terms in more than WARM_MIN_ROWS rows, a page at a time (fts4aux walks the index's terms in
   * order); their counts also spare searches counting the matches of a common word (termLists.ts).
   */
  private *vocabulary(k: KindTable, rows: number, out: { term: string; df: number }[]): Generator<void> {
    const aux = `cm_vocab_${k.fts}`;
    this.store.all(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${aux} USING fts4aux(main, ${k.fts})`);
    let after = '';
    for (;;) {
      const page = this.store.all<{ term: string; df: number }>(`SELECT term, documents AS df FROM temp.${aux} WHERE term > ? AND col = '*' LIMIT ?`, [after, VOCAB_PAGE]);
      if (page.length === 0) return;
      // Only plain words (a prefix or a phrase is never a vocabulary term).
      for (const r of page) {
        if (r.df <= WARM_MIN_ROWS || !/^[a-z0-9]+$/.test(r.term)) continue;
        out.push(r);
        noteVocabulary(this.store, k, r.term, r.df, rows, Date.now());
      }
      after = page[page.length - 1].term;
      yield;
    }
  }

  /** The term's list, ranked window by window of ids; handed to the cache once complete. */
  private *build(k: KindTable, term: string, df: number, rows: number): Generator<void> {
    if (yield* buildInSteps(this.store, k, `"${term}"`, df, rows, undefined, true)) this.built++;
  }
}
