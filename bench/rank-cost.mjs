// What ranking a word's matches costs per match (issue 19: the first search of a word outside the
// warmed ones ranks all its matches), with FTS4's matchinfo 'pcnaly' (the row's lengths looked up
// by FTS4 per row) and with 'y' plus the lengths in memory (worker/search/docLengths.ts), in the
// same run on the same database. Terms in 1,000-10,000 observations; best of 3 statements each.
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
const t0 = performance.now();
const steps = buildDocLengths(store, k, 7);
while (!steps.next().done);
const buildMs = performance.now() - t0;

const rank = (part, term) => store.all(`SELECT docid AS id, ${part} AS s FROM ${k.fts} WHERE ${k.fts} MATCH ? ORDER BY s DESC, docid DESC`, [`"${term}"`]);
const best = (f) => {
  let b = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    f();
    b = Math.min(b, performance.now() - t);
  }
  return b;
};
bm25Idf.values = [1];
const pcnaly = `cm_bm25(matchinfo(${k.fts}, 'pcnaly'), '${k.weights}')`;
let sumOld = 0;
let sumNew = 0;
let matches = 0;
console.log(`# rank cost on ${dir}: ${terms.length} terms; lengths read in ${buildMs.toFixed(0)} ms`);
console.log('| term | matches | pcnaly (µs a match) | y + lengths (µs a match) | ratio |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const { term, df } of terms) {
  const a = best(() => rank(pcnaly, term));
  const b = best(() => rank(partSql(store, k), term));
  sumOld += a;
  sumNew += b;
  matches += df;
  console.log(`| ${term} | ${df} | ${((a / df) * 1000).toFixed(2)} | ${((b / df) * 1000).toFixed(2)} | ${(b / a).toFixed(2)}x |`);
}
console.log(`| all | ${matches} | ${((sumOld / matches) * 1000).toFixed(2)} | ${((sumNew / matches) * 1000).toFixed(2)} | ${(sumNew / sumOld).toFixed(2)}x |`);
await store.close(false);
