// What a keyword request costs beyond its ranking: the priors' facts are kept per row (a search
// of the same words reads no content row for them again, the answers unchanged); snippets found
// in one pass of a pattern, the same as comparing every word; and the searches the worker runs on its own once the keyword warm-up is done, so
// the first searches people make do not pay for compiling the search path.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { EventBus } from '../../worker/events';
import { registerSearchFunctions } from '../../worker/search/bm25';
import { KINDS } from '../../worker/search/records';
import { keptFacts, priorsKept } from '../../worker/search/rowFacts';
import { TOKEN_CHARS } from '../../worker/search/ftsQuery';
import { Searcher } from '../../worker/search/searcher';
import { makeSnippet, stem } from '../../worker/search/snippet';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS } from '../../worker/search/settings';
import { WARM_SEARCHES, warmSearches } from '../../worker/search/warmSearch';
import type { SearchRequest } from '../../worker/search/params';
import { insertObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

const T0 = Date.UTC(2025, 0, 1);
const WORDS = ['parser', 'cache', 'socket', 'retry', 'schema', 'token', 'queue', 'render', 'index', 'budget'];

async function openStore(): Promise<{ store: Store; dir: string }> {
  const dir = tempDir('kw-request-');
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  registerSearchFunctions(store);
  await store.write((tx) => {
    tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'alpha', 'completed', ?, ?)`, [T0, T0]);
  });
  return { store, dir };
}

async function addRows(store: Store, from: number, n: number): Promise<void> {
  await store.write((tx) => {
    for (let i = from; i < from + n; i++) {
      insertObservation(tx, {
        sessionId: 1,
        project: i % 2 ? 'alpha' : 'beta',
        type: i % 3 ? 'change' : 'decision',
        title: `${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} note ${i}`,
        narrative: `${WORDS[(i * 3) % 10]} changed because of ${WORDS[(i * 5) % 10]}`.repeat(1 + (i % 4)),
        facts: i % 5 ? [`fact ${i}`] : [],
        concepts: i % 4 ? ['how-it-works'] : ['trade-off'],
        filesModified: i % 2 ? [`src/f${i}.ts`] : [],
        toolName: 'Edit',
        promptNumber: 1,
        contentHash: `h${i}`,
        source: 'local',
        createdAt: T0 + i * 60_000,
      });
    }
  });
}

describe('keyword answers searched again', () => {
  let store: Store;
  before(async () => {
    ({ store } = await openStore());
    await addRows(store, 0, 300);
  });
  after(() => store.close(false));

  it('are the same when the priors come from the kept facts', async () => {
    const searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
    const req = (query: string, project?: string): SearchRequest => ({ query, mode: 'keyword', limit: 20, offset: 0, filters: { kinds: ['observation'], ...(project ? { project } : {}) } });
    for (const [q, p] of [['why the parser cache', undefined], ['socket retry', 'alpha'], ['budget', undefined]] as const) {
      const cold = await searcher.search(req(q, p));
      const warm = await searcher.search(req(q, p));
      assert.ok(cold.items.length > 0, q);
      assert.deepEqual(
        warm.items.map((r) => [r.id, r.score]),
        cold.items.map((r) => [r.id, r.score]),
        q,
      );
    }
  });
});

describe('the priors’ facts kept per row', () => {
  let store: Store;
  const N = 2348;
  before(async () => {
    ({ store } = await openStore());
    // Titles that repeat no other, so no title is read to tell duplicates apart.
    const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + (Math.floor(i / 26) % 26), 97 + (Math.floor(i / 676) % 26));
    await store.write((tx) => {
      for (let i = 0; i < N; i++) {
        insertObservation(tx, { sessionId: 1, project: i % 2 ? 'alpha' : 'beta', type: i % 3 ? 'change' : 'decision', title: `${WORDS[i % 10]} ${letters(i)}`, narrative: `${WORDS[(i * 3) % 10]} changed because of ${WORDS[(i * 7) % 10]}`.repeat(1 + (i % 4)), facts: [], concepts: i % 4 ? ['how-it-works'] : ['trade-off'], filesModified: i % 2 ? [`src/f${i}.ts`] : [], toolName: 'Edit', promptNumber: 1, contentHash: `u${i}`, source: 'local', createdAt: T0 + i * 60_000 });
      }
    });
  });
  after(() => store.close(false));

  it('reads a pool row once, however many rows were read since, with the same answers from the facts', async () => {
    let reads = 0;
    // The store as the search sees it, counting the statements that read the priors' lean rows.
    const db = new Proxy(store, {
      get: (t, key) => (key === 'all' ? <T>(sql: string, params?: (string | number)[]) => (sql.includes('AS bodyLength') && reads++, t.all<T>(sql, params)) : Reflect.get(t, key, t)),
    });
    const searcher = new Searcher(db, DEFAULT_SEARCH_SETTINGS, undefined);
    const req = (query: string, project?: string): SearchRequest => ({ query, mode: 'keyword', limit: 20, offset: 0, filters: { kinds: ['observation'], ...(project ? { project } : {}) } });
    const queries = [['parser cache', undefined], ['socket', 'beta'], ['why the retry schema', undefined], ['where is the render queue', undefined], ['budget', 'alpha']] as const;
    const first = [];
    for (const [q, p] of queries) first.push((await searcher.search(req(q, p))).items.map((r) => [r.id, r.score]));
    assert.ok(reads > 0, 'the pools’ rows read once');
    assert.ok(first.every((items) => items.length === 20));
    const facts = keptFacts(db, KINDS.observation);
    assert.ok(facts && first.flat().every(([id]) => priorsKept(facts, id as number)), 'their prior facts kept');
    reads = 0;
    const again = [];
    for (const [q, p] of queries) again.push((await searcher.search(req(q, p))).items.map((r) => [r.id, r.score]));
    assert.equal(reads, 0, 'no pool row read again');
    assert.deepEqual(again, first, 'the same answers from the facts as from the rows');
  });
});

describe('warm-up searches after start', () => {
  it('runs keyword searches on the newest titles, unfiltered and within their project', async () => {
    const { store } = await openStore();
    try {
      await addRows(store, 0, 40);
      const asked: SearchRequest[] = [];
      const searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
      const ran = await warmSearches(store, async (req) => (asked.push(req), searcher.search(req)));
      assert.equal(ran, WARM_SEARCHES);
      assert.equal(asked.length, WARM_SEARCHES);
      assert.ok(asked.every((r) => r.mode === 'keyword' && r.query.split(' ').length === 4));
      assert.equal(asked[0].query, 'budget retry note 39', 'the newest title first');
      assert.deepEqual(asked[0].filters, { kinds: ['observation'], project: 'alpha' });
      assert.deepEqual(asked[1].filters, { kinds: ['observation', 'summary', 'prompt'] });
    } finally {
      store.close(false);
    }
  });

  it('runs none on an empty store, and stops when asked', async () => {
    const { store } = await openStore();
    try {
      assert.equal(await warmSearches(store, () => assert.fail('no search on an empty store')), 0);
      await addRows(store, 0, 20);
      let n = 0;
      const searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
      assert.equal(await warmSearches(store, (req) => (n++, searcher.search(req)), () => n >= 3), 3);
    } finally {
      store.close(false);
    }
  });

  it('runs them once the service’s keyword warm-up is done', async () => {
    const { store, dir } = await openStore();
    await addRows(store, 0, 30);
    const service = new SearchService({ config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger }, { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, embeddings: 'off' }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } });
    try {
      const ran: string[] = [];
      const search = service.searcher.search.bind(service.searcher);
      service.searcher.search = (req, now) => (ran.push(req.query), search(req, now));
      service.start();
      await until(() => service.searchesWarmed !== undefined, 10_000);
      assert.equal(service.searchesWarmed, WARM_SEARCHES);
      assert.equal(ran.length, WARM_SEARCHES);
    } finally {
      await service.stop();
      store.close(false);
    }
  });
});

/** makeSnippet as every word was compared before (each word's lower case against each stem): what the pattern must equal. */
function snippetByWords(text: string, words: string[], width = 180): string {
  const WORD = new RegExp(`[${TOKEN_CHARS}]+`, 'g');
  const flat = text.replace(/\\n|\s+/g, ' ').replace(/[[\]"]/g, (c) => (c === '"' ? '' : ' ')).replace(/ {2,}/g, ' ').trim();
  if (flat === '') return '';
  const stems = [...new Set(words.map(stem).filter((s) => s.length > 0))];
  const hits: { start: number; end: number }[] = [];
  for (let m = WORD.exec(flat); m && stems.length > 0; m = WORD.exec(flat)) {
    const w = m[0].toLowerCase();
    if (stems.some((s) => w.startsWith(s))) hits.push({ start: m.index, end: m.index + m[0].length });
  }
  if (hits.length === 0) return flat.length <= width ? flat : flat.slice(0, flat.lastIndexOf(' ', width) > width / 2 ? flat.lastIndexOf(' ', width) : width) + '…';
  let best = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (j < hits.length && hits[j].end - hits[i].start <= width) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      best = i;
    }
  }
  const start = Math.max(0, Math.min(hits[best].start - 30, flat.length - width));
  const windowStart = start > 0 ? flat.indexOf(' ', start) + 1 || start : 0;
  const end = Math.min(flat.length, windowStart + width);
  let out = '';
  let pos = windowStart;
  for (const h of hits) {
    if (h.start < windowStart || h.end > end) continue;
    out += flat.slice(pos, h.start) + '**' + flat.slice(h.start, h.end) + '**';
    pos = h.end;
  }
  out += flat.slice(pos, end);
  return (windowStart > 0 ? '…' : '') + out.trim() + (end < flat.length ? '…' : '');
}

describe('snippets', () => {
  it('mark the same words as comparing every word with every stem, in ASCII text and beyond', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const vocab = ['Parser', 'parsing', 'parsed', 'cache', 'CACHED', 'caches', 'socket_io', 'retry2', 'x', 'é', 'café', 'İstanbul', 'naïve', 'a', 'the', 'Token', 'tokens', 'don’t', "won't", 'ids'];
    const seps = [' ', '  ', ' \n', '\u00a0', '\r\n ', '\t\t', '\n', '\\n', ', ', '. ', '"', '[', ']', '-', '—', '/', '(', ')', '\t'];
    const queries = [['parser'], ['cache', 'token'], ['socket_io', 'retry2'], ['café'], ['istanbul'], ['x'], ['ids', 'a'], ["don't"], ['naïve', 'parsing'], []];
    let marked = 0;
    for (let n = 0; n < 400; n++) {
      // Half in ASCII only (most notes), half with any of the words.
      const from = n % 2 === 0 ? vocab.filter((w) => /^[\x00-\x7f]*$/.test(w)) : vocab;
      const text = Array.from({ length: 5 + Math.floor(rand() * 120) }, () => pick(from) + pick(n % 2 === 0 ? seps.filter((c) => c !== '—') : seps)).join('');
      const words = queries[n % queries.length];
      const got = makeSnippet(text, words);
      assert.equal(got, snippetByWords(text, words), JSON.stringify({ text, words }));
      if (got.includes('**')) marked++;
    }
    assert.ok(marked > 200, `words were marked in ${marked} of 400`);
  });
});
