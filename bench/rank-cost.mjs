// What ranking a word's matches costs per match (the first search of a word outside the
// warmed ones ranks all its matches), both ways in the same run on the same database:
//   pcnaly: cm_bm25(matchinfo 'pcnaly'): FTS4 looks each row's lengths up in its docsize table
//   y:      cm_bm25y(matchinfo 'y') and the lengths in memory (docLengths.ts): termLists.ts's SQL
//   segments: the word's doclists read from the index's segments and scored in JS (ftsPostings.ts),
//           what termLists.ts runs for a one-word phrase (the same rows and numbers)
// Terms in 1,000-10,000 observations; each way runs 3 times per term, in turns.
// (Tried and dropped: keeping each score from a function in the WHERE clause and sorting in JS was
// 0.92x of y: the function call is most of the cost, not SQLite's sort.)
//
//   node --import tsx bench/rank-cost.mjs <data dir>     (e.g. one kept by BENCH_KEEP=1 node bench/scale.mjs)
import * as path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { Store } = require('../worker/store/store.ts');
const { nullLogger } = require('../common/node/log.ts');
const { bm25Idf, partSql, registerSearchFunctions } = require('../worker/search/bm25.ts');
const { buildDocLengths } = require('../worker/search/docLengths.ts');
const { KINDS } = require('../worker/search/records.ts');
const { scoreFromSegments } = require('../worker/search/termLists.ts');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node --import tsx bench/rank-cost.mjs <data dir>');
  process.exit(1);
}
const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 2 ** 40, replicaScript: null });
registerSearchFunctions(store);
const k = KINDS.observation;
store.all(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.rank_cost_aux USING fts4aux(main, ${k.fts})`);
const terms = store.all(`SELECT term, documents AS df FROM temp.rank_cost_aux WHERE col = '*' AND documents BETWEEN 1000 AND 10000`).filter((_, i) => i % 7 === 0).slice(0, 12);
const pcnaly = `cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}')`;
const ordered = (part, term) => store.all(`SELECT docid AS id, ${part} AS s FROM ${k.fts} WHERE ${k.fts} MATCH ? ORDER BY s DESC, docid DESC`, [`"${term}"`]);
const t0 = performance.now();
const steps = buildDocLengths(store, k, 7);
while (!steps.next().done);
const buildMs = performance.now() - t0;
const ways = {
  pcnaly: (term) => ordered(pcnaly, term),
  y: (term) => ordered(partSql(store, k), term),
  segments: (term) => {
    if (!scoreFromSegments(store, k, `"${term}"`, 0, Infinity)) throw new Error(`${term}: not read from the segments`);
  },
};
bm25Idf.values = [1];
const names = Object.keys(ways);
const total = Object.fromEntries(names.map((n) => [n, 0]));
let matches = 0;
console.log(`# rank cost on ${dir}: ${terms.length} terms; lengths read in ${buildMs.toFixed(0)} ms`);
console.log(`| term | matches | ${names.map((n) => `${n} (µs a match)`).join(' | ')} |`);
console.log(`| --- | ---: |${' ---: |'.repeat(names.length)}`);
for (const { term, df } of terms) {
  const ms = Object.fromEntries(names.map((n) => [n, 0]));
  for (let rep = 0; rep < 3; rep++) {
    for (let i = 0; i < names.length; i++) {
      const n = names[(i + rep) % names.length];
      const t = performance.now();
      ways[n](term);
      ms[n] += (performance.now() - t) / 3;
    }
  }
  for (const n of names) total[n] += ms[n];
  matches += df;
  console.log(`| ${term} | ${df} | ${names.map((n) => ((ms[n] / df) * 1000).toFixed(2)).join(' | ')} |`);
}
console.log(`| all | ${matches} | ${names.map((n) => ((total[n] / matches) * 1000).toFixed(2)).join(' | ')} |`);
console.log(`\nratio: y / pcnaly ${(total.y / total.pcnaly).toFixed(2)}x, segments / y ${(total.segments / total.y).toFixed(2)}x`);
await store.close(false);
