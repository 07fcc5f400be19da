// Start-up recovery, shared by the worker and its snapshot replica so both reach the same state:
// newest snapshot that checks out, then every journal record after it, in order.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { listSegments, readSegment, segmentName } from './journal';
import { decodeTx } from './records';
import { listSnapshots, openSnapshot, snapshotName } from './snapshot';
import { applyTx, StatementCache } from './apply';
import { tuneConnection } from './sqlite';

/** When the background pass starts reading the rest of the snapshot (after the worker answers). */
const BACKGROUND_LOAD_DELAY_MS = 2000;

export interface RecoveryReport {
  snapshotGen: number | null;
  segmentsReplayed: number[];
  recordsReplayed: number;
  recordsFailed: number;
  /** What could not be recovered, one line each. Empty on a clean start. */
  problems: string[];
}

export interface RecoveryOptions {
  /** Replay only segments below this gen (the replica stops where the live worker starts writing). */
  upToGen?: number;
  /** Move damaged snapshots aside and copy damaged journals to damaged/ (the worker does; the replica must not). */
  quarantine: boolean;
}

export function recover(SQL: SqlJsStatic, dir: string, opts: RecoveryOptions): { db: Database; nextGen: number; report: RecoveryReport } {
  const report: RecoveryReport = { snapshotGen: null, segmentsReplayed: [], recordsReplayed: 0, recordsFailed: 0, problems: [] };
  let db: Database | undefined;
  let baseGen = 0;
  const snaps = listSnapshots(dir).reverse();
  for (const gen of snaps) {
    const file = path.join(dir, snapshotName(gen));
    try {
      // Verified whole, then read again lazily as SQLite asks for pages (snapshot.ts, lazyFile.ts).
      const bytes = openSnapshot(file);
      const candidate = new SQL.Database(bytes);
      candidate.exec('SELECT count(*) FROM sqlite_master');
      // The rest is read in the background once start-up is done, then the file is closed.
      bytes.loadInBackground(BACKGROUND_LOAD_DELAY_MS);
      db = candidate;
      baseGen = gen;
      report.snapshotGen = gen;
      break;
    } catch (e) {
      report.problems.push(`snapshot ${snapshotName(gen)} unusable (${(e as Error).message}); trying an older one`);
      if (opts.quarantine) quarantine(dir, file, true);
    }
  }
  if (!db) db = new SQL.Database();
  tuneConnection(db);

  const all = listSegments(dir);
  const segments = all.filter((g) => g >= baseGen && (opts.upToGen === undefined || g < opts.upToGen));
  if (snaps.length > 0 && report.snapshotGen === null && all.length > 0 && all[0] > 0) {
    report.problems.push(`no usable snapshot; journal segments before ${segmentName(all[0])} were already compacted, so older data is lost`);
  }
  const cache = new StatementCache(db);
  for (const gen of segments) {
    const file = path.join(dir, segmentName(gen));
    const read = readSegment(file);
    report.problems.push(...read.problems);
    if (read.problems.length > 0 && opts.quarantine) quarantine(dir, file, false);
    for (const payload of read.records) {
      try {
        applyTx(cache, decodeTx(payload));
        report.recordsReplayed += 1;
      } catch (e) {
        report.recordsFailed += 1;
        report.problems.push(`${segmentName(gen)}: a record could not be replayed (${(e as Error).message})`);
      }
    }
    report.segmentsReplayed.push(gen);
  }
  cache.clear();
  const lastSeg = all.length > 0 ? all[all.length - 1] : -1;
  const lastSnap = listSnapshots(dir).pop() ?? 0;
  const nextGen = Math.max(baseGen, lastSnap, lastSeg + 1, 1);
  return { db, nextGen, report };
}

/** Damaged files are kept for a human: snapshots are moved aside, journals copied. */
function quarantine(dir: string, file: string, move: boolean): void {
  try {
    const dest = path.join(dir, 'damaged');
    fs.mkdirSync(dest, { recursive: true, mode: 0o700 });
    const target = path.join(dest, `${path.basename(file)}.${Date.now()}`);
    if (move) fs.renameSync(file, target);
    else fs.copyFileSync(file, target);
  } catch {
    /* read-only data dir: leave it where it is */
  }
}
