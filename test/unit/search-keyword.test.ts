// Keyword search over a real sql.js store holding the synthetic history: query sanitising (any
// input answers rows or nothing, never an error), BM25 ranking, every filter, paging, every match
// ranked, snippets, browsing without a query, and the keyword fallback when vectors are unavailable.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import type { SearchMode } from '../../common/contract';
import { bm25, idf, registerSearchFunctions } from '../../worker/search/bm25';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { parseSearchRequest, type SearchFilters } from '../../worker/search/params';
import { Searcher } from '../../worker/search/searcher';
import { KINDS } from '../../worker/search/records';
import { DEFAULT_SEARCH_SETTINGS, readSearchConfig } from '../../worker/search/settings';
import { makeSnippet } from '../../worker/search/snippet';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { fileHistory } from '../../worker/search/byFile';
import { importSessions, parseImport } from '../../worker/transfer';
import { allObservations, loadHistory, type FixtureHistory } from '../fixtures/search/load';
import { tempDir } from '../helpers/worker';

let store: Store;
let history: FixtureHistory;
let searcher: Searcher;
const ALL: SearchFilters['kinds'] = ['observation', 'summary', 'prompt'];

before(async () => {
  store = await Store.open({ dir: path.join(tempDir('search-kw-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  history = await loadHistory(store);
  registerSearchFunctions(store);
  searcher = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
});
after(() => store.close(false));

const search = (query: string, filters: Partial<SearchFilters> = {}, o: { mode?: SearchMode; limit?: number; offset?: number } = {}) =>
  searcher.search({ query, mode: o.mode ?? 'keyword', filters: { kinds: ALL, ...filters }, limit: o.limit ?? 20, offset: o.offset ?? 0 }, history.fixtureNow);
const obsByKey = (key: string) => {
  const o = allObservations(history).find((x) => x.key === key);
  if (!o) throw new Error(`no fixture observation ${key}`);
  return o;
};

describe('query sanitising', () => {
  it('re-emits every term as a quoted phrase, keeping phrases and prefixes', () => {
    const q = parseFtsQuery('title:refresh "token race" NEAR(a b) OR -x lin*');
    assert.ok(q);
    assert.deepEqual(q.phrases, ['"title refresh"', '"token race"', '"near a"', '"b"', '"x"', '"lin*"']);
  });

  it('drops stop words unless nothing else is left', () => {
    assert.equal(parseFtsQuery('why did the build fail')?.phrases.join(' '), '"build" "fail"');
    assert.equal(parseFtsQuery('what is it')?.phrases.join(' '), '"what" "is" "it"');
    assert.equal(parseFtsQuery('!!! ??? ***'), undefined);
  });

  it('reads contractions whole: "don\'t" is a stop word, a possessive looks for its noun', () => {
    // FTS4 cuts at the apostrophe: "don't" was the phrase "don t", a search term of its own, and
    // "customer's" the phrase "customer s", which a note saying "customer" does not match.
    assert.equal(parseFtsQuery("why don't we retry the upload")?.phrases.join(' '), '"retry" "upload"');
    assert.equal(parseFtsQuery('why can\u2019t you untick a day, what\'s the rule')?.phrases.join(' '), '"untick" "day" "rule"');
    assert.equal(parseFtsQuery("the customer's invoices")?.phrases.join(' '), '"customer" "invoices"');
    assert.equal(parseFtsQuery("users' lanes")?.phrases.join(' '), '"users" "lanes"');
    // Not a contraction: cut as FTS4 cuts it, and a quoted phrase is left as typed.
    assert.equal(parseFtsQuery("O'Brien report")?.phrases.join(' '), '"o brien" "report"');
    assert.equal(parseFtsQuery('"didn\'t sync"')?.phrases.join(' '), '"didn t sync"');
    // Only stop words: they are what is searched, in FTS4's own tokens.
    assert.equal(parseFtsQuery("didn't")?.phrases.join(' '), '"didn t"');
  });

  it('answers any input with rows or an empty list, never an error', async () => {
    const nasty = [
      '"', '""', '"unbalanced quote', "it's", 'a OR', 'OR', 'AND AND', 'NOT', '-', '-refresh', '*', 'ref*', '**x**', 'NEAR', 'NEAR/3', 'token NEAR/2 race',
      'title:', ':refresh', 'observations_fts:x', '(', ')', '((refresh)', '^refresh', '$', '\\', '\u0000', 'é', '日本語', '🔥🔥', 'x'.repeat(3000),
      'docid:1', "'; DROP TABLE observations; --", '%', '_', '[a-z]+', '"a" "b" "c" "d" "e" "f" "g" "h" "i" "j" "k" "l" "m" "n" "o" "p" "q" "r"',
    ];
    let seed = 7;
    for (let i = 0; i < 200; i++) {
      let s = '';
      for (let j = 0; j < 12; j++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        s += String.fromCharCode(32 + (seed % 96));
      }
      nasty.push(s);
    }
    for (const q of nasty) {
      for (const mode of ['keyword', 'hybrid'] as const) {
        const r = await search(q, {}, { mode });
        assert.ok(Array.isArray(r.items), `query ${JSON.stringify(q)}`);
      }
    }
  });
});

describe('ranking', () => {
  it('BM25 from matchinfo: rarer terms, title hits and short rows weigh more', () => {
    // 'pcnaly': p=1 phrase, c=2 columns, n=100 rows, average lengths, this row's lengths, hits per column.
    const mi = (lengths: [number, number], hits: [number, number]) => Uint32Array.from([1, 2, 100, 10, 50, ...lengths, ...hits]);
    const rare = bm25(mi([10, 50], [1, 0]), [1, 1], [idf(100, 1)]);
    const common = bm25(mi([10, 50], [1, 0]), [1, 1], [idf(100, 90)]);
    const inBody = bm25(mi([10, 50], [0, 1]), [3, 1], [idf(100, 1)]);
    const inTitle = bm25(mi([10, 50], [1, 0]), [3, 1], [idf(100, 1)]);
    const longRow = bm25(mi([40, 50], [1, 0]), [1, 1], [idf(100, 1)]);
    assert.ok(rare > common && common > 0);
    assert.ok(inTitle > inBody && inBody > 0);
    assert.ok(rare > longRow);
  });

  it('BM25 normalises length mildly: a row four times the average keeps most of its score', () => {
    // A memory that explains something is long; the notes that look like it are one line.
    const mi = (len: number) => Uint32Array.from([1, 1, 100, 10, len, 1]);
    const average = bm25(mi(10), [1], [idf(100, 1)]);
    const long = bm25(mi(40), [1], [idf(100, 1)]);
    const short = bm25(mi(3), [1], [idf(100, 1)]);
    assert.ok(long / average > 0.8, `long/average ${long / average}`);
    assert.ok(short / average < 1.1, `short/average ${short / average}`);
    assert.ok(short > average && average > long, 'shorter still weighs a little more');
  });

  it('finds the observation an identifier names, first', async () => {
    const r = await search('ECONNRESET', { project: 'atlas-api', kinds: ['observation'] });
    assert.equal(r.items[0].id, obsByKey('A5').id);
    assert.equal(r.modeUsed, 'keyword');
    assert.match(r.items[0].snippet ?? '', /\*\*ECONNRESET\*\*/);
    assert.ok(r.items.every((i, n) => n === 0 || (i.score ?? 0) <= (r.items[n - 1].score ?? 0)), 'scores descend');
  });

  it('finds a snake_case identifier as the index holds it: one token, underscores and all', async () => {
    // FTS4's porter tokenizer keeps '_' inside a token; splitting it made "rust decimal" a phrase no row has.
    for (const [query, key] of [['rust_decimal', 'L1'], ['import_hash', 'L9'], ['rust_decimal::Decimal rounding', 'L1']] as const) {
      const r = await search(query, { kinds: ['observation'] });
      assert.equal(r.items[0]?.id, obsByKey(key).id, `${query}: first is ${r.items[0]?.title}`);
      assert.match(r.items[0].snippet ?? '', new RegExp(`\\*\\*${query.split(':')[0]}\\*\\*`), `${query}: highlighted`);
    }
    assert.deepEqual(parseFtsQuery('where is load_config "snake_case x" _private*')?.phrases, ['"load_config"', '"snake_case x"', '"_private*"']);
  });

  it('stems: "retried" finds "retries" and "retry"', async () => {
    const r = await search('retried', { project: 'atlas-api', kinds: ['observation'] });
    assert.ok(r.items.some((i) => i.id === obsByKey('A5').id));
  });

  it('compact rows carry kind, ref, type, time, project, score and read tokens', async () => {
    const r = await search('token bucket');
    const row = r.items.find((i) => i.id === obsByKey('A4').id && i.kind === 'observation');
    assert.ok(row);
    assert.equal(row.ref, String(row.id));
    assert.equal(row.type, 'feature');
    assert.equal(row.project, 'atlas-api');
    assert.equal(row.time, new Date(obsByKey('A4').createdAt).toISOString());
    assert.ok(row.readTokens > 20 && row.readTokens < 400, `readTokens ${row.readTokens}`);
    const sum = r.items.find((i) => i.kind === 'summary');
    if (sum) assert.equal(sum.ref, `S${sum.id}`);
  });
});

describe('filters', () => {
  it('project', async () => {
    const r = await search('fixed', { project: 'pixel-ui' }, { limit: 100 });
    assert.ok(r.items.length > 5);
    assert.ok(r.items.every((i) => i.project === 'pixel-ui'));
  });

  it('type (observation types) and kind (record kinds)', async () => {
    const bugs = await search('fixed', { types: ['bugfix'], kinds: ['observation'] }, { limit: 100 });
    assert.ok(bugs.items.length > 3 && bugs.items.every((i) => i.type === 'bugfix' && i.kind === 'observation'));
    const req = parseSearchRequest((n) => ({ query: 'payments', type: 'sessions', limit: '50' })[n as 'query']);
    assert.deepEqual(req.filters.kinds, ['summary']);
    const sums = await searcher.search(req, history.fixtureNow);
    assert.ok(sums.items.length > 0 && sums.items.every((i) => i.kind === 'summary' && i.ref.startsWith('S')));
    const prompts = await search('logged out', { kinds: ['prompt'] });
    assert.ok(prompts.items.length > 0 && prompts.items.every((i) => i.kind === 'prompt' && i.ref.startsWith('P')));
  });

  it('concepts (any of), case-insensitive', async () => {
    const r = await search('fixed', { concepts: ['gotcha'], kinds: ['observation'] }, { limit: 100 });
    assert.ok(r.items.length > 0);
    const withGotcha = new Set(allObservations(history).filter((o) => o.concepts.includes('gotcha')).map((o) => o.id));
    assert.ok(r.items.every((i) => withGotcha.has(i.id)));
  });

  it('file (substring of a read or modified path)', async () => {
    const r = await search('refresh', { file: 'src/auth/refresh.ts', kinds: ['observation'] }, { limit: 100 });
    assert.ok(r.items.some((i) => i.id === obsByKey('A1').id));
    const touching = new Set(allObservations(history).filter((o) => [...o.filesRead, ...o.filesModified].some((f) => f.includes('src/auth/refresh.ts'))).map((o) => o.id));
    assert.ok(r.items.every((i) => touching.has(i.id)));
  });

  it('date range: start inclusive, end exclusive', async () => {
    const a1 = obsByKey('A1').createdAt;
    const inside = await search('refresh token', { from: a1, to: a1 + 1, kinds: ['observation'] });
    assert.deepEqual(inside.items.map((i) => i.id), [obsByKey('A1').id]);
    const before = await search('refresh token', { to: a1, kinds: ['observation'] }, { limit: 100 });
    assert.ok(before.items.every((i) => i.epoch < a1));
    const req = parseSearchRequest((n) => ({ query: 'x', dateStart: '2026-01-05', dateEnd: '2026-01-05' })[n as 'query']);
    assert.equal(req.filters.to! - req.filters.from!, 86_400_000, 'a date-only end covers that whole day');
  });

  it('paging: pages do not overlap and hasMore tells when more exist', async () => {
    const first = await search('src', {}, { limit: 5 });
    const second = await search('src', {}, { limit: 5, offset: 5 });
    const both = await search('src', {}, { limit: 10 });
    assert.equal(first.hasMore, true);
    assert.deepEqual([...first.items, ...second.items].map((i) => `${i.kind}${i.id}`), both.items.map((i) => `${i.kind}${i.id}`));
  });

  it('no query: the filters alone, newest first', async () => {
    const r = await search('', { project: 'ledger-cli', types: ['bugfix'], kinds: ['observation'] }, { limit: 50 });
    assert.equal(r.modeUsed, 'browse');
    assert.ok(r.items.length > 2 && r.items.every((i) => i.project === 'ledger-cli' && i.type === 'bugfix' && i.score === null));
    assert.ok(r.items.every((i, n) => n === 0 || i.epoch <= r.items[n - 1].epoch));
  });
});

describe('limits and fallbacks', () => {
  it('ignores a keywordRankCap left in settings.json: every match is ranked, the oldest too', async () => {
    const dir = tempDir('search-kw-cap-');
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ search: { keywordRankCap: 100 } }));
    const { search: settings } = readSearchConfig(dir, {});
    assert.equal('keywordRankCap' in settings, false);
    const k = KINDS.observation;
    const matches = store.all<{ id: number }>(`SELECT docid AS id FROM ${k.fts} WHERE ${k.fts} MATCH '"src"'`).map((m) => m.id);
    assert.ok(matches.length > 100, `more matches than the old cap: ${matches.length}`);
    const r = await new Searcher(store, settings, undefined).search({ query: 'src', mode: 'keyword', filters: { kinds: ['observation'] }, limit: matches.length, offset: 0 }, history.fixtureNow);
    assert.equal(r.notice, undefined);
    assert.deepEqual(r.items.map((i) => i.id).sort((a, b) => a - b), matches.sort((a, b) => a - b));
  });

  it('hybrid and semantic fall back to keyword with a visible notice when there is no vector side', async () => {
    for (const mode of ['hybrid', 'semantic'] as const) {
      const r = await search('ECONNRESET', {}, { mode });
      assert.equal(r.mode, mode);
      assert.equal(r.modeUsed, 'keyword');
      assert.match(r.notice ?? '', /semantic search unavailable.*showing keyword results/);
      assert.ok(r.items.length > 0);
    }
  });

  it('snippets show the densest window with matches in bold', () => {
    const s = makeSnippet(`${'filler words here '.repeat(30)}the refresh token was retried twice ${'more filler '.repeat(30)}`, ['retry', 'token']);
    assert.match(s, /^….*\*\*token\*\* was \*\*retried\*\*.*…$/);
    assert.ok(s.length < 220);
  });
});

/** A store of its own holding one session with these observations (id, title, files modified), for `fn`. */
async function withTinyStore(notes: [number, string, string[]][], fn: (s: Store, t0: number) => Promise<void>): Promise<void> {
  const s = await Store.open({ dir: path.join(tempDir('search-kw-tiny-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  try {
    await migrate(s);
    registerSearchFunctions(s);
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    const obs = ([id, title, files]: [number, string, string[]]) => ({
      id, type: 'change', title, subtitle: null, narrative: `${title}.`, facts: [], concepts: [], filesRead: [], filesModified: files,
      source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 10, toolName: 'Edit', promptNumber: 1, contentHash: `h-${id}`, createdAt: t0 + id * 1000,
    });
    const doc = {
      format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date(t0 + 3_600_000).toISOString(), project: null,
      sessions: [{
        platform: 'claude-code', contentSessionId: 'tiny-1', project: 'p', cwd: '/src/p', status: 'completed', promptCounter: 1,
        startedAt: t0, updatedAt: t0 + 60_000, completedAt: t0 + 60_000, completionReason: 'exit',
        prompts: [{ id: 1, promptNumber: 1, text: 'config', createdAt: t0 }],
        observations: notes.map(obs),
        summaries: [],
      }],
    };
    await s.write((tx) => importSessions(tx, parseImport(doc)));
    await fn(s, t0);
  } finally {
    s.close(false);
  }
}

const firstHit = async (s: Store, query: string, now: number) =>
  (await new Searcher(s, DEFAULT_SEARCH_SETTINGS, undefined).search({ query, mode: 'keyword', filters: { kinds: ['observation'] }, limit: 10, offset: 0 }, now)).items[0]?.id;

describe('snake_case file names', () => {
  it('the history of a file with underscores in its name, for its path and for its name in a search', async () => {
    await withTinyStore([[1, 'Config loader reads env first', ['src/load_config.py']], [2, 'Config loader docs', ['src/load.py', 'src/config.py']]], async (s, t0) => {
      const h = fileHistory(s, 'src/load_config.py', { limit: 10, offset: 0 });
      assert.deepEqual(h.items.map((i) => i.id), [1]);
      assert.equal(await firstHit(s, 'load_config.py', t0 + 3_600_000), 1);
    });
  });
});

describe('contractions and possessives', () => {
  it("a possessive finds the note that names the noun, and a contraction does not count as a word", async () => {
    // The newer note shares only "invoices" and "retried": on the old parser it came first, the
    // phrases "customer s" and "didn t" matching nothing (or every note that says "didn't").
    const notes: [number, string, string[]][] = [
      [1, 'Invoices grouped per customer account', []],
      [2, "Invoices exported as CSV, didn't touch totals", []],
      [3, 'Upload retried after the proxy timeout', []],
      [4, "Upload retried, didn't help, didn't log either", []],
    ];
    await withTinyStore(notes, async (s, t0) => {
      assert.equal(await firstHit(s, "the customer's invoices", t0 + 3_600_000), 1);
      assert.equal(await firstHit(s, "why didn't the upload get retried after a timeout", t0 + 3_600_000), 3);
    });
  });
});

describe('words with non-ASCII capitals', () => {
  // FTS4's porter tokenizer folds only ASCII letters: the index holds "Übersetzung" and "Ошибка"
  // as written, and a query folded to lower case (or typed in lower case) found neither.
  const notes: [number, string, string[]][] = [
    [1, 'Übersetzung der Fehlermeldungen nachgetragen', ['docs/Übersicht.md']],
    [2, 'Ошибка сети при загрузке: повтор через 2 с', []],
    [3, 'CAFÉ menu export fixed', []],
    [4, 'Menu export checked', ['docs/uebersicht.md']],
  ];

  it('a word is found however its non-ASCII letters are cased, in the note and in the query', async () => {
    await withTinyStore(notes, async (s, t0) => {
      for (const [query, id] of [['übersetzung', 1], ['Übersetzung', 1], ['ÜBERSETZUNG', 1], ['ошибка сети', 2], ['Ошибка', 2], ['café menu', 3]] as const) {
        assert.equal(await firstHit(s, query, t0 + 3_600_000), id, query);
      }
    });
  });

  it('the history of a file whose name starts with a non-ASCII capital', async () => {
    await withTinyStore(notes, async (s) => {
      assert.deepEqual(fileHistory(s, 'docs/Übersicht.md', { limit: 10, offset: 0 }).items.map((i) => i.id), [1]);
    });
  });

  it('the case forms are alternatives to the typed word, not requirements', () => {
    const q = parseFtsQuery('über export');
    assert.ok(q);
    assert.deepEqual(q.phrases, ['"über"', '"export"', '"Über"']);
    assert.equal(q.original, 2);
    assert.deepEqual(parseFtsQuery('plain words')?.phrases, ['"plain"', '"words"']);
  });
});

describe('words next to typographic punctuation', () => {
  // FTS4's tokenizer takes every non-ASCII character as part of a word: "cache—which", "“retry”"
  // and "user’s" were single tokens, so cache, retry and user were not in the index for these notes.
  const notes: [number, string, string[]][] = [
    [1, 'Stale reads from the cache—which we added for the feed—fixed', []],
    [2, 'The “retry” wrapper gave up after one attempt', []],
    [3, 'Refresh reads the user’s token from the keychain', []],
    [4, 'Resize to 1920×1080 → thumbnails … bullets • done', []],
  ];

  it('each word is found, and so is a phrase across the punctuation', async () => {
    await withTinyStore(notes, async (s, t0) => {
      for (const [query, id] of [['cache', 1], ['feed fixed', 1], ['retry wrapper', 2], ['“retry”', 2], ['user token', 3], ['user’s token', 3], ['1920', 4], ['thumbnails', 4], ['"cache which"', 1]] as const) {
        assert.equal(await firstHit(s, query, t0 + 3_600_000), id, query);
      }
    });
  });

  it('an edit and a delete take out what the index held', async () => {
    await withTinyStore(notes, async (s, t0) => {
      await s.write((tx) => tx.run('UPDATE observations SET title = ?, narrative = ? WHERE id = 1', ['Feed—timeline rename', 'Feed—timeline rename.']));
      assert.equal(await firstHit(s, 'cache', t0 + 3_600_000), undefined);
      assert.equal(await firstHit(s, 'timeline', t0 + 3_600_000), 1);
      await s.write((tx) => tx.run('DELETE FROM observations WHERE id = 2'));
      assert.equal(await firstHit(s, 'wrapper', t0 + 3_600_000), undefined);
      // FTS4 checks its index against the content it reads (through the view): nothing stale is left.
      await s.write((tx) => {
        for (const t of ['observations_fts', 'summaries_fts', 'prompts_fts']) tx.run(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`);
      });
    });
  });
});
