// The indexer's idle-time gate through the real search service, with an in-process embedder that
// counts its calls: with an hour's start delay and quiet time, writes embed nothing; a semantic
// query embeds its own text and wakes the backlog; drain() embeds at once. The worker-level test
// (real model process, the delays themselves) is test/integration/search-idle-indexing.test.ts.
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

async function setup() {
  const dir = tempDir('search-gate-');
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  const events = new EventBus();
  const embedder = lettersEmbedder();
  const service = new SearchService(
    { config: { dataDir: dir }, store, events, log: nullLogger },
    {
      embedders: { query: embedder, index: embedder },
      settings: { search: { ...DEFAULT_SEARCH_SETTINGS, indexStartDelayMs: HOUR, indexQuietMs: HOUR, keywordWarmTerms: 0 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] },
    },
  );
  const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
  service.start();
  const save = async (text: string) => (await lifecycle.saveMemory({ text, project: 'p' })).id as number;
  const close = async () => {
    await service.stop();
    await store.close(false);
  };
  return { service, embedder, save, close };
}

describe('the indexer waits for idle time', () => {
  it('writes inside the start delay and quiet time embed nothing; drain() embeds them all at once', async () => {
    const s = await setup();
    try {
      for (const t of ['alpha note', 'beta note', 'gamma note']) await s.save(t);
      // Let the kicks' passes run up to the gate: still nothing embedded.
      for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual(s.embedder.texts, [], 'the gate held the writes back');
      assert.equal(s.service.status().pending, 3);
      await s.service.indexer?.drain();
      assert.equal(s.service.status().pending, 0);
      assert.equal(s.embedder.texts.length, 3, 'each record embedded once');
    } finally {
      await s.close();
    }
  });

  it('a semantic query embeds its text and wakes the backlog, which is then found', async () => {
    const s = await setup();
    try {
      const id = await s.save('zebra zoo zigzag');
      await s.save('plain words only');
      const first = await s.service.searcher.search({ query: 'zzz', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 5, offset: 0 }, Date.now());
      assert.equal(first.modeUsed, 'semantic');
      assert.ok(s.embedder.texts.includes('zzz'), 'the query was embedded at once');
      await until(() => s.service.status().pending === 0, 10_000, 'the backlog woken by the query');
      const again = await s.service.searcher.search({ query: 'zzz', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 5, offset: 0 }, Date.now());
      assert.equal(again.items[0]?.id, id);
    } finally {
      await s.close();
    }
  });
});
