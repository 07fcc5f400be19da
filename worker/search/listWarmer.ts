// Builds the impact lists of a store's most common words in the background after start (with the
// rows' lengths, docLengths.ts, when the worker has not read them yet), so the first search for a
// common word does not rank all its matches (about 2 µs a row: 130 ms for a word in two thirds of
// 100k rows). In a child process (warmProcess.ts) when the bundle has one and a kind has a common
// word; else here, one small step at a time (a page of the vocabulary, or about 2,500 matches of
// one word: 5-20 ms at 100k) with a timer between (background.ts), so a request waits at most one
// step. docs/search.md, "The warm-up".
import { RETURN_FREED_MEMORY } from '../../common/node/mallocEnv';
import { type Child, startChild } from '../childProcess';
import { stepInBackground, type Stepping } from './background';
import type { Logger } from '../../common/node/log';
import type { Store } from '../store/store';
import { KINDS, type KindTable } from './records';
import { FTS_WEIGHTS } from './bm25';
import { buildDocLengths, docLengths } from './docLengths';
import { buildInSteps, COMMON_SHARE, importLists, noteVocabulary, noteVocabularyRead, PLAIN_TERM, VOCABULARY_MIN_DF } from './termLists';
import type { WarmProcessData, WarmProcessMessage } from './warmProcess';

type Db = Pick<Store, 'all' | 'get'>;

/** Vocabulary terms read per step. */
const VOCAB_PAGE = 50;
/** Words in fewer rows are ranked on demand in a few milliseconds. */
const WARM_MIN_ROWS = 2048;

/** Where the warm-up can run in a child process (warmProcess.ts) instead of a step at a time here. */
export interface WarmProcess {
  /** The bundled script (list-warmer.js). */
  script: string;
  /** The store's directory, read by the process from its files. */
  dir: string;
  /** The process's page cache (its reads are mostly sequential). */
  pageCacheBytes: number;
}

export interface WarmOptions {
  process?: WarmProcess;
  /** Matches ranked per step (termLists.STEP_ROWS; Infinity in the child process). */
  stepRows?: number;
  /** Called once when the warm-up ends (done, failed or off), unless stopped first. */
  onDone?: () => void;
}

export class ListWarmer {
  private timer: NodeJS.Timeout | undefined;
  private stepping: Stepping | undefined;
  private child: Child<never> | undefined;
  private stopped = false;
  /** Lists made so far (status and tests). */
  built = 0;
  done = false;
  /** Where the work ran, once done. */
  via: 'process' | 'here' | undefined;

  constructor(
    private readonly store: Db,
    private readonly terms: number,
    private readonly log?: Logger,
    private readonly opts: WarmOptions = {},
  ) {}

  start(delayMs: number): void {
    if (this.terms <= 0) {
      this.finish();
      return;
    }
    const child = this.opts.process;
    this.timer = setTimeout(() => (child && this.hasCommonWords() ? this.inProcess(child) : this.stepHere()), delayMs).unref();
  }

  /**
   * Whether a word can be in more than WARM_MIN_ROWS rows of one kind. When none can, the work is
   * the vocabulary of a small store, a few steps here: a child process would cost
   * about 0.9 CPU s (a Node start, the bundle, the WASM, the store read again) on every start.
   */
  private hasCommonWords(): boolean {
    try {
      return [KINDS.observation, KINDS.summary, KINDS.prompt].some((k) => Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM ${k.table}`)?.n ?? 0) > WARM_MIN_ROWS);
    } catch {
      return true; // the child process reads the store's files itself
    }
  }

  /** Steps on this event loop, a timer between them (background.ts). */
  private stepHere(): void {
    if (this.stopped) return;
    this.stepping = stepInBackground(this.steps(), {
      done: (e) => {
        // A store being reloaded or closed: the lists are a cache; searches build what they need.
        if (e) this.log?.warn('keyword list warm-up stopped', { error: e.message });
        else this.via = 'here';
        this.finish();
      },
    });
  }

  /** The same work in a child process; here, only taking over what it made. If it fails, steps here. */
  private inProcess(p: WarmProcess): void {
    this.timer = undefined;
    if (this.stopped) return;
    const data: WarmProcessData = { dir: p.dir, terms: this.terms, pageCacheBytes: p.pageCacheBytes };
    let failure: string | undefined;
    try {
      this.child = startChild<WarmProcessMessage, never>(p.script, data, {
        message: (m) => {
          if (m.type === 'lists') this.built += importLists(this.store, m.lists, []);
          else if (m.type === 'done') {
            importLists(this.store, [], m.vocabulary);
            this.via = 'process';
            this.log?.info('keyword lists warmed', { lists: this.built, ms: Math.round(m.ms), process: true });
            this.finish();
          } else failure = m.error;
        },
        died: (why) => {
          this.child = undefined;
          if (this.done || this.stopped) return;
          this.log?.warn('keyword list warm-up process failed; warming here instead', { error: failure ?? why });
          this.stepHere();
        },
      }, RETURN_FREED_MEMORY);
    } catch (e) {
      this.log?.warn('keyword list warm-up process did not start; warming here instead', { error: (e as Error).message });
      this.stepHere();
      return;
    }
    this.child.unref();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    if (!this.stopped) this.opts.onDone?.();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stepping?.stop();
    void this.child?.terminate();
    this.child = undefined;
  }

  /** One yield per step. */
  *steps(): Generator<void> {
    const t0 = performance.now();
    for (const k of [KINDS.observation, KINDS.summary, KINDS.prompt]) {
      // Each row's lengths first, unless the worker's start-up fill read them already (service.ts):
      // ranking a word's matches costs about 0.7x with them (docLengths.ts).
      if (!docLengths(this.store, k)) yield* buildDocLengths(this.store, k, FTS_WEIGHTS[k.weights].length);
      const rows = Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM ${k.table}`)?.n ?? 0);
      const common: { term: string; df: number }[] = [];
      yield* this.vocabulary(k, rows, common);
      common.sort((a, b) => b.df - a.df);
      // Words above COMMON_SHARE last: a query with a rarer word leaves them out, so most searches
      // need only the others, which cost less to rank (the commonest cost most of the warm-up).
      const chosen = common.slice(0, this.terms);
      const rare = chosen.filter((x) => x.df <= COMMON_SHARE * rows);
      for (const { term, df } of [...rare, ...chosen.filter((x) => !rare.includes(x))]) {
        // Ranked window by window of ids; handed to the cache once complete.
        if (yield* buildInSteps(this.store, k, `"${term}"`, df, rows, { ownStem: true, stepRows: this.opts.stepRows })) this.built++;
      }
    }
    this.log?.info('keyword lists warmed', { lists: this.built, ms: Math.round(performance.now() - t0) });
  }

  /**
   * Terms in more than WARM_MIN_ROWS rows (to warm), a page at a time (fts4aux walks the index's
   * terms in order). Every term in more than VOCABULARY_MIN_DF rows is noted with its count: that
   * spares searches counting a word's matches, and a word not noted is known to be rare
   * (termLists.rareList).
   */
  private *vocabulary(k: KindTable, rows: number, out: { term: string; df: number }[]): Generator<void> {
    const aux = `cm_vocab_${k.fts}`;
    this.store.all(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${aux} USING fts4aux(main, ${k.fts})`);
    let after = '';
    for (;;) {
      const page = this.store.all<{ term: string; df: number }>(`SELECT term, documents AS df FROM temp.${aux} WHERE term > ? AND col = '*' LIMIT ?`, [after, VOCAB_PAGE]);
      if (page.length === 0) {
        noteVocabularyRead(this.store, k, rows, Date.now());
        return;
      }
      // Only plain words (a prefix or a phrase is never a vocabulary term).
      for (const r of page) {
        if (r.df <= VOCABULARY_MIN_DF || !PLAIN_TERM.test(r.term)) continue;
        noteVocabulary(this.store, k, r.term, r.df, rows, Date.now());
        if (r.df > WARM_MIN_ROWS) out.push(r);
      }
      after = page[page.length - 1].term;
      yield;
    }
  }
}
