// The keyword lists' warm-up (listWarmer.ts) in a child process: it opens the database from its
// files read-only (as recovery does), ranks the commonest words' matches one statement each at low
// priority, sends each list as it is made, then the vocabulary counts, and exits (the rows' lengths
// it reads to rank are not sent: the worker reads its own from start, service.ts). On the worker's event loop the same work took 12 s of CPU at 100k, and it
// filled the worker's page cache and heap; a thread's memory stayed in the worker's RSS after it
// exited (70 MB at 100k): a process gives all of it back. Rows written or deleted after the files
// it read are handled as for any list (termLists.ts, topK.ts); files that do not replay whole are
// not used.
import { keepHeapSmall } from '../memory';
import { StatementCache } from '../store/apply';
import type { Param } from '../store/records';
import { pagedFiles, recover } from '../store/recovery';
import { createSchema } from '../store/schema';
import { loadSqlJs } from '../store/sqlite';
import type { Row } from '../store/store';
import { runAllThreadsInBackground } from '../threadPriority';
import { register } from './bm25';
import { ListWarmer } from './listWarmer';
import { exportLists } from './termLists';

/** What the worker passes (as JSON, the first argument). */
export interface WarmProcessData {
  dir: string;
  terms: number;
  pageCacheBytes: number;
}

export type WarmProcessMessage =
  | { type: 'lists'; lists: ReturnType<typeof exportLists>['lists'] }
  | { type: 'done'; vocabulary: ReturnType<typeof exportLists>['vocabulary']; ms: number }
  | { type: 'failed'; error: string };

function send(m: WarmProcessMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send?.(m, undefined, undefined, (e) => (e ? reject(e) : resolve())) ?? reject(new Error('no IPC channel')));
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('the list warm-up runs as a child of the worker');
  // The worker going away closes the channel: nothing is left to warm for.
  process.on('disconnect', () => process.exit(0));
  runAllThreadsInBackground(); // V8's helper threads too: they compile and collect for it
  // Most of what it allocates is garbage once a list is sent: the worker's heap settings (a young
  // generation kept at its first size, an old one grown by small steps) collect it sooner. At 100k
  // records its peak RSS went from 167-175 MB to 137-140 MB, in the same time (11-20 s, loaded).
  keepHeapSmall();
  const t0 = performance.now();
  const { dir, terms, pageCacheBytes } = JSON.parse(process.argv[2] ?? '{}') as WarmProcessData;
  const SQL = await loadSqlJs();
  // It only reads: the index merges a stop left in the journal would be held here as dirty chunks.
  const { db, report } = recover(SQL, dir, { quarantine: false, emptySchema: createSchema, pageCacheBytes, skipIndexMerges: true });
  try {
    // Lists stand for every row up to their highest id (the worker merges in only rows after it):
    // from files missing a write in the middle (a journal pruned while this process read them, a
    // damaged record), a list would hide that write's rows. The worker then warms on its own.
    if (report.lost.length > 0) throw new Error(`the files read were incomplete: ${report.lost.join('; ')}`);
    register(db);
    const cache = new StatementCache(db);
    const reader = {
      all: <T = Row>(sql: string, params: Param[] = []) => cache.rows<T>(sql, params),
      get: <T = Row>(sql: string, params: Param[] = []) => cache.first<T>(sql, params),
    };
    const posted = new Set<string>();
    const steps = new ListWarmer(reader, terms, undefined, { stepRows: Infinity }).steps();
    for (let r = steps.next(); ; r = steps.next()) {
      const lists = exportLists(reader).lists.filter((e) => !posted.has(e.key));
      for (const e of lists) posted.add(e.key);
      if (lists.length > 0) await send({ type: 'lists', lists });
      if (r.done) break;
    }
    await send({ type: 'done', vocabulary: exportLists(reader).vocabulary, ms: performance.now() - t0 });
  } finally {
    db.close();
    pagedFiles.get(db)?.close();
  }
}

main().then(
  () => process.disconnect?.(),
  async (e: Error) => {
    await send({ type: 'failed', error: e.message }).catch(() => undefined);
    process.disconnect?.();
  },
);
