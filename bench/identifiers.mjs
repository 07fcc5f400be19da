// What identifier parts (worker/search/identifiers.ts) cost, in process, on a store whose notes
// are full of identifiers (bench/search.mjs's synthetic text has none):
//
//   node --import tsx bench/identifiers.mjs            # 30k observations
//   BENCH_N=100000 node --import tsx bench/identifiers.mjs
//
// Text is built from the search fixture's words (Zipf); 40% of the observations also spell one or
// two of 8,000 identifiers made of two or three of those words (snake_case or camelCase, Zipf too).
// Prints the build (every row read and split: time, rows a second, identifiers, heap), then keyword
// ranking with the expansion off and on, alternating query by query, p50 / p95 and the ratio:
// hybrid mode without a vector side answers with its keyword list, so this is the keyword list
// hybrid search fuses, with and without the identifiers a query names.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prng } from '../test/fixtures/prng.ts';
import { fixtureText, pct, zipfPicker } from './lib.mjs';
import { nullLogger } from '../common/node/log.ts';
import { registerSearchFunctions } from '../worker/search/bm25.ts';
import { isStopWord } from '../worker/search/ftsQuery.ts';
import { IdentifierParts, identifierPartsOf } from '../worker/search/identifiers.ts';
import { Searcher } from '../worker/search/searcher.ts';
import { DEFAULT_SEARCH_SETTINGS } from '../worker/search/settings.ts';
import { insertObservation } from '../worker/store/repos/observations.ts';
import { migrate } from '../worker/store/schema.ts';
import { Store } from '../worker/store/store.ts';

const N = Number(process.env.BENCH_N ?? 30_000);
const QUERIES = 300;

const rand = prng(20261205);
const { int, topicWord, words } = fixtureText(rand, isStopWord);
const cap = (w) => w[0].toUpperCase() + w.slice(1);
const identifiers = Array.from({ length: 8000 }, () => {
  const parts = Array.from({ length: int(2, 3) }, topicWord);
  return rand() < 0.5 ? parts.join('_') : parts[0] + parts.slice(1).map(cap).join('');
});
const identifier = zipfPicker(identifiers, rand);
const withIdentifiers = (text) => (rand() < 0.4 ? `${text} ${Array.from({ length: int(1, 2) }, identifier).join(' ')}` : text);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-identifiers-'));
const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });
await migrate(store);
registerSearchFunctions(store);
const t0 = Date.UTC(2026, 0, 1);
let made = 0;
for (let sid = 1; made < N; sid++) {
  await store.write((tx) => {
    for (let k = 0; k < 100 && made < N; k++, sid++) {
      tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at) VALUES (?, 'claude-code', ?, 'p', '/p', 'completed', 1, ?, ?)`, [sid, `b-${sid}`, t0, t0]);
      for (let i = 0; i < 10 && made < N; i++, made++) {
        insertObservation(tx, {
          sessionId: sid, project: 'p', type: 'discovery', title: words(5, 9), subtitle: null, narrative: withIdentifiers(words(25, 60)), facts: [words(5, 10)], concepts: [],
          filesRead: [], filesModified: [], toolName: 'Edit', promptNumber: 1, contentHash: `h${made}`, source: 'local', discoveryTokens: 100, createdAt: t0 + made * 1000,
        });
      }
    }
  });
}

// The build: every row read and split, as the background warm-up does after start.
global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const tb = performance.now();
const parts = new IdentifierParts();
parts.catchUp(store, Infinity);
const buildMs = performance.now() - tb;
const heapMb = (process.memoryUsage().heapUsed - heap0) / 1e6;
console.log(`store: ${N} observations, 40% with identifiers (8,000 distinct, snake_case or camelCase)`);
console.log(`build: ${buildMs.toFixed(0)} ms (${Math.round(N / (buildMs / 1000))} rows/s), ${parts.size} identifiers, heap +${heapMb.toFixed(1)} MB (no --expose-gc: approximate)`);

// Queries: two or three topic words, as a question names things.
identifierPartsOf(store).catchUp(store, Infinity);
const queries = Array.from({ length: QUERIES }, () => Array.from({ length: int(2, 3) }, topicWord).join(' '));
const off = new Searcher(store, { ...DEFAULT_SEARCH_SETTINGS, identifierWeight: 0 }, undefined);
const on = new Searcher(store, DEFAULT_SEARCH_SETTINGS, undefined);
const run = (s, q) => s.search({ query: q, mode: 'hybrid', filters: { kinds: ['observation'] }, limit: 10, offset: 0 }, t0 + N * 1000);
// Every query once each way first: a word's first ranking builds its impact list (termLists.ts),
// which either side would pay; the figures are the steady state. Then alternating, each side
// first on every other query.
for (const q of queries) {
  await run(off, q);
  await run(on, q);
}
const times = { off: [], on: [] };
let expanded = 0;
for (const [i, q] of queries.entries()) {
  const sides = [['off', off], ['on', on]];
  for (const [name, s] of i % 2 ? sides.reverse() : sides) {
    const t = performance.now();
    await run(s, q);
    times[name].push(performance.now() - t);
  }
  if (parts.expansions(q.split(' '), 1, 8).length > 0) expanded++;
}
const f = (x) => x.toFixed(2);
console.log(`queries: ${QUERIES}, ${expanded} of them name a part of some identifier`);
console.log(`keyword list, expansion off: p50 ${f(pct(times.off, 50))} ms, p95 ${f(pct(times.off, 95))} ms`);
console.log(`keyword list, expansion on:  p50 ${f(pct(times.on, 50))} ms, p95 ${f(pct(times.on, 95))} ms`);
console.log(`ratio on / off: p50 ${(pct(times.on, 50) / pct(times.off, 50)).toFixed(2)}x, p95 ${(pct(times.on, 95) / pct(times.off, 95)).toFixed(2)}x`);
await store.close(false);
fs.rmSync(dir, { recursive: true, force: true });
