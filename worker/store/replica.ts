// Snapshot replica, built on demand: a worker thread that rebuilds the database from the files
// (newest snapshot plus every journal segment before `upToGen`), exports it as snapshot
// `upToGen`, and exits. sql.js export() blocks for hundreds of ms on a large database; doing it
// here keeps the worker's event loop free. Building it per snapshot, rather than keeping a live
// copy fed with every transaction, keeps that cost off the ingest path (a postMessage and a
// second apply per write) and the second copy of the database out of memory between snapshots.
import { parentPort, workerData } from 'node:worker_threads';
import { runThisThreadInBackground } from '../threadPriority';
import { recover } from './recovery';
import { createSchema } from './schema';
import { writeSnapshot } from './snapshot';
import { loadSqlJs } from './sqlite';

export interface ReplicaData {
  dir: string;
  upToGen: number;
}

export type ReplicaReply =
  | { type: 'snapshotted'; gen: number; bytes: number; recordsReplayed: number; exportMs: number; writeMs: number }
  | { type: 'failed'; gen: number; error: string };

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('replica must run in a worker thread');
  runThisThreadInBackground();
  const { dir, upToGen } = workerData as ReplicaData;
  const SQL = await loadSqlJs();
  const { db, report } = recover(SQL, dir, { upToGen, quarantine: false, emptySchema: createSchema });
  // The live database holds every record; a rebuild that missed one must not become the snapshot.
  if (report.problems.length > 0 || report.recordsFailed > 0) {
    throw new Error(`the files do not rebuild cleanly: ${report.problems.slice(0, 3).join('; ')}`);
  }
  const t0 = performance.now();
  const bytes = db.export();
  db.close();
  const exportMs = performance.now() - t0;
  const t1 = performance.now();
  await writeSnapshot(dir, upToGen, bytes);
  port.postMessage({ type: 'snapshotted', gen: upToGen, bytes: bytes.length, recordsReplayed: report.recordsReplayed, exportMs, writeMs: performance.now() - t1 } satisfies ReplicaReply);
}

main().catch((e: Error) => {
  parentPort?.postMessage({ type: 'failed', gen: (workerData as ReplicaData).upToGen, error: e.message } satisfies ReplicaReply);
});
