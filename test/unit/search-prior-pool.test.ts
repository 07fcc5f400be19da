// The keyword priors' pool (searcher.ts keywordRanked): its rows are read best BM25 first and only
// until no unread hit can reach the page, and the page is the one re-scoring the whole pool gives
// (priors, then near-duplicate titles stepping aside), with the row facts kept or not.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { keywordSearch } from '../../worker/search/keyword';
import type { SearchFilters } from '../../worker/search/params';
import { hydratePriors, KINDS } from '../../worker/search/records';
import { demoteDuplicates, prior, priorFlags, questionIntents, titleHash, titleKey } from '../../worker/search/rerank';
import { fillPriors, keptFacts, PRIOR_KEPT, rowFacts } from '../../worker/search/rowFacts';
import { Searcher, SearchStages } from '../../worker/search/searcher';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { insertObservation } from '../../worker/store/repos/observations';
import type { Store } from '../../worker/store/store';
import { openSearchStore, variedObservation } from '../helpers/searchStore';

const POOL = 100;

let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

let store: Store;
let searcher: Searcher;

before(async () => {
  store = await openSearchStore('search-prior-pool-');
  await store.write((tx) => {
    for (let i = 0; i < 600; i++) {
      insertObservation(tx, variedObservation(i, i % 3 === 0 ? 'beta' : 'alpha', rand));
    }
  });
  searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
});
after(() => store.close(false));

/** The page from the whole pool: every hit's row read, its prior applied, duplicates demoted. */
async function wholePool(query: string, f: SearchFilters, depth: number): Promise<{ id: number; score: number }[]> {
  const fq = parseFtsQuery(query);
  assert.ok(fq);
  const found = await keywordSearch(store, fq, f, Math.max(depth, POOL));
  const rows = hydratePriors(store, 'observation', found.map((h) => h.id), false);
  const intents = questionIntents(query);
  const hits = found.map((h) => {
    const r = rows.get(h.id);
    assert.ok(r);
    return { h: { ...h, score: h.score * prior(r, intents, DEFAULT_SEARCH_SETTINGS) }, key: titleKey(r.title) };
  });
  hits.sort((a, b) => b.h.score - a.h.score || b.h.epoch - a.h.epoch || b.h.id - a.h.id);
  return demoteDuplicates(hits, (x) => x.key)
    .slice(0, depth)
    .map((x) => ({ id: x.h.id, score: Math.round(x.h.score * 10000) / 10000 }));
}

const QUERIES = ['cache', 'token retry', 'queue parser index', 'why the cache', 'where is the worker session', 'what happened with the build', 'route', 'tests passed'];

/** Each query's page against the whole pool's, at several page sizes and offsets; the pool rows each search read. */
async function compareAll(s = searcher): Promise<number[]> {
  const read: number[] = [];
  for (const query of QUERIES) {
    for (const project of [undefined, 'alpha']) {
      for (const [limit, offset] of [[5, 0], [20, 0], [20, 20], [50, 0]]) {
        const f: SearchFilters = { kinds: ['observation'], ...(project ? { project } : {}) };
        const stages = new SearchStages();
        const res = await s.search({ query, mode: 'keyword', filters: f, limit, offset }, Date.now(), stages);
        const want = (await wholePool(query, f, offset + limit + 1)).slice(offset, offset + limit);
        assert.deepEqual(res.items.map((r) => ({ id: r.id, score: r.score })), want, `${query} ${project ?? '-'} ${limit}@${offset}`);
        const pool = stages.marks.find(([name]) => name === 'pool');
        assert.ok(pool, 'the search says how much of the pool it read');
        read.push(pool[1]);
      }
    }
  }
  return read;
}

describe('the priors pool', () => {
  it('reads only the part of the pool that can reach the page, and pages as the whole pool does (rows read)', async () => {
    const read = await compareAll();
    assert.ok(read.some((n) => n < POOL), `some search read less than the pool: ${read.join(',')}`);
    assert.ok(read.every((n) => n <= POOL + 51));
  });

  it('the same with the row facts kept (priors from memory)', async () => {
    const maxId = Number(store.get<{ m: number }>('SELECT max(id) AS m FROM observations')?.m);
    assert.ok(rowFacts(store, KINDS.observation, maxId));
    const first = await compareAll();
    // Now every row read above is kept: the same pages from the kept facts alone.
    const again = await compareAll();
    assert.deepEqual(again, first);
  });

  it('fillPriors keeps every row\'s prior facts; the pool then reads only the titles of hits whose title hashes are equal', async () => {
    // A new view of the store (nothing kept for it yet) that records the ids each statement asks for.
    const asked: { sql: string; ids: number[] }[] = [];
    const db: Pick<Store, 'all' | 'get'> = {
      all: <T>(sql: string, params?: (string | number)[]) => {
        asked.push({ sql, ids: typeof params?.[0] === 'string' && params[0].startsWith('[') ? (JSON.parse(params[0]) as number[]) : [] });
        return store.all<T>(sql, params);
      },
      get: <T>(sql: string, params?: (string | number)[]) => store.get<T>(sql, params),
    };
    const fill = fillPriors(db, KINDS.observation, undefined, 64);
    while (!fill.next().done);
    const facts = keptFacts(db, KINDS.observation);
    assert.ok(facts);
    const ids = store.all<{ id: number }>('SELECT id FROM observations').map((r) => r.id);
    const rows = hydratePriors(store, 'observation', ids, false);
    for (const id of ids) {
      const r = rows.get(id);
      assert.ok(r);
      assert.equal(facts.priorBits[id], priorFlags(r) | PRIOR_KEPT, `bits of ${id}`);
      assert.equal(facts.bodyLength[id], Math.min(r.bodyLength, 0xffff), `length of ${id}`);
      assert.equal(facts.titleHash[id], titleHash(r.title), `hash of ${id}`);
    }
    asked.length = 0;
    await compareAll(new Searcher(db as Store, DEFAULT_SEARCH_SETTINGS, undefined));
    const read = asked.filter((x) => x.sql.includes('AS bodyLength')).flatMap((x) => x.ids);
    // "Ran the tests: N passed" titles share one key (digits folded): only those are read, for their titles.
    assert.ok(read.length > 0);
    assert.deepEqual(read.filter((id) => !rows.get(id)?.title.startsWith('Ran the tests')), []);
  });
});
