// The search service's wiring, with embedders that are real but not the local model: an
// OpenAI-compatible embeddings server on loopback (bag-of-words vectors), and a local model
// thread that cannot start. Covers background indexing from store events, semantic search
// through the remote embedder, deletes, reindex, the query cache, and the keyword fallback
// with a notice when the embedder is broken.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { EventBus } from '../../worker/events';
import { Lull } from '../../worker/lull';
import { Lifecycle } from '../../worker/lifecycle';
import { nullLogger } from '../../common/node/log';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { docLengths } from '../../worker/search/docLengths';
import { KINDS } from '../../worker/search/records';
import { identifierPartsOf } from '../../worker/search/identifiers';
import { keptFacts, priorsKept } from '../../worker/search/rowFacts';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

/** Background indexing as soon as a record is written (the idle-time gate has its own test: search-idle-indexing). */
const AT_ONCE = { indexStartDelayMs: 0, indexQuietMs: 0 };

const DIMS = 64;
let server: http.Server;
let url: string;
let calls = 0;

/** Bag of words hashed into 64 buckets: texts sharing words point the same way. */
function embed(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let h = 0;
    for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    v[h % DIMS] += 1;
  }
  return v;
}

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      calls++;
      const input = (JSON.parse(body) as { input: string[] }).input;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

async function setup(search: Partial<SearchSettings>, threadScript?: string, lull?: Lull) {
  const dir = tempDir('search-svc-');
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  const events = new EventBus();
  const service = new SearchService(
    { config: { dataDir: dir }, store, events, log: nullLogger, lull },
    { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, ...AT_ONCE, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] }, threadScript },
  );
  const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
  service.start();
  const save = async (text: string, project = 'p') => (await lifecycle.saveMemory({ text, project })).id as number;
  const close = async () => {
    await service.stop();
    await store.close(false);
  };
  return { store, service, save, close, events };
}

describe('with a remote embedder', () => {
  it('indexes new records in the background and answers semantic and hybrid queries', async () => {
    const s = await setup({ embeddings: 'remote', remoteUrl: url });
    try {
      const cake = await s.save('baking a chocolate cake with frosting');
      const deploy = await s.save('the deploy pipeline rolls back broken releases');
      const other = await s.save('chocolate frosting recipe notes', 'q');
      await until(() => s.service.status().pending === 0 && s.service.indexer?.state === 'idle', 10_000, 'indexing');
      const st = s.service.status();
      assert.equal(st.embeddings.provider, 'remote');
      assert.match(st.embeddings.model ?? '', /^remote:default@127\.0\.0\.1:\d+#t\d+$/);
      assert.equal(st.indexed.observations, 3);

      const sem = await s.service.searcher.search({ query: 'chocolate cake', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 5, offset: 0 });
      assert.equal(sem.modeUsed, 'semantic');
      assert.equal(sem.items[0].id, cake);
      const across = await s.service.searcher.search({ query: 'chocolate frosting', mode: 'semantic', filters: { kinds: ['observation', 'summary'] }, limit: 5, offset: 0 });
      assert.deepEqual(across.items.slice(0, 2).map((i) => i.id).sort(), [cake, other].sort());

      const before = calls;
      const hy1 = await s.service.searcher.search({ query: 'rolls back releases', mode: 'hybrid', filters: { kinds: ['observation'] }, limit: 5, offset: 0 });
      const hy2 = await s.service.searcher.search({ query: 'rolls back releases', mode: 'hybrid', filters: { kinds: ['observation'] }, limit: 5, offset: 0 });
      assert.equal(hy1.items[0].id, deploy);
      assert.deepEqual(hy2.items, hy1.items);
      assert.equal(calls - before, 1, 'the repeated query embedding came from the cache');

      // A deleted observation leaves the vector indexes through the event the route emits.
      await s.store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [cake]));
      s.events.emit('observation_deleted', { id: cake, project: 'p' });
      const gone = await s.service.searcher.search({ query: 'chocolate cake', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 5, offset: 0 });
      assert.ok(gone.items.every((i) => i.id !== cake));
      assert.equal(s.service.status().indexed.observations, 2, 'migration 3 deleted its vector');

      const r = await s.service.reindex({ reembed: true });
      assert.equal(r.dropped, 2, 'the vectors of both remaining observations');
      await until(() => s.service.status().pending === 0 && s.service.indexer?.state === 'idle', 10_000, 're-embedding');
      assert.equal(s.service.status().indexed.observations, 2);
    } finally {
      await s.close();
    }
  });
});

describe('with a broken embedder', () => {
  it('falls back to keyword results with a visible notice, and says why in the status', async () => {
    const s = await setup({ embeddings: 'local' }, path.join(tempDir(), 'no-such-embedder.js'));
    try {
      const id = await s.save('ECONNRESET from the payment provider is retried');
      await until(() => s.service.indexer?.state === 'unavailable', 20_000, 'the indexer to give up');
      const r = await s.service.searcher.search({ query: 'ECONNRESET', mode: 'hybrid', filters: { kinds: ['observation'] }, limit: 5, offset: 0 });
      assert.equal(r.modeUsed, 'keyword');
      assert.match(r.notice ?? '', /^semantic search unavailable \(.+\); showing keyword results$/);
      assert.equal(r.items[0].id, id);
      const st = s.service.status();
      assert.equal(st.embeddings.state, 'unavailable');
      assert.ok(st.embeddings.lastError);
      assert.equal(st.pending, 1);
    } finally {
      await s.close();
    }
  });

  it('embeddings off: keyword with a notice, nothing indexed', async () => {
    const s = await setup({ embeddings: 'off' });
    try {
      await s.save('nothing to embed here');
      const r = await s.service.searcher.search({ query: 'embed', mode: 'semantic', filters: { kinds: ['observation'] }, limit: 5, offset: 0 });
      assert.equal(r.modeUsed, 'keyword');
      assert.match(r.notice ?? '', /embeddings are off in settings/);
      assert.equal(s.service.status().embeddings.state, 'off');
    } finally {
      await s.close();
    }
  });
});

describe('after start', () => {
  it('keeps every row\'s lengths and prior facts, the keyword warm-up off', async () => {
    const s = await setup({ embeddings: 'off', keywordWarmTerms: 0 });
    try {
      const ids = [await s.save('the deploy pipeline rolls back broken releases'), await s.save('chocolate frosting recipe notes', 'q')];
      await until(() => {
        const facts = keptFacts(s.store, KINDS.observation);
        return facts !== undefined && ids.every((id) => priorsKept(facts, id));
      }, 10_000, 'prior facts');
      const lengths = docLengths(s.store, KINDS.observation);
      assert.ok(lengths);
      assert.ok(Math.max(...ids) <= lengths.maxId);
    } finally {
      await s.close();
    }
  });

  it('takes no step of the start-up fill while a request is in flight', async () => {
    const lull = new Lull(5, 60_000);
    const ended = lull.request();
    const s = await setup({ embeddings: 'off', keywordWarmTerms: 0 }, undefined, lull);
    try {
      await s.save('the deploy pipeline rolls back broken releases');
      // The fill starts 1.5 s after start (service.ts WARM_DELAY_MS).
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(docLengths(s.store, KINDS.observation), undefined, 'nothing read while the request ran');
      ended();
      await s.service.identifiersReady();
      assert.ok(docLengths(s.store, KINDS.observation), 'read once it ended');
    } finally {
      await s.close();
    }
  });

  it('queries leave the identifiers\' catching up to the start-up fill until it ends, and to themselves after', async () => {
    const s = await setup({ embeddings: 'off', keywordWarmTerms: 0 });
    try {
      assert.equal(identifierPartsOf(s.store).filling, true, 'from start');
      await s.service.identifiersReady();
      assert.equal(identifierPartsOf(s.store).filling, false, 'once the fill ended');
    } finally {
      await s.close();
    }
    const stopped = await setup({ embeddings: 'off', keywordWarmTerms: 0 });
    assert.equal(identifierPartsOf(stopped.store).filling, true);
    await stopped.close();
    assert.equal(identifierPartsOf(stopped.store).filling, false, 'a fill stopped before it ended');
  });
});
