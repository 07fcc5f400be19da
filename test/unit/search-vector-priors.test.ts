// The vector side's priors (searcher.ts leanPriors, with the filters): a vector hit's prior, time
// and title key come from the row facts kept in memory (rowFacts.ts) when they are kept, else from
// its lean row, and the page is the same either way; a record deleted since the scan took it is
// never returned; with every row's facts kept, only the titles of hits whose title hashes are equal
// are read.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SearchHit } from '../../worker/search/hit';
import type { SearchFilters } from '../../worker/search/params';
import { KINDS } from '../../worker/search/records';
import { fillPriors, keptFacts } from '../../worker/search/rowFacts';
import { Searcher, type VectorSide } from '../../worker/search/searcher';
import type { SemanticIndex, SemanticQuery } from '../../worker/search/semantic';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { insertObservation } from '../../worker/store/repos/observations';
import { insertSummary } from '../../worker/store/repos/summaries';
import type { Store } from '../../worker/store/store';
import { openSearchStore, PRIOR_WORDS, T0, variedObservation } from '../helpers/searchStore';

const N = 400;
/** The hubness correction needs stored vectors, which this stub has none of; it is the same on both paths. */
const SETTINGS = { ...DEFAULT_SEARCH_SETTINGS, densityPenalty: 0 };

let seed = 11;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const text = (n: number) => Array.from({ length: n }, () => PRIOR_WORDS[Math.floor(rand() * PRIOR_WORDS.length)]).join(' ');
const letters = (i: number) => i.toString(10).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]);

let store: Store;
/** A fixed cosine per record, as a scan of stored vectors would give for every query. */
const cosine = new Map<string, number>();
/** What the stub scan holds: it keeps a record after its row is deleted (a scan not told yet). */
const scanned: { kind: 'observation' | 'summary'; id: number; project: string; epoch: number }[] = [];

before(async () => {
  store = await openSearchStore('search-vector-priors-');
  await store.write((tx) => {
    for (let i = 0; i < N; i++) {
      const project = i % 3 === 0 ? 'beta' : 'alpha';
      const o = variedObservation(i, project, rand);
      const createdAt = o.createdAt;
      const id = insertObservation(tx, o);
      assert.ok(id);
      scanned.push({ kind: 'observation', id, project, epoch: createdAt });
      if (i % 20 === 0) {
        const sid = insertSummary(tx, { sessionId: 1, project, request: `summary ${letters(i)} ${text(4)}`, completed: text(20), promptNumber: null, contentHash: `s${i}`, createdAt });
        assert.ok(sid);
        scanned.push({ kind: 'summary', id: sid, project, epoch: createdAt });
      }
    }
  });
  for (const r of scanned) cosine.set(`${r.kind}:${r.id}`, 0.2 + 0.6 * rand());
});
after(() => store.close(false));

function vectorSide(): VectorSide {
  const semantic = {
    async query(_v: Float32Array, k: number, f: SemanticQuery): Promise<SearchHit[]> {
      return scanned
        .filter((r) => (f.kinds ?? ['observation', 'summary']).includes(r.kind) && (f.project === undefined || r.project === f.project) && (f.from === undefined || r.epoch >= f.from) && (f.to === undefined || r.epoch < f.to))
        .map((r) => ({ kind: r.kind, id: r.id, epoch: r.epoch, score: cosine.get(`${r.kind}:${r.id}`) as number }))
        .sort((a, b) => b.score - a.score || b.id - a.id)
        .slice(0, k);
    },
  } as unknown as SemanticIndex;
  return { semantic, unavailable: () => undefined, embedQuery: async () => new Float32Array(4), catchingUp: () => undefined };
}

/** A view of the store with nothing kept for it yet, recording the ids each lean-row read asks for. */
function view(): { db: Store; leanIds: number[] } {
  const leanIds: number[] = [];
  const db = {
    all: <T>(sql: string, params?: (string | number)[]) => {
      if (sql.includes('AS bodyLength') && typeof params?.[0] === 'string') leanIds.push(...(JSON.parse(params[0]) as number[]));
      return store.all<T>(sql, params);
    },
    get: <T>(sql: string, params?: (string | number)[]) => store.get<T>(sql, params),
  };
  return { db: db as unknown as Store, leanIds };
}

const QUERIES = ['cache', 'why the token retry', 'where is the worker session', 'how did the build end', 'tests passed'];
const FILTERS: SearchFilters[] = [
  { kinds: ['observation', 'summary'] },
  { kinds: ['observation'], project: 'alpha' },
  { kinds: ['observation', 'summary'], project: 'beta', from: T0 + 50 * 60_000, to: T0 + 300 * 60_000 },
];

async function pages(db: Store): Promise<unknown[]> {
  const searcher = new Searcher(db, SETTINGS, vectorSide());
  const out: unknown[] = [];
  for (const query of QUERIES) {
    for (const filters of FILTERS) {
      for (const [limit, offset] of [[10, 0], [20, 20]]) {
        const res = await searcher.search({ query, mode: 'semantic', filters, limit, offset });
        assert.equal(res.modeUsed, 'semantic');
        out.push(res.items.map((r) => `${r.kind}:${r.id}:${r.score}`));
      }
    }
  }
  return out;
}

describe('the vector side\'s priors', () => {
  it('pages the same from the kept row facts as from the lean rows, and reads no lean row once every row\'s facts are kept but for titles that share a hash', async () => {
    const plain = view();
    const fromRows = await pages(plain.db);
    assert.ok(plain.leanIds.length > 0, 'without kept facts the lean rows are read');
    assert.ok(fromRows.every((p) => (p as string[]).length > 0));

    const kept = view();
    for (const k of [KINDS.observation, KINDS.summary]) {
      const fill = fillPriors(kept.db, k);
      while (!fill.next().done);
      assert.ok(keptFacts(kept.db, k));
    }
    kept.leanIds.length = 0;
    assert.deepEqual(await pages(kept.db), fromRows);
    // Only "Ran the tests: N passed" titles share a key (digits folded): only they are read, for their titles.
    const titles = new Map(store.all<{ id: number; title: string }>('SELECT id, title FROM observations').map((r) => [r.id, r.title]));
    assert.ok(kept.leanIds.length > 0);
    assert.deepEqual(kept.leanIds.filter((id) => !titles.get(id)?.startsWith('Ran the tests')), []);
  });

  it('never returns a record deleted since the scan took it, with its facts kept', async () => {
    const v = view();
    const fill = fillPriors(v.db, KINDS.observation);
    while (!fill.next().done);
    const searcher = new Searcher(v.db, SETTINGS, vectorSide());
    const filters: SearchFilters = { kinds: ['observation'] };
    const before = await searcher.search({ query: 'cache', mode: 'semantic', filters, limit: 5, offset: 0 });
    const top = before.items[0].id;
    await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [top]));
    assert.ok(scanned.some((r) => r.kind === 'observation' && r.id === top), 'the stub scan still holds it');
    const afterDelete = await searcher.search({ query: 'cache', mode: 'semantic', filters, limit: 5, offset: 0 });
    assert.ok(!afterDelete.items.some((r) => r.id === top));
    assert.deepEqual(afterDelete.items.map((r) => r.id), [...before.items.slice(1), ...afterDelete.items.slice(4)].map((r) => r.id));
  });
});
