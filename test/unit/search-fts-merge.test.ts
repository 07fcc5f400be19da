// The full-text indexes are merged once writes pause (ftsMerge.ts): every level ends with at most
// one segment, searches answer exactly as before, the index's segments still read in JavaScript
// (ftsPostings.ts) as SQL reads them, and the merge steps are journaled: the store reopened from
// its files has the same merged index and the same answers; a step waits for a lull in requests.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { EventBus } from '../../worker/events';
import { idf, registerSearchFunctions } from '../../worker/search/bm25';
import { buildDocLengths } from '../../worker/search/docLengths';
import { readTermHits } from '../../worker/search/ftsPostings';
import { Lull } from '../../worker/lull';
import { FtsMerger, mergeDue } from '../../worker/search/ftsMerge';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { rankAll } from '../../worker/search/topK';
import { insertObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2025, 0, 1);
const WORDS = ['cache', 'retry', 'token', 'parser', 'queue', 'render', 'schema', 'socket', 'button', 'deploy'];

async function openStore(dir: string, fresh: boolean): Promise<Store> {
  const store = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  if (fresh) {
    await migrate(store);
    await store.write((tx) => {
      tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'alpha', 'completed', ?, ?)`, [T0, T0]);
    });
  }
  registerSearchFunctions(store);
  return store;
}

/** `transactions` writes of 10 rows each: FTS4 adds a segment per write. */
let n = 0;
/** Segments of a full-text index. */
function segmentCount(store: Store, fts: string): number {
  return Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${fts}_segdir`)?.n ?? 0);
}

async function fill(store: Store, transactions: number): Promise<void> {
  for (let t = 0; t < transactions; t++) {
    await store.write((tx) => {
      for (let i = 0; i < 10; i++, n++) {
        insertObservation(tx, {
          sessionId: 1,
          project: 'alpha',
          type: 'change',
          title: `${WORDS[n % 10]} ${WORDS[(n * 7) % 10]} note ${n}`,
          narrative: `${WORDS[(n * 3) % 10]} and ${WORDS[(n * n) % 10]} row${n}`,
          facts: [],
          toolName: 'Edit',
          promptNumber: 1,
          contentHash: `h${n}`,
          source: 'local',
          createdAt: T0 + n * 60_000,
        });
      }
    });
  }
}

/** Every search's answer: the ranked rows of each word and of a pair, and the rows each word matches. */
function answers(store: Store): unknown {
  const rows = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n);
  const ranked = (words: string[]) => {
    const phrases = words.map((w) => {
      const df = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH ?', [`"${w}"`])?.n);
      return { p: `"${w}"`, df, c: idf(rows, df) };
    });
    return rankAll(store, 'observation', phrases, { kinds: ['observation'] }, 30).map((h) => [h.id, Math.round(h.score * 1e9)]);
  };
  return {
    ranked: [...WORDS.map((w) => ranked([w])), ranked(['cache', 'deploy']), ranked(['row7'])],
    matches: WORDS.map((w) => store.all<{ id: number }>('SELECT docid AS id FROM observations_fts WHERE observations_fts MATCH ? ORDER BY docid', [w]).map((r) => r.id)),
  };
}

describe('full-text index merging', () => {
  const dir = path.join(tempDir('fts-merge-'), 'db');
  let store: Store;
  after(() => store?.close(false));

  it('leaves at most one segment per level and every answer as it was', async () => {
    store = await openStore(dir, true);
    await fill(store, 40);
    const before = segmentCount(store, 'observations_fts');
    assert.ok(before >= 10 && mergeDue(store, 'observations_fts'), `${before} segments to merge`);
    const want = answers(store);
    const merger = new FtsMerger(store, nullLogger, { quietMs: 0, pauseMs: 0 });
    merger.kick();
    await merger.idle();
    const levels = store.all<{ level: number; n: number }>('SELECT level, count(*) AS n FROM observations_fts_segdir GROUP BY level');
    assert.ok(levels.every((l) => l.n === 1), `one segment per level: ${JSON.stringify(levels)}`);
    assert.equal(mergeDue(store, 'observations_fts'), false);
    assert.ok(segmentCount(store, 'observations_fts') < before / 3, `${before} -> ${segmentCount(store, 'observations_fts')} segments`);
    assert.ok(merger.steps > 0);
    assert.deepEqual(answers(store), want);
  });

  it('reads the merged segments in JavaScript as SQL reads them', () => {
    const steps = buildDocLengths(store, { kind: 'observation', table: 'observations', fts: 'observations_fts', weights: 'o', byProject: 'observations_by_project', select: '' }, 7);
    while (!steps.next().done);
    store.all('CREATE VIRTUAL TABLE IF NOT EXISTS temp.merge_tokens USING fts3tokenize(porter)');
    for (const w of WORDS) {
      // The segments hold porter stems ("cache" is "cach").
      const stem = String(store.get<{ token: string }>('SELECT token FROM temp.merge_tokens WHERE input = ?', [w])?.token);
      const hits = readTermHits(store, 'observations_fts', stem, 7);
      assert.ok(hits, `${w}: the segments were read`);
      const sql = store.all<{ id: number }>('SELECT docid AS id FROM observations_fts WHERE observations_fts MATCH ? ORDER BY docid', [w]).map((r) => r.id);
      assert.deepEqual([...hits.ids].sort((a, b) => a - b), sql, w);
    }
  });

  it('journals its steps: the store reopened from its files is merged and answers the same', async () => {
    const want = answers(store);
    const segments = segmentCount(store, 'observations_fts');
    await store.close(false);
    store = await openStore(dir, false);
    assert.equal(segmentCount(store, 'observations_fts'), segments);
    assert.deepEqual(answers(store), want);
  });

  it('takes no step while requests keep coming, and merges all once they stop', async () => {
    await fill(store, 20);
    assert.ok(mergeDue(store, 'observations_fts'), 'new segments to merge');
    const lull = new Lull(200, 60_000);
    const merger = new FtsMerger(store, nullLogger, { quietMs: 0, pauseMs: 0, lull });
    lull.request()();
    const requests = setInterval(() => lull.request()(), 10);
    merger.kick();
    await new Promise((r) => setTimeout(r, 600));
    clearInterval(requests);
    assert.equal(merger.steps, 0, 'no step while a request came every 10 ms');
    await merger.idle();
    assert.ok(merger.steps > 0);
    assert.equal(mergeDue(store, 'observations_fts'), false);
  });

  it('runs in the search service after start and after writes', async () => {
    await fill(store, 20);
    assert.ok(mergeDue(store, 'observations_fts'), 'new segments to merge');
    const service = new SearchService(
      { config: { dataDir: tempDir('fts-merge-svc-') }, store, events: new EventBus(), log: nullLogger },
      { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, embeddings: 'off', keywordWarmTerms: 0, identifierWeight: 0 }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
    );
    service.start();
    try {
      await new Promise((r) => setTimeout(r, 1100));
      await service.mergesIdle();
      assert.equal(mergeDue(store, 'observations_fts'), false);
    } finally {
      await service.stop();
    }
  });
});
