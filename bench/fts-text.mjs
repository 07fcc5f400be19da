// What schema 9 (worker/store/ftsText.ts: the full-text index reads records through views that
// cut words at dashes, curly quotes and arrows) costs, in process:
//
//   node --import tsx bench/fts-text.mjs              # 30k observations
//   BENCH_N=100000 node --import tsx bench/fts-text.mjs
//
// Text is the search fixture's words (Zipf) in sentences; PUNCT_SHARE (0.4) of the observations
// write like a chat model: an em dash between words, a “quoted” word, a user’s possessive.
// Prints, in one run:
//   - the upgrade: migrating a schema 8 store of N observations to 9 (the three indexes rebuilt
//     through the views), against rebuilding the same index from the table (schema 8's way);
//   - writing: N/10 observations inserted 100 a transaction on a schema 8 store and on a schema 9
//     store, alternating batch by batch, ms per 100 and the ratio.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prng } from '../test/fixtures/prng.ts';
import { fixtureWords, pct, zipfPicker } from './lib.mjs';
import { nullLogger } from '../common/node/log.ts';
import { isStopWord } from '../worker/search/ftsQuery.ts';
import { insertObservation } from '../worker/store/repos/observations.ts';
import { migrate } from '../worker/store/schema.ts';
import { Store } from '../worker/store/store.ts';

const N = Number(process.env.BENCH_N ?? 30_000);
const PUNCT_SHARE = 0.4;

const rand = prng(20261206);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const vocab = fixtureWords();
const word = zipfPicker(vocab, rand);
const words = (lo, hi) => Array.from({ length: int(lo, hi) }, word).join(' ');
const chatty = (text) => (rand() < PUNCT_SHARE ? `${words(3, 8)}—${text} “${word()}” the ${word()}’s ${words(2, 5)}` : text);

const t0 = Date.UTC(2026, 0, 1);
let made = 0;
async function fill(store, n) {
  for (let sid = 1 + made; n > 0; ) {
    await store.write((tx) => {
      for (let k = 0; k < 100 && n > 0; k++, sid++) {
        tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, cwd, status, prompt_counter, started_at, updated_at) VALUES (?, 'claude-code', ?, 'p', '/p', 'completed', 1, ?, ?)`, [sid, `b-${sid}`, t0, t0]);
        for (let i = 0; i < 10 && n > 0; i++, n--, made++) {
          insertObservation(tx, {
            sessionId: sid, project: 'p', type: 'discovery', title: chatty(words(5, 9)), subtitle: null, narrative: chatty(words(25, 60)), facts: [words(5, 10)], concepts: [],
            filesRead: [], filesModified: [], toolName: 'Edit', promptNumber: 1, contentHash: `h${made}`, source: 'local', discoveryTokens: 100, createdAt: t0 + made * 1000,
          });
        }
      }
    });
  }
}
const open = (name) => Store.open({ dir: fs.mkdtempSync(path.join(os.tmpdir(), `bench-fts-text-${name}-`)), log: nullLogger, snapshotJournalBytes: 1 << 40, replicaScript: null });

// The upgrade.
const old = await open('upgrade');
await migrate(old, 8);
await fill(old, N);
const found = (w) => Number(old.get(`SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH ?`, [`"${w}"`])?.n ?? 0);
const probe = vocab.filter((w) => !isStopWord(w)).slice(0, 3);
const before = probe.map(found);
let tb = performance.now();
await old.write((tx) => tx.run(`INSERT INTO observations_fts(observations_fts) VALUES ('rebuild')`));
const baseMs = performance.now() - tb;
tb = performance.now();
await migrate(old);
const upMs = performance.now() - tb;
console.log(`store: ${N} observations, ${PUNCT_SHARE * 100}% written with an em dash, a “quoted” word and a possessive`);
console.log(`upgrade 8 -> 9: ${upMs.toFixed(0)} ms (three indexes through the views); schema 8's rebuild of the observations index: ${baseMs.toFixed(0)} ms; ratio ${(upMs / baseMs).toFixed(2)}x`);
console.log(`rows the three commonest non-stop words find, schema 8 -> 9: ${probe.map((w, i) => `${w} ${before[i]} -> ${found(w)}`).join(', ')}`);
await old.close(false);

// Writing, alternating batch by batch.
const s8 = await open('w8');
const s9 = await open('w9');
await migrate(s8, 8);
await migrate(s9);
const times = { 8: [], 9: [] };
for (let b = 0; b < Math.max(10, N / 1000); b++) {
  for (const [v, s] of b % 2 ? [[9, s9], [8, s8]] : [[8, s8], [9, s9]]) {
    const t = performance.now();
    await fill(s, 100);
    times[v].push(performance.now() - t);
  }
}
const line = (v) => `p50 ${pct(times[v], 50).toFixed(2)} ms, p95 ${pct(times[v], 95).toFixed(2)} ms`;
console.log(`insert 100 observations a transaction (${times[8].length} batches each): schema 8 ${line(8)}; schema 9 ${line(9)}; p50 ratio ${(pct(times[9], 50) / pct(times[8], 50)).toFixed(2)}x`);
await s8.close(false);
await s9.close(false);
