// The backlog count (records without a vector), which a hybrid query's "catching up" notice and
// the status ask for: counting scans the whole vectors table, so the indexer counts once and then
// takes its own batches off; a write, a delete or a rescan makes it count again. Through the real
// service and store, with an in-process embedder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { nullLogger } from '../../common/node/log';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { EventBus } from '../../worker/events';
import { Lifecycle } from '../../worker/lifecycle';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { lettersEmbedder } from '../helpers/lettersEmbedder';
import { tempDir, until } from '../helpers/worker';

const HOUR = 3600_000;

const letters = lettersEmbedder();

describe('the backlog count', () => {
  it('is counted once, then kept from the indexer batches (exact, no recount); a write or a delete counts again', async () => {
    const dir = tempDir('search-pending-');
    const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    const events = new EventBus();
    const service = new SearchService(
      { config: { dataDir: dir }, store, events, log: nullLogger },
      {
        embedders: { query: letters, index: letters },
        // Two records a batch, and nothing before a wake: the count is taken with the whole backlog waiting.
        settings: { search: { ...DEFAULT_SEARCH_SETTINGS, indexBatchSize: 2, indexStartDelayMs: HOUR, indexQuietMs: HOUR, keywordWarmTerms: 0 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] },
      },
    );
    const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
    service.start();
    const indexer = service.indexer as NonNullable<typeof service.indexer>;
    const exact = () => Number(store.get<{ n: number }>(`SELECT (SELECT count(*) FROM observations) - (SELECT count(*) FROM vectors WHERE model = ?) AS n`, [indexer.model])?.n);
    // Every backlog count (records less their vectors) from here on.
    let counts = 0;
    const get = store.get.bind(store);
    store.get = ((sql: string, params?: unknown[]) => {
      if (/\(SELECT count\(\*\) FROM observations\) \+/i.test(sql)) counts++;
      return get(sql, params as never);
    }) as typeof store.get;
    try {
      const ids: number[] = [];
      for (const t of ['alpha note', 'beta note', 'gamma note', 'delta note', 'epsilon note']) ids.push((await lifecycle.saveMemory({ text: t, project: 'p' })).id);
      assert.equal(indexer.pendingCount(), 5);
      assert.equal(counts, 1, 'counted once');
      indexer.wake();
      await until(() => indexer.embedded === 5, 10_000, 'every record embedded');
      assert.equal(indexer.pendingCount(), 0, 'the batches were taken off');
      assert.equal(counts, 1, 'three batches and the count still from the first time');
      assert.equal(exact(), 0);

      await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [ids[0]]));
      events.emit('observation_deleted', { id: ids[0], project: 'p' });
      await lifecycle.saveMemory({ text: 'zeta note', project: 'p' });
      assert.equal(indexer.pendingCount(), 1, 'the new record, counted again after the write');
      assert.equal(counts, 2);
      assert.equal(indexer.pendingCount(), exact());
      assert.equal(counts, 2, 'asked again: no recount');
    } finally {
      await service.stop();
      await store.close(false);
    }
  });
});
