// Identifier parts (identifiers.ts): the index keeps client_msg_id and longestStreak whole, so a
// question naming their parts ("msg id", "longest streak") used to find nothing; in hybrid search a
// query word that is part of an identifier now also looks for the identifier (keyword mode keeps
// to the words typed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { registerSearchFunctions } from '../../worker/search/bm25';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { expandIdentifiers, IdentifierParts, identifierPartsOf, splitIdentifier } from '../../worker/search/identifiers';
import { KINDS } from '../../worker/search/records';
import { fillPriors, keptFacts, priorsKept } from '../../worker/search/rowFacts';
import { Searcher } from '../../worker/search/searcher';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { importSessions, parseImport } from '../../worker/transfer';
import { tempDir } from '../helpers/worker';

test('splitIdentifier: snake_case, camelCase, PascalCase and acronyms into lower-case words', () => {
  assert.deepEqual(splitIdentifier('client_msg_id'), ['client', 'msg', 'id']);
  assert.deepEqual(splitIdentifier('longestStreak'), ['longest', 'streak']);
  assert.deepEqual(splitIdentifier('getLatencyInSamples'), ['get', 'latency', 'in', 'samples']);
  assert.deepEqual(splitIdentifier('HTTPServer'), ['http', 'server']);
  assert.deepEqual(splitIdentifier('WidgetDataBridge'), ['widget', 'data', 'bridge']);
  assert.deepEqual(splitIdentifier('v2_api'), ['v2', 'api']);
  assert.deepEqual(splitIdentifier('a_b'), [], 'one-letter parts say nothing');
});

test('IdentifierParts: identifiers found by their parts, the best covered first, common parts left out', () => {
  const p = new IdentifierParts();
  p.add('The reconnect catch-up sends client_msg_id and last_seq; see RoomServer.handle_join, msg_id_index and msg_id.');
  p.add('plain words only, URLs, and a URL like http://example.com/a_b');
  assert.equal(p.size, 6, 'client_msg_id, last_seq, roomserver, handle_join, msg_id_index, msg_id');
  // msg_id is all named; the other two are two parts of three (then the most used, then by name).
  assert.deepEqual(p.expansions(['msg', 'id'], 1, 8).map((x) => x.identifier), ['msg_id', 'client_msg_id', 'msg_id_index']);
  const [x] = p.expansions(['room', 'server'], 0.7, 8);
  assert.equal(x.identifier, 'roomserver');
  assert.ok(Math.abs(x.weight - 0.7) < 1e-9, 'both parts named: the full weight');
  assert.ok(Math.abs(p.expansions(['seq'], 0.7, 8)[0].weight - 0.35) < 1e-9, 'one part of two: half');
  assert.deepEqual(p.expansions(['the', 'a'], 1, 8), [], 'stop words name nothing');
  assert.deepEqual(p.expansions(['client_msg_id'], 1, 8), [], 'a typed identifier is not added again');
  assert.equal(p.expansions(['msg', 'id'], 1, 1).length, 1, 'at most max');
  // A part in hundreds of identifiers (get_x, get_y, …) expands to none of them.
  const q = new IdentifierParts();
  for (let i = 0; i < 300; i++) q.add(`get_thing${i} `);
  q.add('getter_cache_size');
  assert.deepEqual(q.expansions(['get'], 1, 8), []);
  assert.deepEqual(q.expansions(['cache'], 1, 8).map((y) => y.identifier), ['getter_cache_size']);
  // Generated names and encoded blobs are not kept: over 64 characters, or over 8 parts.
  const r = new IdentifierParts();
  r.add(`${'segment_'.repeat(9)}end aB${'cD'.repeat(40)} one_two_three_four_five_six_seven_eight_nine file_name`);
  assert.equal(r.size, 1);
  assert.deepEqual(r.expansions(['file'], 1, 8).map((y) => y.identifier), ['file_name']);
  // Past the bound, new identifiers are not kept; those kept still count their rows.
  const full = new IdentifierParts(2);
  full.add('alpha_one beta_two gamma_three');
  full.add('alpha_one');
  assert.equal(full.size, 2);
  assert.deepEqual(full.expansions(['gamma'], 1, 8), []);
  assert.deepEqual(full.expansions(['alpha'], 1, 8).map((y) => y.identifier), ['alpha_one']);
});

test('expandIdentifiers: the identifiers join the query as weighted OR terms after what was typed', () => {
  const p = new IdentifierParts();
  p.add('client_msg_id');
  const q = parseFtsQuery('msg id')!;
  const e = expandIdentifiers(q, p, 0.7, 8);
  assert.deepEqual(e.phrases, ['"msg"', '"id"', '"client_msg_id"']);
  assert.equal(e.original, 2);
  assert.deepEqual(e.weights!.slice(0, 2), [1, 1]);
  assert.ok(Math.abs(e.weights![2] - 0.7 * (2 / 3)) < 1e-9);
  assert.equal(expandIdentifiers(q, p, 0, 8), q, 'weight 0: off');
  assert.equal(expandIdentifiers(parseFtsQuery('zebra')!, p, 0.7, 8).phrases.length, 1, 'nothing named: the query itself');
});

async function storeWith(observations: { id: number; title: string; narrative: string }[]): Promise<{ store: Store; t0: number }> {
  const store = await Store.open({ dir: path.join(tempDir('search-ident-'), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  registerSearchFunctions(store);
  const t0 = Date.parse('2026-03-01T10:00:00Z');
  await importObservations(store, t0, 'ident-1', observations);
  return { store, t0 };
}

async function importObservations(store: Store, t0: number, session: string, observations: { id: number; title: string; narrative: string }[]): Promise<void> {
  const doc = {
    format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date(t0 + 3_600_000).toISOString(), project: null,
    sessions: [{
      platform: 'claude-code', contentSessionId: session, project: 'p', cwd: '/src/p', status: 'completed', promptCounter: 1,
      startedAt: t0, updatedAt: t0 + 60_000, completedAt: t0 + 60_000, completionReason: 'exit',
      prompts: [{ id: 1, promptNumber: 1, text: 'work', createdAt: t0 }],
      observations: observations.map((o) => ({
        id: o.id, type: 'discovery', title: o.title, subtitle: null, narrative: o.narrative, facts: [], concepts: [], filesRead: [], filesModified: [],
        source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 10, toolName: 'Edit', promptNumber: 1, contentHash: `h-${session}-${o.id}`, createdAt: t0 + o.id * 1000,
      })),
      summaries: [],
    }],
  };
  await store.write((tx) => importSessions(tx, parseImport(doc)));
}

test('hybrid search: "msg id" and "longest streak" find the notes that only spell client_msg_id and longestStreak', async () => {
  const { store, t0 } = await storeWith([
    { id: 1, title: 'Reconnect catch-up', narrative: 'The client sends client_msg_id with every post so a retry is dropped by the unique index.' },
    { id: 2, title: 'Streak count fixed', narrative: 'longestStreak split at the clock change; the forward walk now adds calendar days.' },
    { id: 3, title: 'Read the socket code', narrative: 'Nothing changed.' },
  ]);
  try {
    // No vector side here: hybrid answers with its keyword list (and a notice), expansions included.
    const search = (query: string, settings: SearchSettings = DEFAULT_SEARCH_SETTINGS, mode: 'hybrid' | 'keyword' = 'hybrid') =>
      new Searcher(store, settings, undefined).search({ query, mode, filters: { kinds: ['observation'] }, limit: 10, offset: 0 }, t0 + 3_600_000);
    assert.deepEqual((await search('msg id')).items.map((i) => i.id), [1]);
    assert.deepEqual((await search('msg id', DEFAULT_SEARCH_SETTINGS, 'keyword')).items, [], 'keyword mode: the words typed only');
    assert.deepEqual((await search('longest streak')).items.map((i) => i.id)[0], 2);
    assert.deepEqual((await search('msg id', { ...DEFAULT_SEARCH_SETTINGS, identifierWeight: 0 })).items, [], 'off: the parts alone find nothing');
    // A record stored after the first search is caught up by the next one.
    await importObservations(store, t0, 'ident-2', [{ id: 4, title: 'Room sequence numbers', narrative: 'RoomServer assigns next_seq per room.' }]);
    assert.deepEqual((await search('room server')).items.map((i) => i.id)[0], 4);
  } finally {
    store.close(false);
  }
});

test('while the start-up fill walks the rows, a hybrid query leaves their identifiers to it; after, a query catches up the rows added since', async () => {
  const { store, t0 } = await storeWith(Array.from({ length: 40 }, (_, i) => ({ id: i + 1, title: `Note ${i}`, narrative: `the queue_depth_${i} gauge and retryBudget${i}` })));
  try {
    const asked: string[] = [];
    const db = {
      all: <T>(sql: string, params?: (string | number)[]) => (asked.push(sql), store.all<T>(sql, params)),
      get: <T>(sql: string, params?: (string | number)[]) => (asked.push(sql), store.get<T>(sql, params)),
    } as unknown as Store;
    const parts = identifierPartsOf(db);
    const search = () => new Searcher(db, DEFAULT_SEARCH_SETTINGS, undefined).search({ query: 'queue depth', mode: 'hybrid', filters: { kinds: ['observation'] }, limit: 10, offset: 0 }, t0 + 3_600_000);
    const catchUps = () => asked.filter((sql) => /AS text FROM observations WHERE id > \?/.test(sql)).length;
    parts.filling = true;
    await search();
    assert.equal(catchUps(), 0, 'no row read for identifiers on the query path');
    assert.equal(parts.size, 0);
    parts.filling = false;
    await search();
    assert.equal(catchUps(), 1);
    assert.equal(parts.size, 80, 'every queue_depth_N and retryBudgetN');
  } finally {
    store.close(false);
  }
});

test('fillPriors collects every row\'s identifiers in the walk that keeps its prior facts, once each', async () => {
  // alpha_helper in 600 rows, beta_helper in 500: alpha is the more used, unless some rows counted twice.
  const many = Array.from({ length: 1200 }, (_, i) => ({ id: i + 1, title: `Note ${i}`, narrative: `touches field_${i}_value ${i >= 600 ? 'alpha_helper' : ''} ${i < 500 ? 'beta_helper' : ''}` }));
  const { store } = await storeWith(many);
  try {
    const statements: string[] = [];
    const db: Pick<Store, 'all'> = {
      all: <T>(sql: string, params?: (string | number)[]) => {
        statements.push(sql);
        return store.all<T>(sql, params);
      },
    };
    const parts = new IdentifierParts();
    // A query caught up the first 700 rows already (searcher.ts): the walk skips them.
    parts.catchUp(store, 700);
    const fill = fillPriors(db, KINDS.observation, parts, 500);
    while (!fill.next().done);
    assert.equal(parts.size, 1202, 'every field_N_value, alpha_helper and beta_helper');
    assert.ok(parts.catchUp(store, 2), 'no observation left to read (the one prompt is read now)');
    assert.deepEqual(parts.expansions(['helper'], 1, 8).map((x) => x.identifier), ['alpha_helper', 'beta_helper'], 'rows counted once');
    const reads = statements.filter((sql) => /FROM observations c WHERE c\.id > \?/.test(sql));
    assert.equal(reads.length, 3, '1,200 rows in pages of 500');
    assert.ok(reads.every((sql) => sql.includes('AS bodyLength') && sql.includes('AS text')), 'the prior facts and the text in one statement');
    assert.ok(priorsKept(keptFacts(db, KINDS.observation)!, 1200), 'the prior facts kept');
  } finally {
    store.close(false);
  }
});
