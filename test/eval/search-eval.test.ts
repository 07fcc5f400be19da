// Retrieval quality with the real local sentence encoder, on five sets:
//   - development: test/fixtures/search (the set the fusion constants were chosen on);
//   - development 2: test/fixtures/search-dev2, written in the chat voice without looking at the
//     test set, 1,200+ records, so constants are chosen on dev ∪ dev2;
//   - development 3: test/fixtures/search-heldout, the first held-out set (1,600+ records), written
//     before any tuning; it was the test set before this one, was read too often to stay one,
//     and keeps the bars and floors it had then;
//   - development 4: test/fixtures/search-dev4, written by someone who had not read
//     the ranking code or either held-out set, in a stranger's chat voice, 1,700+ records;
//   - test (held out): test/fixtures/search-heldout2, written by someone who had not
//     read the ranking code or the other sets' questions, committed before the ranking
//     change, 1,700+ records. Constants are never chosen on it.
// Prints recall@5 and MRR per mode with the misses and each quality bar as met / NOT MET.
// Asserts every bar that is met, that the development sets do not fall below their figures of
// before that issue, and floors (the figures reached) for any test-set bar not met.
// Embeddings are cached on disk under .cache/search-eval-embeddings (keyed by a hash of the model
// and text), so only the first run pays for the ~2,000 texts (35-45 ms each locally).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import type { SearchKind, SearchMode } from '../../common/contract';
import { createLocalEmbedder } from '../../worker/search/embed/embedder';
import type { SearchService } from '../../worker/search/service';
import type { Store } from '../../worker/store/store';
import { evaluateRefs, formatReport, type EvalQuestion, type ModeReport } from '../fixtures/search-heldout/evaluate';
import { loadHistory, readQuestions, type FixtureHistory } from '../fixtures/search/load';
import { loadDev2, type Dev2History } from '../fixtures/search-dev2/load';
import { diskCachedEmbedder } from '../helpers/diskCachedEmbedder';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';

const built = path.resolve(__dirname, '../../dist/embedder.js');
const threadScript = fs.existsSync(built) ? built : path.resolve(__dirname, '../../worker/search/embedderThread.ts');
const cacheDir = path.resolve(__dirname, '../../.cache/search-eval-embeddings');
const heldoutDir = path.resolve(__dirname, '../fixtures/search-heldout');
const testDir = path.resolve(__dirname, '../fixtures/search-heldout2');
const dev4Dir = path.resolve(__dirname, '../fixtures/search-dev4');

interface HeldoutHistory {
  fixtureNow: number;
  sessions: { project: string; observations: { id: number; title: string }[]; summaries: { id: number }[] }[];
}

const local = createLocalEmbedder({ threadScript, batchSize: 16, log: nullLogger });
const embedder = diskCachedEmbedder(local, cacheDir);
let dev: { service: SearchService; history: FixtureHistory; questions: EvalQuestion[] };
let dev2: { service: SearchService; history: Dev2History; questions: EvalQuestion[] };
let held: { service: SearchService; history: HeldoutHistory; questions: EvalQuestion[] };
let test2: { service: SearchService; history: HeldoutHistory; questions: EvalQuestion[] };
let dev4: { service: SearchService; history: HeldoutHistory; questions: EvalQuestion[] };

const opened: EvalService[] = [];

async function open(prefix: string, load: (s: Store) => Promise<void>): Promise<SearchService> {
  const e = await openEvalService(prefix, load, embedder);
  opened.push(e);
  return e.service;
}

before(async () => {
  let history!: FixtureHistory;
  const devService = await open('search-eval-dev-', async (s) => {
    history = await loadHistory(s);
  });
  dev = {
    service: devService,
    history,
    questions: readQuestions().map((q) => ({ id: q.id, question: q.question, project: q.project, answers: q.answers.map(String) })),
  };
  let d2!: { history: Dev2History; questions: EvalQuestion[] };
  const dev2Service = await open('search-eval-dev2-', async (s) => {
    d2 = await loadDev2(s);
  });
  dev2 = { service: dev2Service, ...d2 };
  const h = JSON.parse(fs.readFileSync(path.join(heldoutDir, 'history.json'), 'utf8')) as HeldoutHistory;
  const heldService = await open('search-eval-heldout-', importDoc(h));
  held = { service: heldService, history: h, questions: JSON.parse(fs.readFileSync(path.join(heldoutDir, 'questions.json'), 'utf8')) as EvalQuestion[] };
  const t = JSON.parse(fs.readFileSync(path.join(testDir, 'history.json'), 'utf8')) as HeldoutHistory;
  const testService = await open('search-eval-test-', importDoc(t));
  test2 = { service: testService, history: t, questions: JSON.parse(fs.readFileSync(path.join(testDir, 'questions.json'), 'utf8')) as EvalQuestion[] };
  const h4 = JSON.parse(fs.readFileSync(path.join(dev4Dir, 'history.json'), 'utf8')) as HeldoutHistory;
  const dev4Service = await open('search-eval-dev4-', importDoc(h4));
  dev4 = { service: dev4Service, history: h4, questions: JSON.parse(fs.readFileSync(path.join(dev4Dir, 'questions.json'), 'utf8')) as EvalQuestion[] };
  console.log(`embeddings: ${embedder.stats.hits} from the disk cache, ${embedder.stats.misses} computed`);
});

after(async () => {
  for (const e of opened) await e.close();
  await local.close();
});

async function report(service: SearchService, questions: EvalQuestion[], kinds: SearchKind[], now: number): Promise<ModeReport[]> {
  const out: ModeReport[] = [];
  for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) out.push(await evaluateRefs(service.searcher, questions, mode, kinds, now));
  return out;
}

// dev4's generator varies its notes' wording more (1,189 distinct titles among 1,671 observations).
for (const [name, set, repeats] of [['first held-out set (development 3)', () => held, true], ['development 4', () => dev4, false], ['held-out test set', () => test2, true]] as const) {
  test(`${name}: 1,500+ records in 2+ projects, 80+ questions naming records that exist`, () => {
    const held = set();
    const obs = held.history.sessions.flatMap((s) => s.observations);
    const sums = held.history.sessions.flatMap((s) => s.summaries);
    const projects = new Set(held.history.sessions.map((s) => s.project));
    assert.ok(obs.length + sums.length >= 1500, `${obs.length + sums.length} records`);
    assert.ok(projects.size >= 2, `${projects.size} projects`);
    assert.ok(held.questions.length >= 80, `${held.questions.length} questions`);
    const refs = new Set([...obs.map((o) => String(o.id)), ...sums.map((s) => `S${s.id}`)]);
    for (const q of held.questions) assert.ok(q.answers.length > 0 && q.answers.every((a) => refs.has(a)), `${q.id} names records that exist`);
    assert.ok(held.questions.some((q) => q.answers.some((a) => a.startsWith('S'))), 'some questions are answered by a session summary');
    // Most of the bulk is near-duplicate notes: far fewer distinct titles than observations.
    if (repeats) assert.ok(new Set(obs.map((o) => o.title)).size < obs.length / 2, 'the bulk repeats itself');
  });
}

test('every record of every set is embedded by the background indexer', () => {
  for (const s of [dev.service, dev2.service, held.service, dev4.service, test2.service]) assert.equal(s.status().pending, 0);
  assert.equal(held.service.status().indexed.observations, held.history.sessions.reduce((n, s) => n + s.observations.length, 0));
  assert.equal(test2.service.status().indexed.observations, test2.history.sessions.reduce((n, s) => n + s.observations.length, 0));
  assert.equal(dev4.service.status().indexed.observations, dev4.history.sessions.reduce((n, s) => n + s.observations.length, 0));
});

test('search quality on every set: the quality bars that are met, floors for the rest', async () => {
  const d = await report(dev.service, dev.questions, ['observation'], dev.history.fixtureNow);
  const d2 = await report(dev2.service, dev2.questions, ['observation', 'summary'], dev2.history.fixtureNow);
  const h = await report(held.service, held.questions, ['observation', 'summary'], held.history.fixtureNow);
  const d4 = await report(dev4.service, dev4.questions, ['observation', 'summary'], dev4.history.fixtureNow);
  const t = await report(test2.service, test2.questions, ['observation', 'summary'], test2.history.fixtureNow);
  console.log(formatReport(`DEVELOPMENT set test/fixtures/search (${dev.questions.length} questions, observations):`, d));
  console.log(formatReport(`DEVELOPMENT set 2 test/fixtures/search-dev2 (${dev2.questions.length} questions, observations + summaries):`, d2));
  console.log(formatReport(`DEVELOPMENT set 3 (the first held-out set) test/fixtures/search-heldout (${held.questions.length} questions, observations + summaries):`, h));
  console.log(formatReport(`DEVELOPMENT set 4 test/fixtures/search-dev4 (${dev4.questions.length} questions, observations + summaries):`, d4));
  console.log(formatReport(`TEST set test/fixtures/search-heldout2 (${test2.questions.length} questions, observations + summaries):`, t));
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  const f = (x: number) => x.toFixed(3);
  // Compared as printed (3 decimals): the figures of record were taken that way.
  const r3 = (x: number) => Number(x.toFixed(3));
  const [dk, ds, dh] = d;
  const [tk, ts, th] = h;
  const [d2k, d2s, d2h] = d2;
  const [nk, ns, nh] = t;
  const [d4k, d4s, d4h] = d4;
  // One line per mode with every set (recall@5 / MRR), the summary to read without the misses.
  for (const [i, mode] of ['keyword', 'semantic', 'hybrid'].entries()) {
    console.log(`per mode: ${mode.padEnd(8)} dev ${f(d[i].recallAt5)}/${f(d[i].mrr)}  dev2 ${f(d2[i].recallAt5)}/${f(d2[i].mrr)}  dev3 ${f(h[i].recallAt5)}/${f(h[i].mrr)}  dev4 ${f(d4[i].recallAt5)}/${f(d4[i].mrr)}  test ${f(t[i].recallAt5)}/${f(t[i].mrr)}`);
  }
  // The quality bars, each printed as met or not and asserted, so none can silently regress;
  // below them, floors at the figures this code reached (docs/search.md), so those cannot fall either.
  const bars: [string, boolean][] = [
    [`development hybrid >= keyword and semantic (${f(dh.recallAt5)}/${f(dh.mrr)} vs ${f(Math.max(dk.recallAt5, ds.recallAt5))}/${f(Math.max(dk.mrr, ds.mrr))})`, dh.recallAt5 >= Math.max(dk.recallAt5, ds.recallAt5) && dh.mrr >= Math.max(dk.mrr, ds.mrr)],
    // Figures before the hybrid ranking work (docs/search.md): hybrid 0.952 / 0.843, keyword 0.885 / 0.827, semantic 0.769 / 0.638.
    [`development does not fall (hybrid ${f(dh.recallAt5)}/${f(dh.mrr)} >= 0.952/0.843, keyword ${f(dk.recallAt5)}/${f(dk.mrr)} >= 0.885/0.827, semantic ${f(ds.recallAt5)}/${f(ds.mrr)} >= 0.769/0.638)`,
      r3(dh.recallAt5) >= 0.952 && r3(dh.mrr) >= 0.843 && r3(dk.recallAt5) >= 0.885 && r3(dk.mrr) >= 0.827 && r3(ds.recallAt5) >= 0.769 && r3(ds.mrr) >= 0.638],
    // Figures of dev2 when it was committed, before any change chosen on it: hybrid 0.853 / 0.779, keyword 0.907 / 0.825, semantic 0.647 / 0.487.
    [`development 2 does not fall (hybrid ${f(d2h.recallAt5)}/${f(d2h.mrr)} >= 0.853/0.779, keyword ${f(d2k.recallAt5)}/${f(d2k.mrr)} >= 0.907/0.825, semantic ${f(d2s.recallAt5)}/${f(d2s.mrr)} >= 0.647/0.487)`,
      r3(d2h.recallAt5) >= 0.853 && r3(d2h.mrr) >= 0.779 && r3(d2k.recallAt5) >= 0.907 && r3(d2k.mrr) >= 0.825 && r3(d2s.recallAt5) >= 0.647 && r3(d2s.mrr) >= 0.487],
    // Figures of dev4 when it was committed, before any change chosen on it: hybrid 0.853 / 0.727, keyword 0.766 / 0.667, semantic 0.674 / 0.500.
    [`development 4 does not fall (hybrid ${f(d4h.recallAt5)}/${f(d4h.mrr)} >= 0.853/0.727, keyword ${f(d4k.recallAt5)}/${f(d4k.mrr)} >= 0.766/0.667, semantic ${f(d4s.recallAt5)}/${f(d4s.mrr)} >= 0.674/0.500)`,
      r3(d4h.recallAt5) >= 0.853 && r3(d4h.mrr) >= 0.727 && r3(d4k.recallAt5) >= 0.766 && r3(d4k.mrr) >= 0.667 && r3(d4s.recallAt5) >= 0.674 && r3(d4s.mrr) >= 0.5],
    [`dev4 hybrid >= keyword and semantic (${f(d4h.recallAt5)}/${f(d4h.mrr)} vs ${f(Math.max(d4k.recallAt5, d4s.recallAt5))}/${f(Math.max(d4k.mrr, d4s.mrr))})`, d4h.recallAt5 >= Math.max(d4k.recallAt5, d4s.recallAt5) && d4h.mrr >= Math.max(d4k.mrr, d4s.mrr)],
    // The first held-out set (dev3) keeps the bars it was held to as the test set.
    [`dev3 hybrid MRR ${f(th.mrr)} >= 0.75`, th.mrr >= 0.75],
    [`dev3 keyword recall@5 ${f(tk.recallAt5)} >= 0.80`, tk.recallAt5 >= 0.8],
    [`dev3 hybrid recall@5 ${f(th.recallAt5)} >= 0.90`, th.recallAt5 >= 0.9],
    [`dev3 hybrid >= keyword and semantic (${f(th.recallAt5)}/${f(th.mrr)} vs ${f(Math.max(tk.recallAt5, ts.recallAt5))}/${f(Math.max(tk.mrr, ts.mrr))})`, th.recallAt5 >= Math.max(tk.recallAt5, ts.recallAt5) && th.mrr >= Math.max(tk.mrr, ts.mrr)],
    // The test set.
    [`test hybrid recall@5 ${f(nh.recallAt5)} >= 0.90`, nh.recallAt5 >= 0.9],
    [`test hybrid MRR ${f(nh.mrr)} >= 0.75`, nh.mrr >= 0.75],
    [`test keyword recall@5 ${f(nk.recallAt5)} >= 0.80`, nk.recallAt5 >= 0.8],
    [`test hybrid >= keyword and semantic (${f(nh.recallAt5)}/${f(nh.mrr)} vs ${f(Math.max(nk.recallAt5, ns.recallAt5))}/${f(Math.max(nk.mrr, ns.mrr))})`, nh.recallAt5 >= Math.max(nk.recallAt5, ns.recallAt5) && nh.mrr >= Math.max(nk.mrr, ns.mrr)],
  ];
  console.log(['quality bars:', ...bars.map(([what, ok]) => `  ${ok ? 'met    ' : 'NOT MET'}  ${what}`)].join('\n'));
  // Asserted: every bar (all met on the test set).
  for (const [what, ok] of bars) check(ok, what);
  // Floors: the figures reached on this branch (a fall is a regression).
  check(r3(th.recallAt5) >= 0.954 && r3(th.mrr) >= 0.901, `dev3 hybrid fell below 0.954 / 0.901: ${f(th.recallAt5)} / ${f(th.mrr)}`);
  check(r3(d2h.recallAt5) >= 0.973 && r3(d2h.mrr) >= 0.931, `dev2 hybrid fell below 0.973 / 0.931: ${f(d2h.recallAt5)} / ${f(d2h.mrr)}`);
  check(r3(d4h.recallAt5) >= 0.95 && r3(d4h.mrr) >= 0.878, `dev4 hybrid fell below 0.950 / 0.878: ${f(d4h.recallAt5)} / ${f(d4h.mrr)}`);
  check(r3(d4k.recallAt5) >= 0.858 && r3(d4k.mrr) >= 0.766, `dev4 keyword fell below 0.858 / 0.766: ${f(d4k.recallAt5)} / ${f(d4k.mrr)}`);
  check(r3(nh.recallAt5) >= 0.904 && r3(nh.mrr) >= 0.75, `test hybrid fell below 0.904 / 0.750: ${f(nh.recallAt5)} / ${f(nh.mrr)}`);
  check(r3(nk.recallAt5) >= 0.85 && r3(nk.mrr) >= 0.715, `test keyword fell below 0.850 / 0.715: ${f(nk.recallAt5)} / ${f(nk.mrr)}`);
  check(r3(ns.recallAt5) >= 0.742 && r3(ns.mrr) >= 0.581, `test semantic fell below 0.742 / 0.581: ${f(ns.recallAt5)} / ${f(ns.mrr)}`);
  assert.deepEqual(problems, []);
});
