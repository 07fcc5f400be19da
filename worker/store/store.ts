// The durable store: sql.js in memory, every committed transaction journaled and fsynced
// before the caller's promise resolves, snapshots built off the event loop by a thread (replica.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database, SqlJsStatic, SqlValue } from 'sql.js';
import type { Logger } from '../../common/node/log';
import { inTransaction, runStatement, StatementCache } from './apply';
import { JournalWriter, listSegments, segmentName, type SyncTimes } from './journal';
import { encodeTx, type Param, type Statement } from './records';
import { degradedSentence, ERASE_MARK, pagedFiles, recover, type RecoveryReport } from './recovery';
import type { ReplicaData, ReplicaReply } from './replica';
import { listSnapshots, snapshotName, verifySnapshot, writeSnapshot } from './snapshot';
import { loadSqlJs, tuneConnection } from './sqlite';
import type { PagedBytes, PagedStats } from './pagedFile';
import { CheckpointStopped, deltaName, listDeltas } from './delta';
import { checkpoint, deltaMinBytesFromEnv, deltaPossible, fullCheckpointDue } from './checkpoint';
import { coldSegmentName, freezeCoveredSegments } from './coldJournal';
import { coldMinBytesFromEnv, coldName, freezeOlderSnapshots } from './coldSnapshot';
import { packChain } from './packChain';
import { faultPoint } from './faultPoint';

export type Row = Record<string, SqlValue>;

export interface WriteTx {
  run(sql: string, params?: Param[]): { changes: number; lastId: number };
  all<T = Row>(sql: string, params?: Param[]): T[];
  get<T = Row>(sql: string, params?: Param[]): T | undefined;
  /**
   * Marks this transaction as removing people's text: within `compactAfterDeleteMs` the store writes
   * snapshots without it and removes the older files that still hold it (compact()).
   */
  erased(): void;
}

export interface StoreOptions {
  dir: string;
  log: Logger;
  snapshotJournalBytes: number;
  /** Path of the bundled snapshot thread script (replica.js); null runs snapshots on the main thread. */
  replicaScript: string | null;
  /**
   * Creates the current schema on an empty database: recovery onto an empty schema (recovery.ts),
   * and a fresh dir's first snapshot (snapshotAtFirstStart).
   */
  emptySchema?: (db: Database) => void;
  /** How long after a delete the deleted text is compacted out of the files on disk (default 60 s). */
  compactAfterDeleteMs?: number;
  /**
   * Serve the database through a page cache of this many bytes instead of holding it whole in
   * memory, with delta checkpoints. Default: CLAUDE_MEM_PAGE_CACHE_MB, else 16 MiB, half
   * of it SQLite's own page cache (pagedFile.ts splitPageCache); 0 turns it off.
   */
  pageCacheBytes?: number;
  /** With the page cache, databases up to this size are checkpointed whole (default CLAUDE_MEM_DELTA_MIN_BYTES, else 8 MiB: checkpoint.ts). */
  deltaMinBytes?: number;
  /** With the page cache, a chain of files up to this size is read whole and checked at open (default 16 MiB: chain.ts; tests lower it). */
  verifyAtOpenBytes?: number;
  /**
   * With the page cache, a start that finds no snapshot (a fresh data dir) writes one of what the
   * journals hold and serves it through the page cache at once, instead of holding the database
   * whole until the next start (the worker does; tests of other layouts do not).
   */
  snapshotAtFirstStart?: boolean;
  /** With the page cache, a delta every this many bytes of journal while writes go on (default CLAUDE_MEM_BULK_DELTA_BYTES, else 2 MiB); 0: every snapshotJournalBytes. */
  bulkDeltaBytes?: number;
  /** With the page cache, a delta once this many bytes of chunks are dirty (default DIRTY_DELTA_BYTES). */
  dirtyDeltaBytes?: number;
  /** Older full snapshots at least this large are kept compressed (default CLAUDE_MEM_COLD_SNAPSHOT_MIN_BYTES, else 1 MiB: coldSnapshot.ts). */
  coldSnapshotMinBytes?: number;
  /**
   * With the page cache, keep the newest full snapshot and the deltas after it packed, chunk by
   * chunk (packChain.ts): full snapshots are written packed (not while writes go on), raw
   * files are packed in the background once writes pause; the worker does, tests of other layouts
   * do not.
   */
  packChain?: boolean;
}

export const DEFAULT_PAGE_CACHE_MB = 16;

/**
 * The page cache budget from the environment: CLAUDE_MEM_PAGE_CACHE_MB (MiB, at least 4), 0 turns
 * it off; unset or not a number: DEFAULT_PAGE_CACHE_MB.
 */
export function pageCacheBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CLAUDE_MEM_PAGE_CACHE_MB;
  const mb = v === undefined || v.trim() === '' ? NaN : Number(v);
  if (!Number.isFinite(mb) || mb < 0) return DEFAULT_PAGE_CACHE_MB << 20;
  return mb === 0 ? 0 : Math.max(4, Math.floor(mb)) << 20;
}

export const DEFAULT_COMPACT_AFTER_DELETE_MS = 60_000;
/** When a start looks for older snapshots left uncompressed (after it answers its first requests). */
const FREEZE_AFTER_START_MS = 10_000;
/** How long close(true) waits for a compression under way before stopping it. */
const FREEZE_GRACE_AT_CLOSE_MS = 5_000;
/**
 * Present in the store's dir while deleted text may still be in its older files: a compaction is
 * due. A stop does not compact; the next start finds this file and schedules the compaction.
 */
export const COMPACT_DUE_FILE = 'compact-due';
/**
 * Idle checkpoints: a stop writes nothing but the journal, so the next start replays what was
 * written since the last checkpoint. Once writes pause this long with at least IDLE_CHECKPOINT_BYTES
 * of journal since it, or IDLE_CHECKPOINT_LONG_MS with any, the store checkpoints (a delta of the
 * chunks written, with the page cache) and the next start has little or nothing to replay.
 */
const IDLE_CHECKPOINT_MS = 5_000;
const IDLE_CHECKPOINT_BYTES = 1 << 20;
const IDLE_CHECKPOINT_LONG_MS = 60_000;
/**
 * With the page cache, a checkpoint (a delta) is taken after this much journal even while writes go
 * on. CLAUDE_MEM_BULK_DELTA_BYTES overrides it; 0 waits for snapshotJournalBytes (the fault suite
 * uses it to leave a bulk journal to the stop and the next start's catch-up).
 */
export const BULK_DELTA_BYTES = 2 << 20;
/**
 * With the page cache, a checkpoint (a delta) is also taken once this many bytes of chunks are dirty,
 * however little journal wrote them: a write that journals a few bytes can rewrite many pages (a
 * full-text index merge step), and dirty chunks stay in memory until a checkpoint has them on disk
 * (after an import the start's merges held ~120 MB of them at 100k).
 */
export const DIRTY_DELTA_BYTES = 16 << 20;

export function bulkDeltaBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CLAUDE_MEM_BULK_DELTA_BYTES;
  const n = v === undefined || v.trim() === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : BULK_DELTA_BYTES;
}

export interface SnapshotResult {
  gen: number;
  bytes: number;
  /** Time the worker's event loop was blocked by the export (0 with the replica). */
  blockedMs: number;
  totalMs: number;
  /**
   * replica / main: a full export; delta: the page cache's chunks written since the last checkpoint;
   * merged: a full snapshot streamed from the page cache's chunks and the files (checkpoint.ts).
   */
  via: 'replica' | 'main' | 'delta' | 'merged';
}

export class StoreUnavailableError extends Error {}

export class Store {
  private cache: StatementCache;
  private current: Database;
  private compactTimer: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  /** Set when recovery could not rebuild every acknowledged write: one sentence saying what and what to do. */
  degraded: string | undefined;
  /** The snapshot thread running now, if any (terminated on close). */
  private replica: Worker | undefined;
  private snapshotting: Promise<SnapshotResult> | undefined;
  /** Compression of the older snapshots under way (coldSnapshot.ts), and whether close() asked it to stop. */
  private freezing: Promise<void> | undefined;
  /** Compression of the journal segments a checkpoint covers (coldJournal.ts) under way: every run. */
  private freezingJournals: Promise<void> | undefined;
  /** The segments those runs are compressing: a run started meanwhile leaves them out. */
  private readonly freezingGens = new Set<number>();
  /** Packing of the newest snapshot and its deltas (packChain.ts) under way. */
  private packing: Promise<void> | undefined;
  private freezeTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleLongTimer: NodeJS.Timeout | undefined;
  private closing = false;
  /** Set by close(): a checkpoint or compression under way stops at its next piece. */
  private aborting = false;
  private reopenHooks: ((db: Database) => void)[] = [];
  /** Set when the journal could not be written: the worker then refuses writes until restarted. */
  broken: Error | undefined;
  lastSnapshot: SnapshotResult | undefined;
  /**
   * Counts the changes to what reads return (each statement of a write and its end, a rolled-back
   * write, in-memory writes of degraded storage, a reload from the files): an answer computed from
   * reads stays right while this is unchanged (worker/store/untilWrite.ts keeps such answers).
   */
  writes = 0;

  private constructor(
    db: Database,
    private journal: JournalWriter,
    private readonly opts: StoreOptions,
    public readonly recovery: RecoveryReport,
    private readonly SQL: SqlJsStatic,
  ) {
    this.current = db;
    this.cache = new StatementCache(db);
  }

  /** The live connection (replaced after a failed journal write: see reloadFromFiles). */
  get db(): Database {
    return this.current;
  }

  static async open(opts: StoreOptions): Promise<Store> {
    fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    removeTempFiles(opts.dir);
    const SQL = await loadSqlJs();
    const pageCacheBytes = opts.pageCacheBytes ?? pageCacheBytesFromEnv();
    let { db, nextGen, report } = recover(SQL, opts.dir, { quarantine: true, emptySchema: opts.emptySchema, pageCacheBytes, verifyAtOpenBytes: opts.verifyAtOpenBytes });
    for (const p of report.problems) opts.log.warn(`recovery: ${p}`);
    if (opts.snapshotAtFirstStart && pageCacheBytes > 0 && report.snapshotGen === null && report.lost.length === 0) {
      // No snapshot yet (a fresh data dir): write one of what the journals hold (on a fresh dir, the
      // current schema and no rows) and serve it through the page cache from this start on, so the first
      // run's checkpoints are deltas too: a bulk write (an import) into a fresh dir then leaves little
      // for its stop to write. The journals it covers are kept (a single snapshot prunes nothing).
      // Its segment exists before it, as after a rotation (recovery checks that). An empty database
      // (a fresh dir) gets the current schema first, so the snapshot holds it and no start replays
      // the schema's creation from the journal.
      if (opts.emptySchema && db.exec('SELECT 1 FROM sqlite_master LIMIT 1').length === 0) opts.emptySchema(db);
      fs.closeSync(fs.openSync(path.join(opts.dir, segmentName(nextGen)), 'a', 0o600));
      await writeSnapshot(opts.dir, nextGen, db.export());
      faultPoint('start:first-snapshot');
      db.close();
      const first = report;
      ({ db, nextGen, report } = recover(SQL, opts.dir, { quarantine: true, emptySchema: opts.emptySchema, pageCacheBytes, verifyAtOpenBytes: opts.verifyAtOpenBytes }));
      // What this start replayed and found is the first pass's; the second only opened the new snapshot.
      report = { ...first, snapshotGen: report.snapshotGen, deltasApplied: report.deltasApplied, problems: [...first.problems, ...report.problems], lost: report.lost };
    }
    faultPoint('start:replayed');
    let store: Store | undefined;
    const journal = await JournalWriter.open(opts.dir, nextGen, { durable: () => store?.onDurable() });
    store = new Store(db, journal, opts, report, SQL);
    store.watchPagedFile(db);
    if (report.lost.length > 0) {
      // Acknowledged data is missing: keep every file as it is (no writes, no snapshot, no pruning)
      // until a human decides (claude-mem recover).
      store.degraded = degradedSentence(report);
      store.broken = new Error(store.degraded);
      opts.log.error(store.degraded, { lost: report.lost });
    } else {
      // A data dir from before cold snapshots or compressed journals, or a compression a stop cut
      // short: finish it once the start is done.
      store.freezeTimer = setTimeout(() => {
        store?.freezeOlder();
        store?.freezeJournals();
        store?.packChainFiles();
      }, FREEZE_AFTER_START_MS);
      store.freezeTimer.unref();
      // A delete whose text may still be in older files was replayed, or a compaction was due when
      // the worker stopped (or died): it is still due.
      if (report.erasures > 0 || fs.existsSync(path.join(opts.dir, COMPACT_DUE_FILE))) store.scheduleCompaction();
    }
    return store;
  }

  /** Functions registered on the connection must be registered again after a main-thread export. */
  onReopen(hook: (db: Database) => void): void {
    this.reopenHooks.push(hook);
    hook(this.db);
  }

  all<T = Row>(sql: string, params: Param[] = []): T[] {
    return this.cache.rows<T>(sql, params);
  }

  get<T = Row>(sql: string, params: Param[] = []): T | undefined {
    return this.cache.first<T>(sql, params);
  }

  /**
   * Runs fn in one transaction. fn must be synchronous and deterministic in its writes:
   * its statements are journaled and replayed verbatim. Resolves once they are fsynced.
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.degraded) return Promise.reject(new StoreUnavailableError(this.degraded));
    if (this.broken) return Promise.reject(new StoreUnavailableError(`storage is read-only after a write failure: ${this.broken.message}`));
    const stmts: Statement[] = [];
    let erases = false;
    const tx: WriteTx = {
      erased: () => {
        if (!erases) stmts.push([ERASE_MARK, []]);
        erases = true;
      },
      run: (sql, params = []) => {
        runStatement(this.cache, sql, params);
        // What reads return changed already: a read later in this transaction must not get an answer kept from before.
        this.writes += 1;
        stmts.push([sql, params]);
        const changes = this.db.getRowsModified();
        // Read lazily (and right away, before the next statement): only inserts that need their id pay for it.
        const get = this.get.bind(this);
        return {
          changes,
          get lastId() {
            return Number(get<{ id: number }>('SELECT last_insert_rowid() AS id')?.id ?? 0);
          },
        };
      },
      all: (sql, params) => this.all(sql, params),
      get: (sql, params) => this.get(sql, params),
    };
    let result: T;
    try {
      result = inTransaction(this.cache, () => fn(tx));
    } catch (e) {
      // Rolled back: a read inside it saw rows that are gone now, so what was kept from reads is not.
      this.writes += 1;
      return Promise.reject(e);
    }
    if (stmts.length === 0 || (erases && stmts.length === 1)) return Promise.resolve(result);
    this.writes += 1;
    return this.journal.append(encodeTx(stmts)).then(
      () => {
        if (erases) this.scheduleCompaction();
        return result;
      },
      (e: Error) => {
        if (!this.broken) {
          this.broken = e;
          this.opts.log.error(`journal write failed; refusing further writes until restart: ${e.message}`);
          // This write (and any queued with it) is in memory but not on disk: reads must not show it.
          this.reloadFromFiles();
        }
        throw new StoreUnavailableError(`could not make the write durable: ${e.message}`);
      },
    );
  }

  /** Runs fn in a transaction that is not journaled. Only for degraded (read-only) storage: nothing in it survives a restart. */
  applyInMemory(fn: (tx: WriteTx) => void): void {
    if (!this.degraded) throw new Error('applyInMemory is only for degraded storage');
    const tx: WriteTx = {
      run: (sql, params = []) => {
        runStatement(this.cache, sql, params);
        return { changes: this.db.getRowsModified(), lastId: 0 };
      },
      all: (sql, params) => this.all(sql, params),
      get: (sql, params) => this.get(sql, params),
      erased: () => undefined,
    };
    this.writes += 1;
    try {
      inTransaction(this.cache, () => fn(tx));
    } finally {
      this.writes += 1;
    }
  }

  /**
   * Replaces the in-memory database with what the files hold, so a write whose journal record
   * failed is no longer visible. Every write after the failure is refused, so this runs once.
   */
  private reloadFromFiles(): void {
    try {
      const { db } = recover(this.SQL, this.opts.dir, { quarantine: false, emptySchema: this.opts.emptySchema, pageCacheBytes: this.opts.pageCacheBytes ?? pageCacheBytesFromEnv() });
      const old = this.current;
      this.cache.clear();
      this.writes += 1;
      this.current = db;
      this.cache = new StatementCache(db);
      for (const hook of this.reopenHooks) hook(db);
      this.watchPagedFile(db);
      old.close();
      pagedFiles.get(old)?.close();
    } catch (e) {
      this.opts.log.error(`could not reload the database from its files after a write failure: ${(e as Error).message}`);
    }
  }

  /**
   * A chunk of the page cache that fails its CRC when read means a file changed on disk after it was
   * written: the statement gets an I/O error, the file is moved to damaged/ (so the next start builds
   * without it, from the other files and the journals) and the store turns read-only until then.
   */
  private watchPagedFile(db: Database): void {
    const paged = pagedFiles.get(db);
    if (!paged) return;
    paged.onDamage = (file, chunk) => {
      if (this.degraded) return;
      this.degraded = `Memory storage is degraded: ${path.basename(file)} (chunk ${chunk}) changed on disk after it was written and is not served. The worker is read-only; restart it to rebuild from the other files (the damaged one is kept in db/damaged/).`;
      this.broken ??= new Error(this.degraded);
      this.opts.log.error(this.degraded);
      moveToDamaged(this.opts.dir, file);
    };
  }

  /** Compaction of deleted text is due: at most compactAfterDeleteMs from the first delete after the last one. */
  private scheduleCompaction(): void {
    if (this.compactTimer || this.degraded) return;
    markCompactionDue(this.opts.dir);
    this.compactTimer = setTimeout(() => {
      this.compact().catch((e: Error) => this.opts.log.error(`compaction failed: ${e.message}`));
    }, this.opts.compactAfterDeleteMs ?? DEFAULT_COMPACT_AFTER_DELETE_MS);
    this.compactTimer.unref();
  }

  /** Whether a delete is waiting for its compaction. */
  get compactionDue(): boolean {
    return this.compactTimer !== undefined;
  }

  /**
   * Removes deleted text from the files: merges the full-text indexes (their old segments still
   * hold deleted words), then writes two snapshots in a row. Both are built after the delete (with
   * secure_delete, so freed pages are zeros) and verified by reading them back, so the prune after
   * the second one removes every older snapshot and journal while still keeping two verified
   * snapshots and every journal after the older: any one file can still be damaged without loss.
   */
  compact(onMainThread = false): Promise<void> {
    if (!this.compacting) {
      clearTimeout(this.compactTimer);
      this.compactTimer = undefined;
      this.compacting = (async () => {
        const t0 = performance.now();
        const fts = this.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts%'`).map((r) => r.name);
        if (fts.length > 0) await this.write((tx) => fts.forEach((t) => tx.run(`INSERT INTO "${t}"("${t}") VALUES ('optimize')`)));
        // A snapshot under way may have been built before the delete: let it finish, then take two.
        await this.snapshotting?.catch(() => undefined);
        await this.snapshot(onMainThread, true);
        await this.snapshot(onMainThread, true);
        // A delete since it started scheduled the next compaction, which keeps the mark.
        if (!this.compactTimer) unlinkQuiet(path.join(this.opts.dir, COMPACT_DUE_FILE));
        this.opts.log.info('compacted deleted text out of the files', { ms: Math.round(performance.now() - t0) });
      })().finally(() => {
        this.compacting = undefined;
      });
    }
    return this.compacting;
  }

  get journalBytes(): number {
    return this.journal.segmentBytes;
  }

  /** Recent journal fdatasync durations. */
  get syncTimes(): ReturnType<SyncTimes['summary']> {
    return this.journal.syncTimes.summary();
  }

  /** The directory of its files (another process can open them read-only: search/warmProcess.ts). */
  get dir(): string {
    return this.opts.dir;
  }

  get journalGen(): number {
    return this.journal.gen;
  }

  /** Whether snapshots are built off the event loop. */
  get replicaAlive(): boolean {
    return this.opts.replicaScript !== null;
  }

  /** Builds snapshot `gen` in a thread from the files: the last snapshot and the segments before `gen`. */
  private buildInThread(script: string, gen: number): Promise<Extract<ReplicaReply, { type: 'snapshotted' }>> {
    return new Promise((resolve, reject) => {
      const w = new Worker(script, { workerData: { dir: this.opts.dir, upToGen: gen } satisfies ReplicaData });
      this.replica = w;
      let reply: ReplicaReply | undefined;
      w.on('message', (m: ReplicaReply) => (reply = m));
      w.on('error', (e) => (reply ??= { type: 'failed', gen, error: e.message }));
      w.on('exit', (code) => {
        if (this.replica === w) this.replica = undefined;
        if (reply?.type === 'snapshotted') resolve(reply);
        else reject(new Error(reply?.error ?? `snapshot thread exited with code ${code}`));
      });
    });
  }

  private onDurable(): void {
    if (this.closing) return;
    // With the page cache a checkpoint is a delta of the chunks written, cheap to take often: during a
    // bulk write (an import) one every BULK_DELTA_BYTES of journal keeps both the dirty chunks held in
    // memory and what a stop right after it has to write small.
    const bulk = this.opts.bulkDeltaBytes ?? bulkDeltaBytesFromEnv();
    const every = pagedFiles.has(this.db) && bulk > 0 ? Math.min(bulk, this.opts.snapshotJournalBytes) : this.opts.snapshotJournalBytes;
    const dirtyOver = this.dirtyOver();
    if ((this.journal.segmentBytes >= every || dirtyOver) && !this.snapshotting) {
      // A bulk delta never turns into a full snapshot (the database grows fast under an import, so
      // nearly every one would): the idle checkpoint after it takes that.
      const bulkDelta = every < this.opts.snapshotJournalBytes || dirtyOver;
      this.snapshot(false, false, bulkDelta, bulkDelta).catch((e: Error) => this.checkpointFailed('snapshot', e));
    }
    // Restarted by every write: they fire once writes pause.
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => this.idleCheckpoint(IDLE_CHECKPOINT_BYTES), IDLE_CHECKPOINT_MS);
      this.idleTimer.unref();
    }
    if (this.idleLongTimer) this.idleLongTimer.refresh();
    else {
      this.idleLongTimer = setTimeout(() => this.idleCheckpoint(1), IDLE_CHECKPOINT_LONG_MS);
      this.idleLongTimer.unref();
    }
  }

  /**
   * Resolves once the page cache's dirty chunks are under DIRTY_DELTA_BYTES, taking (or joining) the
   * delta that writes them out: a background writer that rewrites many pages per write (the
   * full-text index's merge steps) waits on it between writes, so its chunks never pile up in memory.
   */
  async dirtyRoom(): Promise<void> {
    while (!this.closing && !this.degraded && !this.broken && this.dirtyOver()) {
      await this.snapshot(false, false, true, true).catch(() => new Promise((r) => setTimeout(r, 1000)));
    }
  }

  /** Whether the page cache holds at least the dirty bytes a delta is taken at (checked on every write: no stats object). */
  private dirtyOver(): boolean {
    return (pagedFiles.get(this.db)?.dirtyBytes ?? 0) >= (this.opts.dirtyDeltaBytes ?? DIRTY_DELTA_BYTES);
  }

  /** A checkpoint once writes have paused, when at least `minBytes` of journal were written since the last one. */
  private idleCheckpoint(minBytes: number): void {
    if (this.closing || this.degraded || this.broken) return;
    if (this.journal.segmentBytes < minBytes) {
      // Too little journal for a checkpoint, but writes paused: pack what is raw, merge the deltas.
      this.packChainFiles();
      return;
    }
    if (this.snapshotting) {
      // One under way (a long one after a bulk write): look again once as long has passed.
      (minBytes > 1 ? this.idleTimer : this.idleLongTimer)?.refresh();
      return;
    }
    this.snapshot().catch((e: Error) => this.checkpointFailed('idle checkpoint', e));
  }

  /** A background checkpoint that a stop ended is left to the next start (the journal holds every write): not an error. */
  private checkpointFailed(what: string, e: Error): void {
    if (e instanceof CheckpointStopped) this.opts.log.info(`${what} not written: ${e.message}`);
    else this.opts.log.error(`${what} failed: ${e.message}`);
  }

  /**
   * Takes a checkpoint now (or joins the one in progress). With the page cache it is a delta unless
   * `full` or a full snapshot pays (checkpoint.ts); without, always a full snapshot.
   */
  snapshot(onMainThread = false, full = false, deltaIfPossible = false, bulk = false): Promise<SnapshotResult> {
    if (this.degraded) return Promise.reject(new StoreUnavailableError(this.degraded));
    if (this.closing) return Promise.reject(new CheckpointStopped());
    if (!this.snapshotting) {
      const paged = pagedFiles.get(this.db);
      this.snapshotting = (paged ? this.takeCheckpoint(paged, full, deltaIfPossible, bulk) : this.takeSnapshot(onMainThread)).finally(() => {
        this.snapshotting = undefined;
      });
    }
    return this.snapshotting;
  }

  private async takeSnapshot(onMainThread: boolean): Promise<SnapshotResult> {
    const t0 = performance.now();
    let result: SnapshotResult | undefined;
    const script = this.opts.replicaScript;
    if (script && !onMainThread) {
      try {
        // Every record before the new segment is durable and in closed segments: the thread rebuilds from them.
        const gen = await this.journal.rotate();
        const r = await this.buildInThread(script, gen);
        result = { gen, bytes: r.bytes, blockedMs: 0, totalMs: performance.now() - t0, via: 'replica' };
      } catch (e) {
        // A stop terminated the thread: the next start checkpoints instead.
        if (this.closing) throw new CheckpointStopped();
        this.opts.log.warn(`snapshot thread failed (${(e as Error).message}); taking it on the main thread`);
      }
    }
    if (!result) {
      // Export and rotate in the same tick, so the snapshot holds exactly the records before the new segment.
      const tb = performance.now();
      const bytes = this.db.export();
      this.afterExport();
      const blockedMs = performance.now() - tb;
      const gen = await this.journal.rotate();
      await writeSnapshot(this.opts.dir, gen, bytes);
      result = { gen, bytes: bytes.length, blockedMs, totalMs: performance.now() - t0, via: 'main' };
    }
    // Read it back before anything older is pruned: until then the older files are the only good copy.
    const file = path.join(this.opts.dir, snapshotName(result.gen));
    try {
      await verifySnapshot(file);
    } catch (e) {
      moveToDamaged(this.opts.dir, file);
      throw new Error(`snapshot ${snapshotName(result.gen)} did not read back (${(e as Error).message}); kept every older file`);
    }
    this.prune();
    this.freezeOlder();
    this.freezeJournals();
    this.lastSnapshot = result;
    this.opts.log.info('snapshot written', { ...result });
    return result;
  }

  /** A delta, or a full snapshot merged from the page cache and the files (checkpoint.ts). */
  private async takeCheckpoint(paged: PagedBytes, full: boolean, deltaIfPossible = false, bulk = false): Promise<SnapshotResult> {
    if (this.broken) throw new StoreUnavailableError(`storage is read-only after a write failure: ${this.broken.message}`);
    const deltaMin = this.opts.deltaMinBytes ?? deltaMinBytesFromEnv();
    // With packing, a bulk delta is taken of a small database too: packed, and merged into the
    // chain's other deltas (packChain.ts), it keeps the chain about one packed database long.
    const asFull = deltaIfPossible ? !deltaPossible(this.opts.dir, paged, bulk && this.opts.packChain ? 0 : deltaMin) : full || fullCheckpointDue(this.opts.dir, paged, deltaMin);
    const result = await checkpoint({
      dir: this.opts.dir,
      paged,
      full: asFull,
      rotate: () => this.journal.rotate(),
      // A write whose record failed is in memory but not on disk: the capture may hold it.
      broken: () => this.broken,
      moveToDamaged: (file) => moveToDamaged(this.opts.dir, file),
      stopping: () => this.aborting,
      // A full snapshot is written packed at once, but not while writes go on (deflating made the
      // import's full snapshots at 10k take 7 s instead of 1, and the journal piled up behind them)
      // nor a start's catch-up checkpoint.
      packed: this.opts.packChain === true && !deltaIfPossible,
      // A delta is written packed (deflated on the thread pool) unless a start waits for it.
      packedDelta: this.opts.packChain === true && (bulk || !deltaIfPossible),
    });
    faultPoint('checkpoint:before-prune');
    this.prune();
    if (result.via !== 'delta') this.freezeOlder();
    this.freezeJournals();
    // Merges the chain's packed deltas (a bulk delta's too), but not while a start waits (its
    // catch-up): the timer after a start packs that.
    if (!deltaIfPossible || bulk) this.packChainFiles();
    this.lastSnapshot = result;
    this.opts.log.info(result.via === 'delta' ? 'delta checkpoint written' : 'snapshot written', { ...result });
    return result;
  }

  private afterExport(): void {
    this.cache.forget();
    tuneConnection(this.db);
    for (const hook of this.reopenHooks) hook(this.db);
  }

  /**
   * Keeps the newest two full snapshots (each verified by reading it back when written), every delta
   * after the newest and every journal segment from the older of them on: any one of these files can be damaged and
   * every write is still rebuilt from the others (a damaged delta is left out and the journals
   * replay what it held, so deltas never let a journal go). With a single snapshot every segment is
   * kept (the journals it was built from are its only backup).
   */
  private prune(): void {
    const snaps = listSnapshots(this.opts.dir);
    if (snaps.length < 2) return;
    const oldestKept = snaps[snaps.length - 2];
    const newest = snaps[snaps.length - 1];
    for (const g of snaps) if (g < oldestKept) for (const name of [snapshotName(g), coldName(g)]) unlinkQuiet(path.join(this.opts.dir, name));
    // A delta older than the newest full snapshot is in it, and the journals from the older snapshot
    // on (all kept) hold what it held: the fallback to the older snapshot replays them instead.
    for (const g of listDeltas(this.opts.dir)) if (g < newest) unlinkQuiet(path.join(this.opts.dir, deltaName(g)));
    for (const g of listSegments(this.opts.dir)) if (g < oldestKept) for (const name of [segmentName(g), coldSegmentName(g)]) unlinkQuiet(path.join(this.opts.dir, name));
  }

  /**
   * Compresses the closed journal segments the newest checkpoint covers (coldJournal.ts: a start
   * that finds that checkpoint intact does not read them), in the background; never while
   * degraded, never on the way out (a stop stops it at its next blocks). A checkpoint taken during a
   * run starts one of its own for the segments it covers: it does not wait for the run under way.
   */
  private freezeJournals(): void {
    if (this.degraded || this.closing) return;
    const run = freezeCoveredSegments(this.opts.dir, () => this.aborting || this.closing || this.degraded !== undefined, this.freezingGens)
      .then((done) => {
        if (done.length > 0)
          this.opts.log.info('covered journal segments compressed', {
            segments: done.length,
            rawBytes: done.reduce((n, d) => n + d.rawBytes, 0),
            coldBytes: done.reduce((n, d) => n + d.coldBytes, 0),
          });
      })
      .catch((e: Error) => this.opts.log.warn(`could not compress a journal segment (kept as it is): ${e.message}`));
    const all = Promise.all([this.freezingJournals, run]).then(() => undefined);
    this.freezingJournals = all;
    void all.finally(() => {
      if (this.freezingJournals === all) this.freezingJournals = undefined;
    });
  }

  /**
   * Packs the newest full snapshot and the deltas after it (packChain.ts), in the background, one
   * file at a time; the page cache then reads their chunks from the packed files. Never while
   * degraded, never on the way out (a stop stops it at its next piece).
   */
  private packChainFiles(): void {
    if (!this.opts.packChain || this.packing || this.degraded || this.closing || !pagedFiles.has(this.db)) return;
    this.packing = packChain(
      this.opts.dir,
      () => this.aborting || this.closing || this.degraded !== undefined,
      (file, placed) => pagedFiles.get(this.db)?.repoint(file, placed),
    )
      .then((done) => {
        for (const d of done) this.opts.log.info(d.merged ? 'deltas merged' : 'checkpoint packed', { ...d });
      })
      .catch((e: Error) => this.opts.log.warn(`could not pack a checkpoint: ${e.message}`))
      .finally(() => {
        this.packing = undefined;
      });
  }

  /**
   * Compresses the full snapshots older than the newest (coldSnapshot.ts), in the background, one
   * run at a time; never while degraded (every file stays as it is until a human decides).
   */
  private freezeOlder(): void {
    if (this.freezing || this.degraded || this.closing) return;
    const minBytes = this.opts.coldSnapshotMinBytes ?? coldMinBytesFromEnv();
    // Storage found damaged meanwhile: stop at the next block, so every file stays as it is.
    this.freezing = freezeOlderSnapshots(this.opts.dir, minBytes, () => this.aborting || this.degraded !== undefined)
      .then((done) => {
        for (const d of done) this.opts.log.info(d.coldBytes > 0 ? 'older snapshot compressed' : 'older snapshot pruned while it was compressed', { ...d, name: coldName(d.gen) });
      })
      .catch((e: Error) => this.opts.log.warn(`could not compress an older snapshot (kept as it is): ${e.message}`))
      .finally(() => {
        this.freezing = undefined;
      });
  }

  /**
   * Closes the store. `finalSnapshot` (tests, tools): first waits for the checkpoint under way, runs
   * a compaction still due, writes a final snapshot and gives a compression under way a moment.
   *
   * Without it (the worker's stop), no checkpoint work at all: the journal already holds every
   * acknowledged write. A checkpoint (delta or full snapshot, written or being read back),
   * compression or packing under way stops at its next piece (its temp file removed: the state a
   * kill there would leave), a snapshot thread is terminated, the journal is flushed and closed.
   * The next start replays what came after the newest checkpoint and writes a delta of it before it
   * answers (worker/main.ts), and compacts when a compaction was due (COMPACT_DUE_FILE).
   * `lap` is called as each part ends ('background', 'journal'): the worker times its stop with it.
   */
  async close(finalSnapshot = true, lap: (part: string) => void = () => undefined): Promise<void> {
    if (!finalSnapshot) faultPoint('stop:begin');
    if (finalSnapshot && !this.broken) {
      try {
        // A snapshot under way finishes first; the final one is exported here: nothing else needs the event loop now.
        await this.snapshotting?.catch(() => undefined);
        await this.compacting?.catch(() => undefined);
        // A compaction still due runs now, so deleted text does not outlive the store in its files.
        if (this.compactTimer) await this.compact(true);
        else await this.snapshot(true);
      } catch (e) {
        this.opts.log.error(`final snapshot failed: ${(e as Error).message}`);
      }
    }
    for (const t of [this.compactTimer, this.freezeTimer, this.idleTimer, this.idleLongTimer]) clearTimeout(t);
    this.compactTimer = undefined;
    // A compression under way (often the one the final snapshot started) gets a moment to finish,
    // then stops at its next block: what it had not finished is done at the next start.
    if (finalSnapshot && this.freezing) await Promise.race([this.freezing, new Promise((r) => setTimeout(r, FREEZE_GRACE_AT_CLOSE_MS))]);
    this.closing = true;
    this.aborting = true;
    faultPoint('stop:stopping-background-work');
    const r = this.replica;
    this.replica = undefined;
    if (r) await r.terminate();
    // Each stops at its next piece (a write already handed to the disk finishes first).
    await Promise.all([this.freezing, this.freezingJournals, this.packing, this.snapshotting?.catch(() => undefined), this.compacting?.catch(() => undefined)]);
    this.aborting = false;
    lap('background');
    await this.journal.close();
    faultPoint('stop:journal-synced');
    this.cache.clear();
    this.db.close();
    pagedFiles.get(this.db)?.close();
    lap('journal');
  }

  /** The page cache's figures when the database is served through one (pageCacheBytes). */
  get pageCache(): ReturnType<typeof pagedStats> {
    return pagedStats(this.db);
  }
}

function pagedStats(db: Database): PagedStats | undefined {
  return pagedFiles.get(db)?.stats;
}

/** Marks a compaction due (COMPACT_DUE_FILE), so that a stop or a crash before it does not lose it. */
function markCompactionDue(dir: string): void {
  try {
    fs.writeFileSync(path.join(dir, COMPACT_DUE_FILE), '', { mode: 0o600 });
  } catch {
    /* the journal's erase mark still schedules it when replayed */
  }
}

function unlinkQuiet(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/** A file we wrote that does not read back is kept for a human, never deleted. */
function moveToDamaged(dir: string, file: string): void {
  try {
    const dest = path.join(dir, 'damaged');
    fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
    fs.renameSync(file, path.join(dest, `${path.basename(file)}.${Date.now()}`));
  } catch {
    /* leave it: start-up checks it again */
  }
}

function removeTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) if (name.includes('.tmp-')) unlinkQuiet(path.join(dir, name));
}
