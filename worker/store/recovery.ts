// Start-up recovery, shared by the worker, its snapshot replica and `claude-mem recover`, so all
// reach the same state: newest snapshot that checks out, then every journal record after it, in order.
// With the page cache (pageCacheBytes), the deltas after that snapshot are laid over it first
// (chain.ts) and the journals replay from the newest delta taken; without it, deltas are not read
// (every journal segment they cover is still kept, store.ts prune) and the result is the same.
//
// Recovery never deletes: a damaged snapshot is moved to db/damaged/, a damaged journal is copied
// there (the original stays: its intact records are still replayed). What could not be rebuilt is
// listed in `lost`; any entry there means acknowledged data is missing, and the worker then starts
// read-only (store.ts) until a human runs `claude-mem recover`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { readSegmentOf } from './coldJournal';
import { listSegments, segmentName } from './journal';
import { decodeTx, type Statement } from './records';
import { listSnapshots, openSnapshot, snapshotBytesOf, snapshotName } from './snapshot';
import { coldName, thawSnapshot, thawToMemory } from './coldSnapshot';
import { LazyFileBytes } from './lazyFile';
import { PagedBytes, splitPageCache } from './pagedFile';
import { openChain } from './chain';
import { deltaName, listDeltas } from './delta';
import { applyTx, StatementCache } from './apply';
import { tuneConnection } from './sqlite';

/**
 * A statement a transaction that deletes people's text carries (store.ts WriteTx.erased): harmless on
 * replay, and it tells a start after a crash that a compaction was still due.
 */
export const ERASE_MARK = "SELECT 'claude-mem:erase'";
const ERASE_MARK_JSON = Buffer.from(JSON.stringify(ERASE_MARK));

/** When the background pass starts reading the rest of the snapshot (after the worker answers). */
const BACKGROUND_LOAD_DELAY_MS = 2000;

export interface RecoveryReport {
  snapshotGen: number | null;
  segmentsReplayed: number[];
  recordsReplayed: number;
  recordsFailed: number;
  /** What could not be read, one line each (including what was recovered another way). Empty on a clean start. */
  problems: string[];
  /** Deltas laid over the snapshot (page cache only), in order; the journals replay from the last. */
  deltasApplied: number[];
  /** Acknowledged data that could not be rebuilt, one line each. Non-empty: storage is degraded. */
  lost: string[];
  /** Set when no snapshot or journal start was usable and the survivors were replayed onto an empty schema. */
  emptySchema: boolean;
  /** Replayed transactions that deleted people's text (their compaction may still be due). */
  erasures: number;
}

export interface RecoveryOptions {
  /** Replay only segments below this gen (the replica stops where the live worker starts writing). */
  upToGen?: number;
  /** Move damaged snapshots aside and copy damaged journals to damaged/ (the worker does; the replica must not). */
  quarantine: boolean;
  /**
   * Creates the current schema on an empty database. Used when the start of the data is lost (no
   * usable snapshot and the journals that built the lost ones are gone), so the surviving records
   * replay onto tables rather than fail one by one.
   */
  emptySchema?: (db: Database) => void;
  /** Load the snapshot fully now instead of lazily (claude-mem recover exports the result at once). */
  eager?: boolean;
  /**
   * Serve the snapshot through a bounded page cache of this many bytes (pagedFile.ts) instead of
   * loading it whole (on by default: CLAUDE_MEM_PAGE_CACHE_MB, store.ts); 0 or absent: LazyFileBytes.
   */
  pageCacheBytes?: number;
  /** With the page cache: a chain at most this large is read whole and checked at open (chain.ts; tests lower it). */
  verifyAtOpenBytes?: number;
  /**
   * Leave out the records that only merge a full-text index (isIndexMergeTx): a reader that never
   * writes (the list warm-up) gets the same rows and words without rewriting the index. With the
   * page cache every chunk a merge step touches is held dirty until a checkpoint, which a reader
   * never takes: at 100k records the 493 steps one stop left in the journal held 99 MB.
   */
  skipIndexMerges?: boolean;
}

/** FTS4's layout commands: they rewrite a full-text index's segments, never its rows or words. */
const INDEX_MERGE = /^INSERT INTO (\w+)\(\1\) VALUES \('(?:merge=\d+,\d+|automerge=\d+|optimize)'\)$/;

/** Whether a journal record does nothing but merge full-text indexes (ftsMerge.ts writes these). */
export function isIndexMergeTx(stmts: Statement[]): boolean {
  return stmts.length > 0 && stmts.every(([sql, params]) => params.length === 0 && INDEX_MERGE.test(sql));
}

/** The page cache under a connection opened with pageCacheBytes (store.ts closes and rebases it). */
export const pagedFiles = new WeakMap<Database, PagedBytes>();

export function recover(SQL: SqlJsStatic, dir: string, opts: RecoveryOptions): { db: Database; nextGen: number; report: RecoveryReport } {
  const report: RecoveryReport = { snapshotGen: null, segmentsReplayed: [], recordsReplayed: 0, recordsFailed: 0, problems: [], lost: [], emptySchema: false, erasures: 0, deltasApplied: [] };
  let db: Database | undefined;
  let baseGen = 0;
  const snaps = listSnapshots(dir).reverse();
  for (const gen of snaps) {
    if (opts.upToGen !== undefined && gen > opts.upToGen) continue;
    const file = path.join(dir, snapshotName(gen));
    const cold = path.join(dir, coldName(gen));
    // The .db first; an older snapshot may be kept only compressed (coldSnapshot.ts), or both.
    const forms = [fs.existsSync(file) && file, fs.existsSync(cold) && cold].filter((f): f is string => !!f);
    for (const form of forms) {
      try {
        let inMemory: Uint8Array | undefined;
        if (form === cold) {
          // The owner writes the .db back and serves it as usual; other readers must not write the dir.
          if (opts.quarantine && !opts.eager) thawSnapshot(dir, gen);
          else inMemory = snapshotBytesOf(thawToMemory(dir, gen));
        }
        if (inMemory) {
          const candidate = new SQL.Database(inMemory);
          candidate.exec('SELECT count(*) FROM sqlite_master');
          db = candidate;
          baseGen = gen;
        } else if (opts.pageCacheBytes && !opts.eager) {
          // Headers and CRC lists only (a small chain is read whole): each chunk is checked when read.
          const { db: candidate, headGen, deltas } = openPaged(SQL, dir, gen, opts, report);
          db = candidate;
          baseGen = headGen;
          report.deltasApplied = deltas;
        } else {
          // Verified whole, then read again lazily as SQLite asks for pages (snapshot.ts, lazyFile.ts);
          // a packed snapshot is inflated whole.
          const bytes = openSnapshot(file);
          if (opts.eager && bytes instanceof LazyFileBytes) bytes.loadAll();
          const candidate = new SQL.Database(bytes);
          candidate.exec('SELECT count(*) FROM sqlite_master');
          // The rest is read in the background once start-up is done, then the file is closed.
          if (bytes instanceof LazyFileBytes) bytes.loadInBackground(BACKGROUND_LOAD_DELAY_MS);
          db = candidate;
          baseGen = gen;
        }
        report.snapshotGen = gen;
        break;
      } catch (e) {
        report.problems.push(`snapshot ${path.basename(form)} unusable (${(e as Error).message}); trying an older one`);
        if (opts.quarantine) {
          quarantine(dir, form, true);
          // A .db thawed from this cold copy and found unusable: both go aside.
          if (form === cold && fs.existsSync(file)) quarantine(dir, file, true);
        }
      }
    }
    if (db) break;
  }

  const all = listSegments(dir);
  // Without a snapshot the journals must reach back to the first one ever written (gen 1).
  const from = db ? baseGen : 1;
  const upTo = opts.upToGen ?? Infinity;
  const segments = all.filter((g) => g >= from && g < upTo);
  if (!db) {
    db = new SQL.Database();
    if (all.length > 0 && all[0] > 1) {
      const first = all[0];
      report.lost.push(
        `no usable snapshot, and the journals before ${segmentName(first)} were compacted into snapshots that are damaged or gone: what was saved before them cannot be rebuilt`,
      );
      if (opts.emptySchema) {
        opts.emptySchema(db);
        report.emptySchema = true;
      }
    } else if (opts.emptySchema && segments.length > 0 && !journalsCreateSchema(dir, segments)) {
      // The journals reach back to the first one but do not create the schema: the first snapshot
      // held it (a fresh dir's first start writes the current schema into it, store.ts), and that
      // snapshot is damaged or gone. The journals replay onto the schema it held.
      opts.emptySchema(db);
    }
  }
  // A paged database shares the budget with SQLite's own page cache (pagedFile.ts).
  tuneConnection(db, pagedFiles.has(db) ? splitPageCache(opts.pageCacheBytes ?? 0).sqliteBytes : undefined);

  // Every gen from the base to the newest segment must be there (segments are numbered without gaps).
  // A snapshot's (or delta's) own segment is created before it (rotation), so it must be there too.
  const last = Math.min(Math.max(all.length > 0 ? all[all.length - 1] : -1, report.snapshotGen !== null ? baseGen : -1), upTo - 1);
  const expectedFrom = report.snapshotGen !== null ? baseGen : (segments[0] ?? from);
  const have = new Set(all);
  const missing: number[] = [];
  for (let g = expectedFrom; g <= last; g++) if (!have.has(g)) missing.push(g);
  if (missing.length > 0) report.lost.push(`journal ${missing.map(segmentName).join(', ')} missing: the writes it held cannot be rebuilt`);

  const cache = new StatementCache(db);
  for (const gen of segments) {
    // The .log, or its compressed form when it is only a checkpoint's backup (coldJournal.ts).
    const read = readSegmentOf(dir, gen);
    const file = read.file;
    report.problems.push(...read.problems);
    if (read.problems.length > 0 && opts.quarantine) quarantine(dir, file, false);
    const isLast = gen === segments[segments.length - 1] && opts.upToGen === undefined;
    if (read.damagedStretches > 0) report.lost.push(`${path.basename(file)}: ${read.damagedStretches} damaged stretch(es) in the middle; the writes recorded there cannot be rebuilt`);
    // A crash can cut short only the last write of the segment being written; a closed segment was whole.
    if (read.tail && !(isLast && read.tail.torn)) report.lost.push(`${path.basename(file)}: ${read.tail.bytes} damaged bytes at its end; the writes recorded there cannot be rebuilt`);
    // A torn tail is cut off (its copy is in damaged/): new writes go to a later segment, and a
    // torn tail in a segment that is no longer the last would look like damage on a later start.
    if (read.tail && isLast && read.tail.torn && opts.quarantine && file.endsWith('.log')) truncateQuiet(file, read.tail.offset);
    for (const payload of read.records) {
      try {
        const stmts = decodeTx(payload);
        if (!opts.skipIndexMerges || !isIndexMergeTx(stmts)) applyTx(cache, stmts);
        report.recordsReplayed += 1;
        if (payload.includes(ERASE_MARK_JSON)) report.erasures += 1;
      } catch (e) {
        report.recordsFailed += 1;
        report.problems.push(`${segmentName(gen)}: a record could not be replayed (${(e as Error).message})`);
      }
    }
    report.segmentsReplayed.push(gen);
  }
  cache.clear();
  if (report.emptySchema) adoptOrphans(db, report);
  if (report.recordsFailed > 0 && !report.emptySchema) report.lost.push(`${report.recordsFailed} journal record(s) could not be replayed`);
  const lastSeg = all.length > 0 ? all[all.length - 1] : -1;
  const lastSnap = listSnapshots(dir).pop() ?? 0;
  const lastDelta = listDeltas(dir).pop() ?? 0;
  const nextGen = Math.max(baseGen, lastSnap, lastDelta, lastSeg + 1, 1);
  return { db, nextGen, report };
}

/**
 * Whether the first record of these journals creates tables (a store whose schema was journaled:
 * migrations, or the newest schema written as one record), false when it writes rows or there is none.
 */
function journalsCreateSchema(dir: string, segments: number[]): boolean {
  for (const gen of segments) {
    const first = readSegmentOf(dir, gen).records[0];
    if (!first) continue;
    try {
      return /^\s*CREATE\s/i.test(decodeTx(first)[0]?.[0] ?? '');
    } catch {
      return true; // not readable: replayed as it is, and reported there
    }
  }
  return false;
}

/**
 * Opens snapshot `gen` with the deltas after it through the page cache. A delta found damaged (at
 * open, or by the first query) is moved aside and the chain is built again without it.
 */
function openPaged(SQL: SqlJsStatic, dir: string, gen: number, opts: RecoveryOptions, report: RecoveryReport): { db: Database; headGen: number; deltas: number[] } {
  const skip = new Set<string>();
  for (;;) {
    const deltaGens = listDeltas(dir).filter((d) => d > gen && (opts.upToGen === undefined || d <= opts.upToGen) && !skip.has(path.join(dir, deltaName(d))));
    const problems = { notes: [] as string[], damaged: [] as string[] };
    const chain = openChain(dir, gen, deltaGens, problems, opts.verifyAtOpenBytes);
    report.problems.push(...problems.notes);
    for (const f of problems.damaged) {
      skip.add(f);
      if (opts.quarantine) quarantine(dir, f, true);
    }
    const paged = new PagedBytes(chain, splitPageCache(opts.pageCacheBytes ?? 0).chunkBytes);
    let damaged: string | undefined;
    paged.onDamage = (file) => (damaged = file);
    try {
      const db = new SQL.Database(paged as unknown as Uint8Array);
      try {
        db.exec('SELECT count(*) FROM sqlite_master');
      } catch (e) {
        db.close();
        throw e;
      }
      paged.onDamage = undefined;
      pagedFiles.set(db, paged);
      return { db, headGen: chain.headGen, deltas: chain.deltas };
    } catch (e) {
      paged.close();
      // A damaged delta: build the chain again without it. Anything else: this snapshot is unusable.
      if (!damaged || !path.basename(damaged).startsWith('delta-') || skip.has(damaged)) throw e;
      report.problems.push(`${path.basename(damaged)} unusable (${(e as Error).message}); left out, the journals replay what it held`);
      skip.add(damaged);
      if (opts.quarantine) quarantine(dir, damaged, true);
    }
  }
}

/**
 * Records replayed onto an empty schema may belong to sessions whose creation was lost: give each
 * such session id a placeholder row (platform "recovered"), so the records are listed and deletable.
 */
function adoptOrphans(db: Database, report: RecoveryReport): void {
  const kids = ['observations', 'session_summaries', 'user_prompts'].filter((t) => db.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${t}'`).length > 0);
  if (kids.length === 0 || db.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'`).length === 0) return;
  const union = kids.map((t) => `SELECT session_id, project, created_at FROM ${t}`).join(' UNION ALL ');
  try {
    db.run(
      `INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at, completed_at, completion_reason)
       SELECT session_id, 'recovered', 'recovered-' || session_id, min(project), 'completed', min(created_at), max(created_at), max(created_at), 'recovered'
       FROM (${union}) WHERE session_id NOT IN (SELECT id FROM sessions) GROUP BY session_id`,
    );
    const n = db.getRowsModified();
    if (n > 0) report.problems.push(`${n} session(s) whose start was lost were given placeholder rows (platform "recovered")`);
  } catch (e) {
    report.problems.push(`could not add placeholder sessions: ${(e as Error).message}`);
  }
}

/** One sentence for people: what is wrong, and what to do. */
export function degradedSentence(report: RecoveryReport): string {
  const n = report.lost.length;
  return (
    `Memory storage is degraded: ${report.lost[0]}${n > 1 ? ` (and ${n - 1} more problem${n > 2 ? 's' : ''})` : ''}. ` +
    `The worker is read-only so that nothing more is lost; every file it could not use is kept in db/damaged/. ` +
    `Stop the worker and run \`claude-mem recover\` to see what can be rebuilt, then \`claude-mem recover --accept-loss\` to start with it.`
  );
}

function truncateQuiet(file: string, length: number): void {
  try {
    const fd = fs.openSync(file, 'r+');
    try {
      fs.ftruncateSync(fd, length);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* read-only data dir: the next start reads the same tail and judges it the same way */
  }
}

/** Damaged files are kept for a human: snapshots are moved aside, journals copied. */
function quarantine(dir: string, file: string, move: boolean): void {
  try {
    const dest = path.join(dir, 'damaged');
    fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
    const target = path.join(dest, `${path.basename(file)}.${Date.now()}`);
    if (move) fs.renameSync(file, target);
    else {
      // A degraded worker started again finds the same damaged journal: one copy of each version is enough.
      const size = fs.statSync(file).size;
      const base = `${path.basename(file)}.`;
      if (fs.readdirSync(dest).some((n) => n.startsWith(base) && fs.statSync(path.join(dest, n)).size === size)) return;
      fs.copyFileSync(file, target);
    }
  } catch {
    /* read-only data dir: leave it where it is */
  }
}
