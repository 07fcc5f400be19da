// The background embedding indexer: finds observations and summaries without a vector of the
// current model (an anti-join on `vectors`, newest first, in id windows), embeds them in batches,
// appends the vectors to their files (synced), records where they are through store.write
// (journaled), then hands them to the scan. New records are only a kick: nothing on the ingest path
// waits for it. It is the only writer of the vector files (appends, and vectors/upkeep.ts between
// passes), so an append never races a sweep. It works in idle time (startDelayMs after start,
// quietMs after the last write) unless woken (a vector query, drain, reindex); a delete's wipe
// (erase) needs no model and does not wait. Docs: docs/search.md, "Indexing".
import type { Logger } from '../../common/node/log';
import type { Store } from '../store/store';
import { observationEmbedText, summaryEmbedText, vectorModelId, type ObservationText, type SummaryText } from './embedText';
import type { Embedder } from './embed/types';
import type { SemanticIndex, StoredVector } from './semantic';
import { encodeVector } from './vectors/blob';
import { BacklogRate } from './backlogRate';
import { KINDS } from './records';
import { compactAndSweep } from './vectors/upkeep';

export type IndexerState = 'idle' | 'indexing' | 'unavailable' | 'stopped';

export interface IndexerOptions {
  store: Store;
  embedder: Embedder;
  semantic: SemanticIndex;
  batchSize: number;
  log: Logger;
  /** No batch is embedded before this long after start() (unless woken). Default 0. */
  startDelayMs?: number;
  /** No batch is embedded before this long after the last kick, a write (unless woken). Default 0. */
  quietMs?: number;
}

interface Candidate {
  kind: 'observation' | 'summary';
  id: number;
  project: string;
  epoch: number;
  text: string;
}

/** The vector files are tidied at most this often (each time reads a group-by over `vectors`). */
const TIDY_MS = 10 * 60_000;
/** Wait before retrying after the embedder failed, doubling to 10 min. */
const RETRY_MS = 30_000;
/** Ids per window of the anti-join scan. */
const WINDOW = 2_000;
/** The columns each kind's embedded text is made of (embedText.ts). */
const TEXT_COLUMNS = { observation: 'c.type, c.title, c.subtitle, c.narrative, c.facts', summary: 'c.request, c.investigated, c.learned, c.completed, c.next_steps, c.notes' };

export class EmbeddingIndexer {
  state: IndexerState = 'idle';
  lastError: string | undefined;
  embedded = 0;
  /** How fast batches are stored, for the backlog's estimate in the status. */
  readonly rate = new BacklogRate();
  /** Found all embedded up to here: later passes look only above it, so a quiet worker scans nothing. */
  private readonly checkedUpTo = { observation: 0, summary: 0 };
  /** This pass's checked ids, (below, top]: none there lacks a vector, or its batch is under way (a pass reads each window about once). */
  private checked: Record<'observation' | 'summary', { below: number; top: number } | undefined> = { observation: undefined, summary: undefined };
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** When the vector files were last tidied (0: not yet since start or the last reindex). */
  private tidiedAt = 0;
  /** Projects that lost records: their dead entries are wiped at the next tidy. */
  private readonly eraseDue = new Set<string>();
  /** The gate (idle time): no batch before notBefore, nor before quietMs after lastWriteAt, unless urgent. */
  private notBefore = 0;
  private lastWriteAt = -Infinity;
  private urgent = false;
  /** Counts wake() calls: a pass that found nothing clears `urgent` only if none came during its scan. */
  private wakes = 0;
  private gateTimer: NodeJS.Timeout | undefined;
  private openGate: (() => void) | undefined;
  /** A delete asked for its vectors to be wiped: done before the gate, which is for the model's work. */
  private eraseNow = false;
  /**
   * pendingCount's last count, kept exact by what the indexer sees (its own batches taken off;
   * a write, a delete or a rescan drops it): counting scans all of `vectors` (about 100-200 ms at
   * 100k records, on the worker's thread) and a hybrid query's backlog notice asks for it.
   */
  private pendingKnown: number | undefined;

  constructor(private readonly o: IndexerOptions) {}

  /** The id stored in vectors.model: the embedder and the text recipe. */
  get model(): string {
    return vectorModelId(this.o.embedder.name);
  }

  /** The worker listens: the first pass (every record) once startDelayMs has passed. */
  start(): void {
    this.notBefore = Date.now() + (this.o.startDelayMs ?? 0);
    this.pass();
  }

  /** Something was written and may need a vector: a pass once writes pause for quietMs. */
  kick(): void {
    this.lastWriteAt = Date.now();
    this.pendingKnown = undefined;
    this.pass();
  }

  /** Vectors are wanted now (a vector query, drain, reindex): embed without waiting for idle time until the backlog is done. */
  wake(): void {
    if (this.stopped) return;
    this.urgent = true;
    this.wakes++;
    this.release();
    this.pass();
  }

  /** Runs a pass now or right after the current one (which waits at the gate first). */
  private pass(): void {
    if (this.stopped || this.retryTimer) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // A pass that fails anywhere (a refused write on a full disk, an index update) backs off and
    // retries like a failed embedding: a rejected background promise would take the worker down.
    this.running = this.loop().catch((e: Error) => {
      if (!this.stopped) this.fail(e);
    }).finally(() => {
      this.running = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.pass();
      }
    });
  }

  /** Forget what was checked: the next pass looks at every record again (and tidies the vector files). */
  rescan(): void {
    this.pendingKnown = undefined;
    this.checked = { observation: undefined, summary: undefined };
    this.checkedUpTo.observation = 0;
    this.checkedUpTo.summary = 0;
    this.tidiedAt = 0;
    this.wake();
  }

  /** Resolves when no record is waiting for a vector (or the embedder is unavailable). For tests and reindex. */
  async drain(): Promise<void> {
    this.wake();
    for (let i = 0; i < 10_000; i++) {
      // A pass waiting at the gate is not at work: nothing to wait for unless records are missing.
      if (this.running && !this.openGate) await this.running;
      else if (this.state === 'unavailable' || this.stopped) return;
      else if (this.countPending() === 0) return;
      else this.rescan();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.release();
    if (this.running) await this.running.catch(() => undefined);
    this.state = 'stopped';
  }

  /** Records without a current-model vector: counted once, then kept up to date (pendingKnown). */
  pendingCount(): number {
    this.pendingKnown ??= this.countPending();
    return this.pendingKnown;
  }

  /** Records without a current-model vector, counted now over whole tables. */
  private countPending(): number {
    const r = this.o.store.get<{ n: number }>(
      `SELECT (SELECT count(*) FROM observations) + (SELECT count(*) FROM session_summaries)
              - (SELECT count(*) FROM vectors WHERE model = ?) AS n`,
      [this.model],
    );
    return Math.max(0, Number(r?.n ?? 0));
  }

  /** Settles once a batch may be embedded: woken, or startDelayMs after start and quietMs after the last write. */
  private async idleTime(): Promise<void> {
    for (;;) {
      const wait = this.urgent ? 0 : Math.max(this.notBefore, this.lastWriteAt + (this.o.quietMs ?? 0)) - Date.now();
      if (wait <= 0 || this.stopped || this.eraseNow) return;
      await new Promise<void>((resolve) => {
        this.openGate = resolve;
        this.gateTimer = setTimeout(resolve, wait);
        this.gateTimer.unref();
      });
      this.openGate = undefined;
    }
  }

  /** Lets a pass waiting at the gate look again (woken or stopped). */
  private release(): void {
    clearTimeout(this.gateTimer);
    const open = this.openGate;
    this.openGate = undefined;
    open?.();
  }

  private async loop(): Promise<void> {
    this.checked = { observation: undefined, summary: undefined };
    while (!this.stopped) {
      if (this.eraseNow) {
        this.eraseNow = false;
        await this.tidy();
      }
      await this.idleTime();
      if (this.stopped) return;
      if (this.eraseNow) continue;
      const wakes = this.wakes;
      const batch = await this.nextBatch();
      if (batch.length === 0) {
        if (wakes === this.wakes) this.urgent = false;
        if (this.state === 'indexing') this.state = 'idle';
        this.rate.paused();
        await this.tidy();
        return;
      }
      this.state = 'indexing';
      let vectors: Float32Array[];
      try {
        vectors = await this.o.embedder.embed(batch.map((c) => c.text));
        if (vectors.length !== batch.length) throw new Error(`embedder returned ${vectors.length} vectors for ${batch.length} texts`);
      } catch (e) {
        if (this.stopped) return;
        this.fail(e as Error);
        return;
      }
      this.failures = 0;
      this.lastError = undefined;
      const rows: StoredVector[] = batch.map((c, i) => ({ kind: c.kind, id: c.id, project: c.project, epoch: c.epoch, blob: encodeVector(vectors[i]) }));
      const model = this.model;
      const stored = await this.store(model, rows);
      // A record that changed while it was embedded is looked for again from the top.
      if (stored.length < rows.length) this.checked = { observation: undefined, summary: undefined };
      if (this.pendingKnown !== undefined) this.pendingKnown = Math.max(0, this.pendingKnown - stored.length);
      this.embedded += stored.length;
      this.rate.stored(stored.length);
      await this.o.semantic.added(stored);
      // Let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Appends the vectors to their files, then records where they are. */
  private async store(model: string, rows: StoredVector[]): Promise<StoredVector[]> {
    const byProject = new Map<string, StoredVector[]>();
    for (const r of rows) byProject.set(r.project, [...(byProject.get(r.project) ?? []), r]);
    const placed = new Map<StoredVector, { gen: number; offset: number }>();
    for (const [project, group] of byProject) {
      const locs = await this.o.semantic.files.append(model, project, group.map((r) => ({ kind: r.kind, id: r.id, blob: r.blob })));
      group.forEach((r, i) => placed.set(r, locs[i]));
    }
    return this.o.store.write((tx) =>
      rows.filter((r) => {
        const dims = r.blob.byteLength - 4;
        const at = placed.get(r) as { gen: number; offset: number };
        // The record may have gone (or moved project) while it was being embedded: its entry stays unused.
        const res = tx.run(
          `INSERT OR REPLACE INTO vectors (kind, ref_id, project, model, dims, data, created_at, file_gen, file_offset)
           SELECT ?, ?, ?, ?, ?, x'', ?, ?, ? WHERE EXISTS (SELECT 1 FROM ${KINDS[r.kind].table} WHERE id = ? AND project = ?)`,
          [r.kind, r.id, r.project, model, dims, r.epoch, at.gen, at.offset, r.id, r.project],
        );
        return res.changes > 0;
      }),
    );
  }

  /** Records of this project were deleted: wipe their vectors out of the files soon (not only once files are mostly dead). */
  erase(project: string): void {
    this.pendingKnown = undefined;
    this.eraseDue.add(project);
    this.tidiedAt = 0;
    // Wiping needs no model and deleted data should leave soon: it does not wait for idle time.
    this.eraseNow = true;
    this.release();
    this.pass();
  }

  /** Rewrites mostly-dead files, deletes unused ones: after start and reindex, then at most every TIDY_MS. */
  private async tidy(): Promise<void> {
    if (this.tidiedAt !== 0 && Date.now() - this.tidiedAt < TIDY_MS) return;
    this.tidiedAt = Date.now();
    const erase = new Set(this.eraseDue);
    this.eraseDue.clear();
    const stopped = () => this.stopped;
    try {
      await compactAndSweep(this.o.store, this.o.semantic.files, this.o.log, stopped, erase);
    } catch (e) {
      for (const p of erase) this.eraseDue.add(p);
      // Nothing is lost: every step leaves the old place valid until the new one is recorded.
      this.o.log.warn('tidying the vector files failed; tried again later', { error: (e as Error).message });
    }
  }

  private fail(e: Error): void {
    this.failures++;
    this.rate.paused();
    this.state = 'unavailable';
    this.lastError = e.message;
    const wait = Math.min(10 * 60_000, RETRY_MS * 2 ** Math.min(this.failures - 1, 5));
    this.o.log.warn('embedding failed; semantic search falls back to keyword until it works', { error: e.message, retryInMs: wait });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.pass();
    }, wait);
    this.retryTimer.unref();
  }

  /** Up to batchSize records lacking a vector: observations first, newest first. */
  private async nextBatch(): Promise<Candidate[]> {
    const out: Candidate[] = [];
    for (const kind of ['observation', 'summary'] as const) {
      if (out.length >= this.o.batchSize) break;
      out.push(...(await this.missing(kind, this.o.batchSize - out.length)));
    }
    return out;
  }

  /** Scans id windows newest first, yielding between windows so a big store never blocks requests. */
  private async missing(kind: 'observation' | 'summary', limit: number): Promise<Candidate[]> {
    const store = this.o.store;
    const table = KINDS[kind].table;
    const max = Number(store.get<{ m: number | null }>(`SELECT max(id) AS m FROM ${table}`)?.m ?? 0);
    const floor = this.checkedUpTo[kind];
    const model = this.model;
    const out: Candidate[] = [];
    let scanned = false;
    for (let hi = max; hi > floor && out.length < limit; ) {
      const done = this.checked[kind];
      if (done && hi <= done.top && hi > done.below) {
        hi = done.below;
        continue;
      }
      if (scanned) await new Promise((resolve) => setImmediate(resolve));
      scanned = true;
      if (this.stopped) return out;
      // Down to the checked ids at most, so what is checked stays one range.
      const lo = Math.max(floor, hi - WINDOW, done && hi > done.top ? done.top : -Infinity);
      const want = limit - out.length;
      const rows = store.all<(ObservationText | SummaryText) & { id: number; project: string; created_at: number }>(
        `SELECT c.id, c.project, c.created_at, ${TEXT_COLUMNS[kind]} FROM ${table} c
         WHERE c.id > ? AND c.id <= ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.kind = '${kind}' AND v.ref_id = c.id AND v.model = ?)
         ORDER BY c.id DESC LIMIT ?`,
        [lo, hi, model, want],
      );
      for (const r of rows) {
        const text = kind === 'observation' ? observationEmbedText(r as ObservationText) : summaryEmbedText(r as SummaryText);
        out.push({ kind, id: r.id, project: r.project, epoch: r.created_at, text: text || '(empty)' });
      }
      // Checked now: the window, or down to its last row taken when the batch filled up in it.
      const below = rows.length === want ? rows[rows.length - 1].id - 1 : lo;
      if (!done) this.checked[kind] = { below, top: hi };
      else if (hi >= done.below && below <= done.top) this.checked[kind] = { below: Math.min(below, done.below), top: Math.max(hi, done.top) };
      hi = lo;
    }
    // Nothing missing at or below max: later passes need only look above it.
    if (out.length === 0 && !this.stopped) this.checkedUpTo[kind] = max;
    return out;
  }
}
