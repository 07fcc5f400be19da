// Snapshot replica: a worker thread that keeps its own copy of the database by applying
// every durable journal record, and exports snapshots on request. sql.js export() blocks
// for hundreds of ms on a large database; doing it here keeps the worker's event loop free.
import { parentPort, workerData } from 'node:worker_threads';
import { applyTx, StatementCache } from './apply';
import { decodeTx } from './records';
import { recover } from './recovery';
import { writeSnapshot } from './snapshot';
import { loadSqlJs, tuneConnection } from './sqlite';

export type ReplicaRequest = { type: 'records'; payloads: Uint8Array[] } | { type: 'snapshot'; gen: number };
export type ReplicaReply =
  | { type: 'ready'; recordsReplayed: number }
  | { type: 'snapshotted'; gen: number; bytes: number; exportMs: number; writeMs: number }
  | { type: 'failed'; gen?: number; error: string };

interface ReplicaData {
  dir: string;
  upToGen: number;
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('replica must run in a worker thread');
  const { dir, upToGen } = workerData as ReplicaData;
  const SQL = await loadSqlJs();
  const { db, report } = recover(SQL, dir, { upToGen, quarantine: false });
  let cache = new StatementCache(db);
  let chain: Promise<void> = Promise.resolve();
  const post = (m: ReplicaReply) => port.postMessage(m);
  post({ type: 'ready', recordsReplayed: report.recordsReplayed });

  port.on('message', (m: ReplicaRequest) => {
    if (m.type === 'records') {
      for (const p of m.payloads) {
        try {
          applyTx(db, cache, decodeTx(Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
        } catch (e) {
          // The live worker committed it, so this only fails if it failed there too at replay.
          post({ type: 'failed', error: `replica could not apply a record: ${(e as Error).message}` });
        }
      }
      return;
    }
    const t0 = performance.now();
    const bytes = db.export();
    cache = new StatementCache(db); // export() freed every prepared statement and reset the pragmas
    tuneConnection(db);
    const exportMs = performance.now() - t0;
    chain = chain.then(async () => {
      const t1 = performance.now();
      try {
        await writeSnapshot(dir, m.gen, bytes);
        post({ type: 'snapshotted', gen: m.gen, bytes: bytes.length, exportMs, writeMs: performance.now() - t1 });
      } catch (e) {
        post({ type: 'failed', gen: m.gen, error: (e as Error).message });
      }
    });
  });
}

main().catch((e: Error) => {
  parentPort?.postMessage({ type: 'failed', error: `replica start failed: ${e.message}` } satisfies ReplicaReply);
  process.exit(1);
});
