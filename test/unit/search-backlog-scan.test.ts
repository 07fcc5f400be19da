// How the indexer finds records without a vector: newest first, in id windows. Within a pass each
// batch goes on below the ids the batches before it checked, and above them for records added
// since, so no window is read again batch after batch (with 90,000 of 100,000 records embedded,
// that rescan cost the worker's thread 0.21-0.24 s a batch). Through the real service and store,
// with an in-process embedder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { nullLogger } from '../../common/node/log';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { EventBus } from '../../worker/events';
import { Lifecycle } from '../../worker/lifecycle';
import type { Embedder } from '../../worker/search/embed/types';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { lettersEmbedder } from '../helpers/lettersEmbedder';
import { tempDir, until } from '../helpers/worker';

const HOUR = 3600_000;

describe('the backlog scan', () => {
  it('reads each id window at most twice in a pass, and still finds records added during it', async () => {
    const dir = tempDir('search-backlog-scan-');
    const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    const events = new EventBus();
    const letters = lettersEmbedder();
    // The first batch waits until the test lets it go, so a record can be added mid-pass.
    let release: () => void = () => undefined;
    const firstBatch = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const gated: Embedder = {
      ...letters,
      async embed(texts) {
        if (calls++ === 0) await firstBatch;
        return letters.embed(texts);
      },
    };
    const service = new SearchService(
      { config: { dataDir: dir }, store, events, log: nullLogger },
      {
        embedders: { query: gated, index: gated },
        settings: { search: { ...DEFAULT_SEARCH_SETTINGS, indexBatchSize: 2, indexStartDelayMs: HOUR, indexQuietMs: HOUR, keywordWarmTerms: 0 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] },
      },
    );
    const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
    service.start();
    const indexer = service.indexer as NonNullable<typeof service.indexer>;
    const missing = () => Number(store.get<{ n: number }>(`SELECT (SELECT count(*) FROM observations) - (SELECT count(*) FROM vectors WHERE model = ?) AS n`, [indexer.model])?.n);
    // Every window the anti-join reads, as its (lo, hi] bounds.
    const windows: string[] = [];
    const all = store.all.bind(store);
    store.all = ((sql: string, params?: unknown[]) => {
      if (/NOT EXISTS \(SELECT 1 FROM vectors/.test(sql) && params) windows.push(`${String(params[0])}-${String(params[1])}`);
      return all(sql, params as never);
    }) as typeof store.all;
    try {
      // Four old records, then ids 20,001 on: eleven windows of 2,000 ids between them.
      for (const t of ['alpha', 'beta', 'gamma', 'delta']) await lifecycle.saveMemory({ text: `${t} note`, project: 'p' });
      await store.write((tx) => tx.run(`UPDATE sqlite_sequence SET seq = 20000 WHERE name = 'observations'`));
      for (const t of ['epsilon', 'zeta']) await lifecycle.saveMemory({ text: `${t} note`, project: 'p' });
      assert.equal(Number(store.get<{ m: number }>('SELECT max(id) AS m FROM observations')?.m), 20_002);
      indexer.wake();
      await until(() => calls === 1, 10_000, 'the first batch sent');
      const added = await lifecycle.saveMemory({ text: 'eta note', project: 'p' });
      release();
      await until(() => indexer.embedded === 7 && indexer.state !== 'indexing', 10_000, 'every record embedded');
      assert.equal(missing(), 0, 'nothing left without a vector');
      assert.ok(letters.texts.some((t) => t.includes('eta note')), `the record added mid-pass (id ${added.id}) was embedded`);
      const reads = new Map<string, number>();
      for (const w of windows) reads.set(w, (reads.get(w) ?? 0) + 1);
      const most = Math.max(...reads.values());
      assert.ok(most <= 2, `a window read ${most} times: ${JSON.stringify([...reads])}`);
      // Eleven windows from 20,002 down to 0, the new record's, and the last window of each batch read again.
      assert.ok(windows.length <= 16, `${windows.length} window reads: ${windows.join(' ')}`);
    } finally {
      release();
      await service.stop();
      await store.close(false);
    }
  });
});
