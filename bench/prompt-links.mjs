// What hybrid's third list (worker/search/promptLinks.ts: the records the matching prompts led to)
// costs, in process, against the keyword ranking hybrid runs anyway, on the same queries:
//
//   node --import tsx bench/prompt-links.mjs            # 30k observations
//   BENCH_N=100000 node --import tsx bench/prompt-links.mjs
//
// Sessions of 4-16 observations answer one to three prompts each (text from the search fixture's
// words, Zipf; one prompt in ten is boilerplate typed in many sessions). Queries are four to eight
// topic words. Each query is first run once (impact lists and frequencies are cached by either
// side), then the two are timed alternating, each first on every other query: the observations'
// keyword ranking (what hybrid pays already) and promptLinked (what it adds). Prints p50 / p95 and
// the ratio of the added cost to the baseline.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prng } from '../test/fixtures/prng.ts';
import { fixtureText, pct } from './lib.mjs';
import { nullLogger } from '../common/node/log.ts';
import { registerSearchFunctions } from '../worker/search/bm25.ts';
import { isStopWord, parseFtsQuery } from '../worker/search/ftsQuery.ts';
import { keywordSearch } from '../worker/search/keyword.ts';
import { promptLinked } from '../worker/search/promptLinks.ts';
import { DEFAULT_SEARCH_SETTINGS } from '../worker/search/settings.ts';
import { insertObservation } from '../worker/store/repos/observations.ts';
import { insertPrompt } from '../worker/store/repos/prompts.ts';
import { migrate } from '../worker/store/schema.ts';
import { Store } from '../worker/store/store.ts';

const N = Number(process.env.BENCH_N ?? 30_000);
const QUERIES = 300;
const BOILERPLATE = ['continue where we left off', 'fix the failing tests', 'keep going', 'run the build again'];

const rand = prng(20261205);
const { int, topicWord, words } = fixtureText(rand, isStopWord);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prompt-links-'));
const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });
await migrate(store);
registerSearchFunctions(store);
const t0 = Date.UTC(2026, 0, 1);
let made = 0;
let prompts = 0;
for (let sid = 1; made < N; ) {
  await store.write((tx) => {
    for (let k = 0; k < 100 && made < N; k++, sid++) {
      tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at) VALUES (?, 'claude-code', ?, 'p', '/p', 'completed', 1, ?, ?)`, [sid, `b-${sid}`, t0, t0]);
      const np = int(1, 3);
      for (let p = 1; p <= np; p++) {
        const text = rand() < 0.1 ? BOILERPLATE[int(0, BOILERPLATE.length - 1)] : words(8, 24);
        insertPrompt(tx, { sessionId: sid, project: 'p', promptNumber: p, text, createdAt: t0 + made * 1000 });
        prompts++;
        for (let i = int(2, 6); i > 0 && made < N; i--, made++) {
          insertObservation(tx, {
            sessionId: sid, project: 'p', type: 'discovery', title: words(5, 9), subtitle: null, narrative: words(25, 60), facts: [words(5, 10)], concepts: [],
            filesRead: [], filesModified: [], toolName: 'Edit', promptNumber: p, contentHash: `h${made}`, source: 'local', discoveryTokens: 100, createdAt: t0 + made * 1000,
          });
        }
      }
    }
  });
}
console.log(`store: ${N} observations, ${prompts} prompts (one in ten boilerplate)`);

const s = DEFAULT_SEARCH_SETTINGS;
const filters = { kinds: ['observation'] };
const queries = Array.from({ length: QUERIES }, () => parseFtsQuery(Array.from({ length: int(4, 8) }, topicWord).join(' '))).filter(Boolean);
const sides = {
  keyword: (q) => keywordSearch(store, q, filters, 100),
  prompts: (q) => promptLinked(store, q, filters, new Set(), s),
};
let lent = 0;
for (const q of queries) {
  await sides.keyword(q);
  lent += (await sides.prompts(q)).length;
}
const times = { keyword: [], prompts: [] };
for (const [i, q] of queries.entries()) {
  const order = i % 2 ? ['prompts', 'keyword'] : ['keyword', 'prompts'];
  for (const name of order) {
    const t = performance.now();
    await sides[name](q);
    times[name].push(performance.now() - t);
  }
}
const f = (x) => x.toFixed(2);
console.log(`queries: ${queries.length}, ${(lent / queries.length).toFixed(1)} records lent a query on average`);
console.log(`observations' keyword ranking (baseline): p50 ${f(pct(times.keyword, 50))} ms, p95 ${f(pct(times.keyword, 95))} ms`);
console.log(`prompt links (added):                     p50 ${f(pct(times.prompts, 50))} ms, p95 ${f(pct(times.prompts, 95))} ms`);
console.log(`added / baseline: p50 ${(pct(times.prompts, 50) / pct(times.keyword, 50)).toFixed(2)}x, p95 ${(pct(times.prompts, 95) / pct(times.keyword, 95)).toFixed(2)}x`);
await store.close(false);
fs.rmSync(dir, { recursive: true, force: true });
