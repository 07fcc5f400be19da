// Retrieval quality with the real local sentence encoder, on every set of test/eval/sets.ts, in
// the standard form of test/eval/FORMAT.md (records, questions, qrels):
//   - development sets dev .. dev6 (test/fixtures/search, search-dev2, search-heldout, search-dev4,
//     search-heldout2, search-heldout3): read many times, so constants may be chosen on them; each keeps a floor at
//     the figures reached (docs/search.md), so none can fall unnoticed;
//   - the frozen test set, test/fixtures/search-heldout4, when its folder is there: written by
//     someone who had not read the ranking code; read once per change, never tuned on. Its
//     quality bars are printed as met / NOT MET (not asserted: its figures of record are read by
//     whoever runs it, once).
// Each question is asked in each mode, with its project filter and without. The development sets'
// texts come from their committed vectors (vectors.bin, test/helpers/evalVectors.ts), checked
// against the encoder on a random sample; the test set's are computed, and cached on disk under
// .cache/search-eval-embeddings (keyed by a hash of the model and text), so only the first run
// pays for them (about 25 ms of CPU a text).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { SearchMode } from '../../common/contract';
import { checkSample, evalEmbedder } from '../helpers/evalVectors';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';
import { formatMisses, scoreMode, type ModeReport } from './score';
import { evalSets, type EvalSet } from './sets';

const sets = evalSets();
const { encoder, cached, packed } = evalEmbedder(sets.filter((s) => s.role === 'development').map((s) => s.dir), 16);
const opened = new Map<string, EvalService>();

/**
 * Floors of the development sets (recall@5 / MRR), with each question's project filter and
 * without one: the figures this code reached (docs/search.md). A fall below one is a regression.
 */
const FLOORS: Record<string, Partial<Record<SearchMode, [number, number]>>> = {
  dev: { keyword: [0.933, 0.901], hybrid: [0.981, 0.962] },
  dev2: { keyword: [0.933, 0.882], hybrid: [0.987, 0.931] },
  dev3: { keyword: [0.943, 0.839], hybrid: [0.954, 0.895] },
  dev4: { keyword: [0.872, 0.777], hybrid: [0.95, 0.885] },
  dev5: { keyword: [0.863, 0.744], hybrid: [0.908, 0.781] },
  dev6: { keyword: [0.954, 0.809], hybrid: [0.977, 0.82] },
};
const FLOORS_NO_FILTER: Record<string, Partial<Record<SearchMode, [number, number]>>> = {
  dev: { keyword: [0.885, 0.884], hybrid: [0.981, 0.931] },
  dev2: { keyword: [0.907, 0.854], hybrid: [0.98, 0.905] },
  dev3: { keyword: [0.943, 0.82], hybrid: [0.943, 0.846] },
  dev4: { keyword: [0.853, 0.753], hybrid: [0.945, 0.847] },
  dev5: { keyword: [0.838, 0.699], hybrid: [0.867, 0.748] },
  dev6: { keyword: [0.885, 0.761], hybrid: [0.897, 0.765] },
};

before(async () => {
  // The test set's texts are computed (and disk-cached), never looked up in the development sets' files.
  for (const set of sets) opened.set(set.name, await openEvalService(`search-eval-${set.name}-`, importDoc(set.history), set.role === 'development' ? packed : cached));
});

after(async () => {
  for (const e of opened.values()) await e.close();
  await encoder.close();
});

test('the six development sets are there, each naming records that exist', () => {
  assert.deepEqual(sets.filter((s) => s.role === 'development').map((s) => s.name), ['dev', 'dev2', 'dev3', 'dev4', 'dev5', 'dev6']);
  for (const s of sets) assert.ok(s.questions.length >= (s.role === 'development' ? 50 : 1), `${s.name}: ${s.questions.length} questions`);
});

test('every record of every set is embedded by the background indexer', () => {
  for (const set of sets) {
    const st = (opened.get(set.name) as EvalService).service.status();
    assert.equal(st.pending, 0, set.name);
    assert.equal(st.indexed.observations, set.history.sessions.reduce((n, s) => n + s.observations.length, 0), set.name);
  }
});

async function report(set: EvalSet): Promise<ModeReport[]> {
  const { service } = opened.get(set.name) as EvalService;
  const out: ModeReport[] = [];
  for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) {
    for (const filter of [true, false]) out.push(await scoreMode(service.searcher, set.questions, mode, set.kinds, set.now, filter));
  }
  return out;
}

test('search quality on every set: development floors asserted, the test set\'s bars printed', async () => {
  const f = (x: number) => x.toFixed(3);
  const r3 = (x: number) => Number(x.toFixed(3));
  const problems: string[] = [];
  const lines = ['set    role         mode      filter    recall@5  MRR    nDCG@10'];
  const bars: [string, boolean][] = [];
  for (const set of sets) {
    const reports = await report(set);
    console.log(formatMisses(`${set.role === 'test' ? 'TEST' : 'DEVELOPMENT'} set ${set.name} ${path.relative(path.resolve(__dirname, '../..'), set.dir)} (${set.questions.length} questions):`, reports));
    for (const r of reports) lines.push(`${set.name.padEnd(6)} ${set.role.padEnd(12)} ${r.mode.padEnd(9)} ${r.projectFilter ? 'project' : 'none   '}   ${f(r.recallAt5)}     ${f(r.mrr)}  ${f(r.ndcg10)}`);
    const get = (mode: SearchMode, filter: boolean) => reports.find((r) => r.mode === mode && r.projectFilter === filter) as ModeReport;
    if (set.role === 'test') {
      bars.push([`test hybrid recall@5 without a project filter ${f(get('hybrid', false).recallAt5)} >= 0.90`, get('hybrid', false).recallAt5 >= 0.9]);
      bars.push([`test hybrid recall@5 with the project filter ${f(get('hybrid', true).recallAt5)} >= 0.95`, get('hybrid', true).recallAt5 >= 0.95]);
      bars.push([`test keyword recall@5 without a project filter ${f(get('keyword', false).recallAt5)} >= 0.80`, get('keyword', false).recallAt5 >= 0.8]);
      continue;
    }
    const h = get('hybrid', true);
    const best = Math.max(get('keyword', true).recallAt5, get('semantic', true).recallAt5);
    if (h.recallAt5 < best) problems.push(`${set.name}: hybrid recall@5 ${f(h.recallAt5)} below a single side's ${f(best)}`);
    for (const [filter, floors] of [[true, FLOORS], [false, FLOORS_NO_FILTER]] as const) {
      for (const [mode, [recall, mrr]] of Object.entries(floors[set.name] ?? {}) as [SearchMode, [number, number]][]) {
        const r = get(mode, filter);
        if (r3(r.recallAt5) < recall || r3(r.mrr) < mrr) problems.push(`${set.name} ${mode} ${filter ? 'with the project filter' : 'without a filter'} fell below ${f(recall)} / ${f(mrr)}: ${f(r.recallAt5)} / ${f(r.mrr)}`);
      }
    }
  }
  console.log(lines.join('\n'));
  if (bars.length > 0) console.log(['quality bars of the frozen test set:', ...bars.map(([what, ok]) => `  ${ok ? 'met    ' : 'NOT MET'}  ${what}`)].join('\n'));
  else console.log('no frozen test set (test/fixtures/search-heldout4) here: development sets only');
  assert.deepEqual(problems, []);
});

test('every text of the development sets came from their committed vectors', () => {
  console.log(`embeddings: ${packed.stats.fromPack} committed, ${cached.stats.hits} from the disk cache, ${cached.stats.misses} computed`);
  assert.ok(packed.stats.fromPack > 0);
  assert.equal(packed.stats.missed, 0, 'development texts without a committed vector: node --import tsx test/eval/vectors.ts writes them');
});

test('the committed vectors are the encoder\'s: 64 of the texts they served, drawn at random, embedded again agree (cosine >= 0.999)', async () => {
  const r = await checkSample(packed, encoder, 64, Number(process.env.EVAL_VECTORS_SEED) || Date.now() % 1e9);
  console.log(`committed vectors against the encoder (EVAL_VECTORS_SEED=${r.seed}): ${r.checked} texts, lowest cosine ${r.minCosine.toFixed(6)}`);
  assert.equal(r.checked, 64);
  assert.ok(r.minCosine >= 0.999, `cosine ${r.minCosine} for ${JSON.stringify(r.worst)}: the encoder changed; node --import tsx test/eval/vectors.ts writes the vectors again`);
});
