// The durable store: sql.js in memory, every committed transaction journaled and fsynced
// before the caller's promise resolves, snapshots built off the event loop by a thread (replica.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database, SqlValue } from 'sql.js';
import type { Logger } from '../log';
import { inTransaction, runStatement, StatementCache } from './apply';
import { JournalWriter, listSegments, segmentName, type SyncTimes } from './journal';
import { encodeTx, type Param, type Statement } from './records';
import { recover, type RecoveryReport } from './recovery';
import type { ReplicaData, ReplicaReply } from './replica';
import { listSnapshots, snapshotName, writeSnapshot } from './snapshot';
import { loadSqlJs, tuneConnection } from './sqlite';

export type Row = Record<string, SqlValue>;

export interface WriteTx {
  run(sql: string, params?: Param[]): { changes: number; lastId: number };
  all<T = Row>(sql: string, params?: Param[]): T[];
  get<T = Row>(sql: string, params?: Param[]): T | undefined;
}

export interface StoreOptions {
  dir: string;
  log: Logger;
  snapshotJournalBytes: number;
  /** Path of the bundled snapshot thread script (replica.js); null runs snapshots on the main thread. */
  replicaScript: string | null;
}

export interface SnapshotResult {
  gen: number;
  bytes: number;
  /** Time the worker's event loop was blocked by the export (0 with the replica). */
  blockedMs: number;
  totalMs: number;
  via: 'replica' | 'main';
}

export class StoreUnavailableError extends Error {}

export class Store {
  private cache: StatementCache;
  /** The snapshot thread running now, if any (terminated on close). */
  private replica: Worker | undefined;
  private snapshotting: Promise<SnapshotResult> | undefined;
  private reopenHooks: ((db: Database) => void)[] = [];
  /** Set when the journal could not be written: the worker then refuses writes until restarted. */
  broken: Error | undefined;
  lastSnapshot: SnapshotResult | undefined;
  writes = 0;

  private constructor(
    public readonly db: Database,
    private journal: JournalWriter,
    private readonly opts: StoreOptions,
    public readonly recovery: RecoveryReport,
  ) {
    this.cache = new StatementCache(db);
  }

  static async open(opts: StoreOptions): Promise<Store> {
    fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    removeTempFiles(opts.dir);
    const SQL = await loadSqlJs();
    const { db, nextGen, report } = recover(SQL, opts.dir, { quarantine: true });
    for (const p of report.problems) opts.log.warn(`recovery: ${p}`);
    let store: Store | undefined;
    const journal = await JournalWriter.open(opts.dir, nextGen, { durable: () => store?.onDurable() });
    store = new Store(db, journal, opts, report);
    return store;
  }

  /** Functions registered on the connection must be registered again after a main-thread export. */
  onReopen(hook: (db: Database) => void): void {
    this.reopenHooks.push(hook);
    hook(this.db);
  }

  all<T = Row>(sql: string, params: Param[] = []): T[] {
    const st = this.cache.get(sql);
    const rows: T[] = [];
    try {
      st.bind(params as never);
      while (st.step()) rows.push(this.cache.row<T>(st));
    } finally {
      st.reset();
    }
    return rows;
  }

  get<T = Row>(sql: string, params: Param[] = []): T | undefined {
    const st = this.cache.get(sql);
    try {
      st.bind(params as never);
      return st.step() ? this.cache.row<T>(st) : undefined;
    } finally {
      st.reset();
    }
  }

  /**
   * Runs fn in one transaction. fn must be synchronous and deterministic in its writes:
   * its statements are journaled and replayed verbatim. Resolves once they are fsynced.
   */
  write<T>(fn: (tx: WriteTx) => T): Promise<T> {
    if (this.broken) return Promise.reject(new StoreUnavailableError(`storage is read-only after a write failure: ${this.broken.message}`));
    const stmts: Statement[] = [];
    const tx: WriteTx = {
      run: (sql, params = []) => {
        runStatement(this.cache, sql, params);
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
      return Promise.reject(e);
    }
    if (stmts.length === 0) return Promise.resolve(result);
    this.writes += 1;
    return this.journal.append(encodeTx(stmts)).then(
      () => result,
      (e: Error) => {
        if (!this.broken) {
          this.broken = e;
          this.opts.log.error(`journal write failed; refusing further writes until restart: ${e.message}`);
        }
        throw new StoreUnavailableError(`could not make the write durable: ${e.message}`);
      },
    );
  }

  get journalBytes(): number {
    return this.journal.segmentBytes;
  }

  /** Recent journal fdatasync durations. */
  get syncTimes(): ReturnType<SyncTimes['summary']> {
    return this.journal.syncTimes.summary();
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
    if (this.journal.segmentBytes >= this.opts.snapshotJournalBytes && !this.snapshotting) {
      this.snapshot().catch((e: Error) => this.opts.log.error(`snapshot failed: ${e.message}`));
    }
  }

  /** Takes a snapshot now (or joins the one in progress). */
  snapshot(onMainThread = false): Promise<SnapshotResult> {
    if (!this.snapshotting) {
      this.snapshotting = this.takeSnapshot(onMainThread).finally(() => {
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
    this.prune();
    this.lastSnapshot = result;
    this.opts.log.info('snapshot written', { ...result });
    return result;
  }

  private afterExport(): void {
    this.cache.forget();
    tuneConnection(this.db);
    for (const hook of this.reopenHooks) hook(this.db);
  }

  /** Keeps the newest two snapshots and every journal segment the older of them still needs. */
  private prune(): void {
    const snaps = listSnapshots(this.opts.dir);
    if (snaps.length === 0) return;
    const keep = snaps.slice(-2);
    const oldestKept = keep[0];
    for (const g of snaps) if (g < oldestKept) unlinkQuiet(path.join(this.opts.dir, snapshotName(g)));
    for (const g of listSegments(this.opts.dir)) if (g < oldestKept) unlinkQuiet(path.join(this.opts.dir, segmentName(g)));
  }

  /** Flushes the journal, writes a final snapshot, stops a snapshot thread still running. */
  async close(finalSnapshot = true): Promise<void> {
    if (finalSnapshot && !this.broken) {
      try {
        // A snapshot under way finishes first; the final one is exported here: nothing else needs the event loop now.
        await this.snapshotting?.catch(() => undefined);
        await this.snapshot(true);
      } catch (e) {
        this.opts.log.error(`final snapshot failed: ${(e as Error).message}`);
      }
    }
    await this.journal.close();
    const r = this.replica;
    this.replica = undefined;
    if (r) await r.terminate();
    this.cache.clear();
    this.db.close();
  }
}

function unlinkQuiet(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    /* already gone */
  }
}

function removeTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) if (name.includes('.tmp-')) unlinkQuiet(path.join(dir, name));
}
