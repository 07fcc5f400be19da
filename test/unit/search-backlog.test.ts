// The embedding backlog's progress in GET /api/search/status: the rate of recent indexing (idle
// time not counted) and the estimate it gives; then through the real service with a loopback
// embeddings server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { EventBus } from '../../worker/events';
import { Lifecycle } from '../../worker/lifecycle';
import { nullLogger } from '../../common/node/log';
import { BacklogRate, RATE_WINDOW_MS } from '../../worker/search/backlogRate';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

/** Background indexing as soon as a record is written (the idle-time gate has its own test: search-idle-indexing). */
const AT_ONCE = { indexStartDelayMs: 0, indexQuietMs: 0 };

describe('BacklogRate', () => {
  it('has no rate before two batches, then records per second of indexing time', () => {
    let now = 1_000;
    const r = new BacklogRate(() => now);
    assert.deepEqual(r.progress(100, 0), { pending: 100, embedded: 0, ratePerSecond: null, etaMs: null });
    r.stored(16);
    assert.equal(r.rate(), null);
    now += 1000;
    r.stored(16);
    now += 1000;
    r.stored(16);
    assert.equal(r.rate(), 16);
    assert.deepEqual(r.progress(160, 48), { pending: 160, embedded: 48, ratePerSecond: 16, etaMs: 10_000 });
    assert.equal(r.progress(0, 48).etaMs, 0);
  });

  it('does not count time with nothing to embed', () => {
    let now = 0;
    const r = new BacklogRate(() => now);
    r.stored(10);
    now += 1000;
    r.stored(10);
    r.paused();
    now += 3_600_000; // an hour with nothing new
    assert.equal(r.rate(), 10);
    r.stored(10);
    now += 1000;
    r.stored(10);
    assert.equal(r.rate(), 10);
  });

  it('forgets batches older than the window', () => {
    let now = 0;
    const r = new BacklogRate(() => now);
    for (let i = 0; i < 10; i++) {
      r.stored(1);
      now += 1000; // slow start: 1 record/s
    }
    for (let i = 0; i < RATE_WINDOW_MS / 1000 + 5; i++) {
      r.stored(20);
      now += 1000;
    }
    assert.equal(r.rate(), 20);
  });
});

describe('status of the embedding backlog', () => {
  let server: http.Server;
  let url: string;
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const input = (JSON.parse(body) as { input: string[] }).input;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: [t.length % 7, 1, 2, 3] })) }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('shows what was embedded, the rate and an estimate of zero once drained', async () => {
    const dir = tempDir('search-backlog-');
    const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    const events = new EventBus();
    const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
    for (let i = 0; i < 7; i++) await lifecycle.saveMemory({ text: `note number ${i} about the backlog`, project: 'p' });
    const service = new SearchService(
      { config: { dataDir: dir }, store, events, log: nullLogger },
      { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, ...AT_ONCE, embeddings: 'remote', remoteUrl: url, indexBatchSize: 2 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
    );
    try {
      assert.equal(service.status().backlog?.pending, 7, 'before the first pass');
      service.start();
      await until(() => service.status().pending === 0 && service.indexer?.state === 'idle', 10_000, 'indexing');
      const b = service.status().backlog;
      assert.ok(b);
      assert.equal(b.pending, 0);
      assert.equal(b.embedded, 7);
      assert.equal(b.etaMs, 0);
      assert.ok(b.ratePerSecond === null || b.ratePerSecond > 0, `rate ${b.ratePerSecond}`);
    } finally {
      await service.stop();
      await store.close(false);
    }
  });

  it('is absent when embeddings are off', async () => {
    const dir = tempDir('search-backlog-off-');
    const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    const service = new SearchService(
      { config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger },
      { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, embeddings: 'off' }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
    );
    try {
      assert.equal(service.status().backlog, undefined);
    } finally {
      await store.close(false);
    }
  });
});
