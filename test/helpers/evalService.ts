// A search service over a fresh store filled by `load`, embedded to completion: what the search
// evals (test/eval/search-eval*.test.ts) measure. Closed by `close`.
import * as path from 'node:path';
import { EventBus } from '../../worker/events';
import { nullLogger } from '../../common/node/log';
import type { Embedder } from '../../worker/search/embed/types';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { importSessions, parseImport } from '../../worker/transfer';
import { tempDir } from './worker';

export interface EvalService {
  service: SearchService;
  store: Store;
  close(): Promise<void>;
}

export async function openEvalService(prefix: string, load: (s: Store) => Promise<void>, embedder: Embedder, search: Partial<SearchSettings> = {}): Promise<EvalService> {
  const dir = tempDir(prefix);
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  await load(store);
  const service = new SearchService(
    { config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger },
    { embedders: { query: embedder, index: embedder }, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, indexBatchSize: 256, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
  );
  service.start();
  await service.indexer?.drain();
  await service.identifiersReady();
  return {
    service,
    store,
    async close() {
      await service.stop();
      await store.close(false);
    },
  };
}

/** Loads an export document (the held-out sets' and dev2's history.json) through the import code. */
export function importDoc(doc: unknown): (s: Store) => Promise<void> {
  return async (s) => {
    await s.write((tx) => importSessions(tx, parseImport(doc)));
  };
}
