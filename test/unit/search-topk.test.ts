// Keyword search ranks every match: the impact lists (termLists.ts) and the
// threshold algorithm over them (topK.ts) give exactly the top k that ranking every match gives,
// with lists far shorter than the matches, with filters, after rows are added and deleted; and an
// old record that matches a common word best is found first (it was cut by the newest-1,000 rule).
import { before, after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { idf } from '../../worker/search/bm25';
import type { SearchFilters } from '../../worker/search/params';
import { Searcher } from '../../worker/search/searcher';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { ListWarmer } from '../../worker/search/listWarmer';
import { KINDS } from '../../worker/search/records';
import { docLengths } from '../../worker/search/docLengths';
import { buildFacts, keptFacts, rowFacts } from '../../worker/search/rowFacts';
import { listBuilds, selectAscending, vocabularyDf } from '../../worker/search/termLists';
import type { SearchHit } from '../../worker/search/hit';
import { exactTopK, rankAll, type WeightedPhrase } from '../../worker/search/topK';
import { insertObservation } from '../../worker/store/repos/observations';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';
import { bundledEntry } from '../helpers/bundle';
import { openSearchStore } from '../helpers/searchStore';

const VOCAB = Array.from({ length: 60 }, (_, i) => `w${i}x`);
const PROJECTS = ['alpha', 'beta', 'gamma'];
const TYPES = ['bugfix', 'feature', 'change'];
const T0 = Date.UTC(2025, 0, 1);

let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
/** Skewed draw: the first words of VOCAB are in most rows, the last in a few. */
const word = () => VOCAB[Math.floor(rand() ** 2.5 * VOCAB.length)];
const words = (n: number) => Array.from({ length: n }, word).join(' ');

let made = 0;
async function addRows(store: Store, n: number, text: () => { title: string; narrative: string } = () => ({ title: words(4), narrative: words(20) }), project?: string, at?: number): Promise<void> {
  await store.write((tx) => {
    for (let i = 0; i < n; i++) {
      const t = text();
      insertObservation(tx, {
        sessionId: 1,
        project: project ?? PROJECTS[made % 3],
        type: TYPES[Math.floor(made / 3) % 3],
        title: t.title,
        narrative: t.narrative,
        facts: [],
        toolName: 'Edit',
        promptNumber: 1,
        contentHash: `h${made}`,
        source: 'local',
        createdAt: at ?? T0 + made * 60_000,
      });
      made++;
    }
  });
}

function phrasesOf(store: Store, query: string): { phrases: WeightedPhrase[]; rows: number; maxId: number } {
  const rows = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n);
  const maxId = Number(store.get<{ m: number }>('SELECT max(id) AS m FROM observations')?.m);
  const phrases = query.split(' ').flatMap((w) => {
    const p = `"${w}"`;
    const df = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH ?', [p])?.n);
    return df > 0 ? [{ p, df, c: idf(rows, df) }] : [];
  });
  return { phrases, rows, maxId };
}

/** The store (lists are cached per store object), counting the statements that rank a phrase's matches from the first id. */
/** Lists ranked from scratch through db (through SQL or from the index's segments), since builds was last set. */
function countingBuilds(store: () => Store): { db: Pick<Store, 'all' | 'get'>; builds: number } {
  const db = {
    all: <T>(sql: string, params?: (string | number)[]) => store().all<T>(sql, params),
    get: <T>(sql: string, params?: (string | number)[]) => store().get<T>(sql, params),
  };
  let base = 0;
  return {
    db,
    get builds() {
      return listBuilds(db) - base;
    },
    set builds(v: number) {
      base = listBuilds(db) - v;
    },
  };
}

/** Same scores in the same order, and the same rows wherever the score does not tie with a neighbour. */
function assertSameTop(got: SearchHit[], want: SearchHit[], what: string): void {
  const r = (x: number) => Math.round(x * 1e9) / 1e9;
  assert.deepEqual(got.map((h) => r(h.score)), want.map((h) => r(h.score)), `${what}: scores`);
  const last = want.length ? r(want[want.length - 1].score) : 0;
  const above = (hs: SearchHit[]) => hs.filter((h) => r(h.score) > last).map((h) => h.id).sort((a, b) => a - b);
  assert.deepEqual(above(got), above(want), `${what}: rows`);
}

describe('exact top k from impact lists', () => {
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-');
    await addRows(store, 900);
  });
  after(() => store.close(false));

  const filterSets: { name: string; f: SearchFilters }[] = [
    { name: 'none', f: { kinds: ['observation'] } },
    { name: 'project', f: { kinds: ['observation'], project: 'beta' } },
    { name: 'type', f: { kinds: ['observation'], types: ['bugfix'] } },
    { name: 'dates', f: { kinds: ['observation'], from: T0 + 100 * 60_000, to: T0 + 250 * 60_000 } },
  ];

  it('equals ranking every match, for lists much shorter than the matches, with every kind of filter', async () => {
    let checked = 0;
    for (let i = 0; i < 40; i++) {
      const query = words(1 + (i % 3));
      const { phrases, rows, maxId } = phrasesOf(store, query);
      if (phrases.length === 0) continue;
      for (const { name, f } of filterSets) {
        for (const [depth, listSize] of [[10, 8], [50, 32], [100, 2048]]) {
          const got = await exactTopK(store, 'observation', phrases, f, depth, rows, maxId, Date.now(), listSize);
          const want = rankAll(store, 'observation', phrases, f, depth);
          assertSameTop(got, want, `"${query}" filters ${name}, depth ${depth}, lists of ${listSize}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 300);
  });

  it('merges rows added after a list was made, and leaves out rows deleted since', async () => {
    const { phrases } = phrasesOf(store, VOCAB[0]);
    const f: SearchFilters = { kinds: ['observation'] };
    const before = phrasesOf(store, VOCAB[0]);
    await exactTopK(store, 'observation', phrases, f, 10, before.rows, before.maxId, Date.now(), 16);
    // A new row that is the best match of all, and the current best deleted.
    const best = rankAll(store, 'observation', phrases, f, 1)[0];
    // Every word of both columns at their usual lengths is the word: no drawn row can match it better.
    await addRows(store, 1, () => ({ title: Array(4).fill(VOCAB[0]).join(' '), narrative: Array(20).fill(VOCAB[0]).join(' ') }));
    await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [best.id]));
    const now = phrasesOf(store, VOCAB[0]);
    const got = await exactTopK(store, 'observation', phrases, f, 10, now.rows, now.maxId, Date.now(), 16);
    assert.equal(got[0].id, now.maxId, 'the row added after the list was made comes first');
    assert.ok(!got.some((h) => h.id === best.id), 'the deleted row is not returned');
    assertSameTop(got, rankAll(store, 'observation', phrases, f, 10), 'after an insert and a delete');
  });
});

describe('project and date filters from the rows kept in memory', () => {
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-facts-');
    await addRows(store, 600);
  });
  after(() => store.close(false));

  it('follow rows added in a new project and rows deleted after they were read', async () => {
    const query = `${VOCAB[1]} ${VOCAB[5]} ${VOCAB[20]}`;
    const search = async (f: SearchFilters, what: string) => {
      const { phrases, rows, maxId } = phrasesOf(store, query);
      const got = await exactTopK(store, 'observation', phrases, f, 15, rows, maxId, Date.now());
      const want = rankAll(store, 'observation', phrases, f, 15);
      assertSameTop(got, want, what);
      assert.deepEqual(
        got.map((h) => h.epoch),
        got.map((h) => Number(store.get<{ t: number }>('SELECT created_at AS t FROM observations WHERE id = ?', [h.id])?.t)),
        `${what}: times`,
      );
      return got;
    };
    await search({ kinds: ['observation'], project: 'beta' }, 'before');
    assert.equal(rowFacts(store, KINDS.observation, 0)?.maxId, 600, 'the facts were read');
    // A new project, more rows in an old one, and the best row of beta deleted.
    const at = T0 + 10_000 * 60_000;
    await addRows(store, 40, () => ({ title: `${VOCAB[5]} ${VOCAB[20]}`, narrative: words(10) }), 'delta', at);
    await addRows(store, 20, () => ({ title: `${VOCAB[20]} ${VOCAB[20]}`, narrative: words(10) }), 'beta', at);
    const gone = (await search({ kinds: ['observation'], project: 'beta' }, 'after the inserts'))[0];
    await store.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [gone.id]));
    const beta = await search({ kinds: ['observation'], project: 'beta' }, 'after the delete');
    assert.ok(!beta.some((h) => h.id === gone.id), 'the deleted row is not returned');
    const delta = await search({ kinds: ['observation'], project: 'delta' }, 'the new project');
    assert.ok(delta.length > 0 && delta.every((h) => h.id > 600));
    await search({ kinds: ['observation'], project: 'delta', from: at, to: at + 1 }, 'the new project, by date');
    await search({ kinds: ['observation'], from: T0 + 300 * 60_000 }, 'dates alone');
    assert.deepEqual(await search({ kinds: ['observation'], project: 'nowhere' }, 'a project with no rows'), []);
  });

  it('are read from the index a page at a time, rows with the same project and time across pages', async () => {
    const tied = await openSearchStore('topk-facts-ties-');
    try {
      await addRows(tied, 30, undefined, 'one', T0);
      await addRows(tied, 30, undefined, 'two', T0);
      await addRows(tied, 5, undefined, 'one', T0 + 1);
      const steps = buildFacts(tied, KINDS.observation, 7);
      let pages = 1;
      let r = steps.next();
      for (; !r.done; r = steps.next()) pages++;
      const facts = r.value;
      assert.ok(facts && pages >= 9, `read in ${pages} pages`);
      const rows = tied.all<{ id: number; project: string; t: number }>('SELECT id, project, created_at AS t FROM observations');
      assert.equal(rows.length, 65);
      for (const row of rows) {
        assert.equal(facts.project[row.id], (facts.codes.get(row.project) ?? -2) + 1, `row ${row.id}'s project`);
        assert.equal(facts.epoch[row.id], row.t);
      }
    } finally {
      tied.close(false);
    }
  });
});

describe('a common word finds its best match however old it is', () => {
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-old-');
    // The oldest row is about caching; 1,500 of the 3,000 newer ones mention the cache once, in passing.
    await addRows(store, 1, () => ({ title: 'cache cache invalidation for the cache layer', narrative: 'the cache was rebuilt; cache keys now carry the version' }));
    let n = 0;
    await addRows(store, 3000, () => ({ title: words(5), narrative: `${words(12)}${n++ % 2 ? ' cache ' : ' '}${words(12)}` }));
  });
  after(() => store.close(false));

  it('ranks every match by default and says nothing about a cut', async () => {
    const searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
    const r = await searcher.search({ query: 'cache', mode: 'keyword', filters: { kinds: ['observation'] }, limit: 5, offset: 0 }, Date.now());
    assert.equal(r.items[0]?.id, 1, 'the oldest, best match comes first');
    assert.doesNotMatch(r.notice ?? '', /newest/);
    const inProject = await searcher.search({ query: 'cache', mode: 'keyword', filters: { kinds: ['observation'], project: r.items[0]?.project }, limit: 5, offset: 0 }, Date.now());
    assert.equal(inProject.items[0]?.id, 1);
  });
});

describe('lists of the most common words are built in the background', () => {
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-warm-');
    // More rows with these words than the warm-up looks for (2,048): "cache", and "change" in three forms.
    let n = 0;
    const forms = ['changes', 'changed', 'changing'];
    await addRows(store, 3000, () => {
      n++;
      return { title: `${words(3)} ${n % 7 ? 'cache' : ''}`, narrative: `${words(10)} ${n % 6 ? forms[n % 3] : ''} ${words(5)}` };
    });
  });
  after(() => store.close(false));

  it('a step at a time, after which searches rank from them without building any', async () => {
    const counting = countingBuilds(() => store);
    const warmer = new ListWarmer(counting.db, 8);
    warmer.start(0);
    for (let i = 0; i < 500 && !warmer.done; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(warmer.done, 'the warm-up finished');
    assert.ok(warmer.built >= 2, 'a list for "cache", one for the stem of change, changes, changed (and the commonest filler words)');
    assert.ok(counting.builds > 2, 'built window by window');
    counting.builds = 0;
    const f: SearchFilters = { kinds: ['observation'] };
    for (const query of ['cache', 'changed', 'changes', 'cache changing']) {
      const { phrases, rows, maxId } = phrasesOf(store, query);
      const got = await exactTopK(counting.db, 'observation', phrases, f, 20, rows, maxId, Date.now());
      assertSameTop(got, rankAll(store, 'observation', phrases, f, 20), query);
    }
    assert.equal(counting.builds, 0, 'no list was built on the search path');
    warmer.stop();
  });
});

describe('the warm-up in a child process', () => {
  // Child processes do not get tsx's loader: a bundle of the current source.
  const SCRIPT = bundledEntry('worker/search/warmProcess.ts');
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-child-');
    let n = 0;
    await addRows(store, 3000, () => {
      n++;
      return { title: `${words(3)} ${n % 7 ? 'cache' : ''}`, narrative: `${words(10)} ${n % 6 ? 'changes' : ''} ${words(5)}` };
    });
    // Some of the rows only in the journal segment being written: the child reads those too.
    await store.snapshot();
    await addRows(store, 200, () => ({ title: `cache ${words(3)}`, narrative: words(10) }));
  });
  after(() => store.close(false));

  const counting = countingBuilds(() => store);

  async function warm(script: string): Promise<ListWarmer> {
    const warmer = new ListWarmer(counting.db, 8, nullLogger, { process: { script, dir: store.dir, pageCacheBytes: 4 << 20 } });
    warmer.start(0);
    for (let i = 0; i < 1000 && !warmer.done; i++) await new Promise((r) => setTimeout(r, 10));
    warmer.stop();
    return warmer;
  }

  it('hands over lists and counts that searches use as they are, not the rows\' lengths or facts', async () => {
    const warmer = await warm(SCRIPT);
    assert.equal(warmer.via, 'process');
    assert.ok(warmer.built >= 2, `${warmer.built} lists made`);
    // The worker reads those from start (service.ts): a second copy would only cross the channel.
    assert.equal(keptFacts(counting.db, KINDS.observation), undefined, 'no facts came over');
    assert.equal(docLengths(counting.db, KINDS.observation), undefined, 'nor lengths');
    const cache = phrasesOf(store, 'cache');
    assert.equal(vocabularyDf(counting.db, KINDS.observation, '"cache"', cache.rows, Date.now()), cache.phrases[0].df, 'the vocabulary count of a common word');
    counting.builds = 0;
    const searches: [string, SearchFilters][] = [
      ['cache', { kinds: ['observation'] }],
      ['changes cache', { kinds: ['observation'], project: 'beta' }],
    ];
    for (const [query, f] of searches) {
      const { phrases, rows, maxId } = phrasesOf(store, query);
      const got = await exactTopK(counting.db, 'observation', phrases, f, 20, rows, maxId, Date.now());
      assertSameTop(got, rankAll(store, 'observation', phrases, f, 20), query);
    }
    assert.equal(counting.builds, 0, 'no list built on the search path');
  });

  it('starts no process for a store where no word can be common (steps here instead)', async () => {
    const small = await openSearchStore('topk-small-');
    try {
      await addRows(small, 300, () => ({ title: `cache ${words(3)}`, narrative: words(10) }));
      const warmer = new ListWarmer(small, 8, nullLogger, { process: { script: SCRIPT, dir: small.dir, pageCacheBytes: 4 << 20 } });
      warmer.start(0);
      for (let i = 0; i < 1000 && !warmer.done; i++) await new Promise((r) => setTimeout(r, 10));
      warmer.stop();
      assert.equal(warmer.via, 'here');
      assert.equal(warmer.built, 0, 'no word in more than 2,048 rows: no list');
      assert.equal(docLengths(small, KINDS.observation)?.maxId, 300, 'the rows\' lengths are read here');
    } finally {
      await small.close(false);
    }
  });

  it('falls back to steps on this event loop when the process cannot run', async () => {
    const warmer = await warm(path.join(tempDir('topk-nochild-'), 'missing.js'));
    assert.equal(warmer.via, 'here', 'warmed here instead');
  });
});

describe('a common word without a list', () => {
  let store: Store;
  before(async () => {
    store = await openSearchStore('topk-steps-');
    let n = 0;
    await addRows(store, 6000, () => ({ title: words(4), narrative: `${words(10)}${n++ % 12 ? ' cache ' : ' '}${words(10)}` }));
  });
  after(() => store.close(false));

  it('gets its list ranked a window at a time, other work running between windows', async () => {
    const { phrases, rows, maxId } = phrasesOf(store, 'cache');
    assert.ok(phrases[0].df > 5000, 'more matches than one step ranks');
    let turns = 0;
    let searching = true;
    const spin = () => {
      if (!searching) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const f: SearchFilters = { kinds: ['observation'] };
    const got = await exactTopK(store, 'observation', phrases, f, 30, rows, maxId, Date.now());
    searching = false;
    assert.ok(turns >= 2, `the event loop turned ${turns} times during the search`);
    assertSameTop(got, rankAll(store, 'observation', phrases, f, 30), 'built in steps');
  });
});

describe('the pieces of a search kept or picked cheaply', () => {
  it('selectAscending gives what a sort gives at every index, ties and all', () => {
    for (let t = 0; t < 3000; t++) {
      const n = 1 + Math.floor(rand() * 80);
      const spread = t % 3 === 0 ? 3 : 1000;
      const a = Float64Array.from({ length: n }, () => Math.floor(rand() * spread) / 7);
      const sorted = Float64Array.from(a).sort();
      const at = Math.floor(rand() * n);
      assert.equal(selectAscending(Float64Array.from(a), at), sorted[at], `n ${n}, index ${at}`);
    }
  });

  it('a rare word is ranked once: its short list is kept for the next search', async () => {
    const store = await openSearchStore('topk-short-');
    try {
      await addRows(store, 40, () => ({ title: 'plain words here', narrative: 'nothing to see' }));
      await addRows(store, 3, () => ({ title: 'the quillwort note', narrative: 'quillwort grows by water' }));
      const { phrases, rows, maxId } = phrasesOf(store, 'quillwort');
      const before = listBuilds(store);
      const first = await exactTopK(store, 'observation', phrases, { kinds: ['observation'] }, 10, rows, maxId, Date.now());
      assert.equal(listBuilds(store), before + 1);
      const again = await exactTopK(store, 'observation', phrases, { kinds: ['observation'] }, 10, rows, maxId, Date.now());
      assert.equal(listBuilds(store), before + 1, 'the three-row list was kept');
      assert.deepEqual(again, first);
      assert.equal(first.length, 3);
    } finally {
      store.close(false);
    }
  });
});
