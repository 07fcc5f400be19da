// The search evaluation from the command line: every set of test/eval/sets.ts loaded into a real
// store with the real local encoder, each question asked in each mode, with and without its
// project filter. Prints recall@5 / MRR / nDCG@10 per set, mode and filter.
//   node --import tsx test/eval/run.ts [--misses] [--dev] [--modes keyword,hybrid] ['{"rrfK": 40}']
//   node --import tsx test/eval/run.ts --trials      every ranking mechanism switched off in turn
// --dev leaves the frozen test set out (choose constants on development sets only).
import type { SearchMode } from '../../common/contract';
import type { SearchSettings } from '../../worker/search/settings';
import { evalEmbedder } from '../helpers/evalVectors';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';
import { evalSets, type EvalSet } from './sets';
import { formatMisses, scoreMode, type ModeReport } from './score';

/** Each ranking mechanism switched off, and the modes it acts in. */
export const TRIALS: [string, Partial<SearchSettings>, SearchMode[]][] = [
  ['baseline', {}, ['keyword', 'semantic', 'hybrid']],
  ['no cue-word intents', { intentBoost: 0 }, ['keyword', 'semantic', 'hybrid']],
  ['no substance prior', { substancePrior: 0 }, ['keyword', 'semantic', 'hybrid']],
  ['no prompt lending', { promptWeight: 0 }, ['hybrid']],
  ['no leader floors', { keywordLeaderFloor: 0, vectorLeaderFloor: 0 }, ['hybrid']],
  ['no keyword lead rule', { keywordLeadRatio: 0 }, ['hybrid']],
  ['no identifier parts', { identifierWeight: 0 }, ['hybrid']],
  ['no density', { densityPenalty: 0 }, ['semantic', 'hybrid']],
  ['no duplicate demotion', { demoteDuplicates: false }, ['keyword', 'semantic', 'hybrid']],
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const overrides = JSON.parse(args.find((a) => a.startsWith('{')) ?? '{}') as Partial<SearchSettings>;
  const modes = (arg('--modes') ?? 'keyword,semantic,hybrid').split(',') as SearchMode[];
  const trials = args.includes('--trials') ? TRIALS.filter(([name]) => !arg('--only') || arg('--only')?.split(',').includes(name) || name === 'baseline') : [['as set', {}, modes] as (typeof TRIALS)[number]];
  const only = arg('--sets')?.split(',');
  const sets = evalSets().filter((s) => (!args.includes('--dev') || s.role === 'development') && (!only || only.includes(s.name)));
  // The development sets' texts from their committed vectors (test/helpers/evalVectors.ts), the rest through the disk cache.
  const { encoder, cached, packed } = evalEmbedder(sets.filter((s) => s.role === 'development').map((s) => s.dir), 32);
  const opened: { set: EvalSet; e: EvalService; base: SearchSettings }[] = [];
  for (const set of sets) {
    const e = await openEvalService(`search-eval-${set.name}-`, importDoc(set.history), set.role === 'development' ? packed : cached, overrides);
    opened.push({ set, e, base: { ...e.service.settings.search } });
  }
  console.log(`embeddings: ${packed.stats.fromPack} committed, ${cached.stats.hits} cached, ${cached.stats.misses} computed; overrides ${JSON.stringify(overrides)}`);
  const f = (x: number) => x.toFixed(3);
  const baseline = new Map<string, ModeReport>();
  for (const [trial, change, trialModes] of trials) {
    for (const { set, e, base } of opened) {
      // The searcher reads its settings object on every query: a trial changes it in place.
      Object.assign(e.service.settings.search, base, change);
      const reports: ModeReport[] = [];
      for (const mode of modes.filter((m) => trialModes.includes(m))) {
        for (const filter of [true, false]) {
          const r = await scoreMode(e.service.searcher, set.questions, mode, set.kinds, set.now, filter);
          reports.push(r);
          const key = `${set.name} ${mode} ${filter}`;
          const b = baseline.get(key);
          if (!b) baseline.set(key, r);
          const delta = b && b !== r ? `  (${r.recallAt5 - b.recallAt5 >= 0 ? '+' : ''}${f(r.recallAt5 - b.recallAt5)} / ${r.mrr - b.mrr >= 0 ? '+' : ''}${f(r.mrr - b.mrr)})` : '';
          console.log(`RESULT ${trial.padEnd(22)} ${set.name.padEnd(5)} ${set.role === 'test' ? 'TEST' : 'dev '} ${mode.padEnd(8)} ${filter ? 'project ' : 'all     '} R@5 ${f(r.recallAt5)}  MRR ${f(r.mrr)}  nDCG@10 ${f(r.ndcg10)}${delta}`);
        }
      }
      if (args.includes('--misses')) console.log(formatMisses(`${set.name} (${set.role}, ${set.questions.length} questions) ${trial}:`, reports));
    }
  }
  for (const { e } of opened) await e.close();
  await encoder.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
