// The two model steps (query expansion and reranking), run over the development sets dev2 and dev3 with scripted
// models: a measure of the plumbing and of what a model could give, not of any model's quality.
//   - Doc expansion. A fake compression model answers each memory with <search_phrases> that are
//     another question somebody asked about that memory (two folds: the phrases come from one half
//     of a memory's questions, the other half is evaluated). Its reply goes through the
//     compressor's parser and is stored as the fact the compressor stores, so the phrases reach the
//     keyword index and the embedded text the way a real model's would. A sibling question stands
//     in for a good model's guess at a future question; a real model's phrases are not measured.
//   - Chat-model rerank (extension/chat/modelRerank.ts). An oracle chat model names the answer when it is
//     among the 20 rows it is shown: the best any reranker can do from hybrid's top 20.
// Not run on the test set (test/fixtures/search-heldout4): the scripted phrases are questions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { rerankHits } from '../../extension/chat/modelRerank';
import type { ChatModelPort } from '../../extension/chat/handler';
import { phrasesFromFacts } from '../../worker/search/expansion';
import type { SearchService } from '../../worker/search/service';
import type { SearchMode } from '../../common/contract';
import { FOLD_SETS, readFoldSet, type FoldSet } from './folds';
import { scoreMode } from './score';
import type { EvalQuestion } from './sets';
import { checkSample, evalEmbedder } from '../helpers/evalVectors';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';

const root = path.resolve(__dirname, '../..');
// Every text these sets embed has a committed vector (vectors.bin in their folders).
const { encoder, packed } = evalEmbedder(FOLD_SETS.map((s) => path.join(root, s.dir)), 16);

interface Loaded extends FoldSet {
  base: EvalService;
  /** folds[f]: the store whose memories carry the phrases of fold f's questions. */
  folds: EvalService[];
}

const open: EvalService[] = [];
const sets: Loaded[] = [];

before(async () => {
  for (const { name, dir } of FOLD_SETS) {
    const set = readFoldSet(root, name, dir);
    const base = await openEvalService(`eval-models-${name}-`, importDoc(set.doc), packed);
    open.push(base);
    const folds: EvalService[] = [];
    for (const f of [0, 1]) {
      const svc = await openEvalService(`eval-models-${name}-fold${f}-`, importDoc(set.docs[f]), packed);
      open.push(svc);
      folds.push(svc);
    }
    sets.push({ ...set, base, folds });
  }
});

after(async () => {
  for (const s of open) await s.close();
  await encoder.close();
});

const f3 = (x: number) => x.toFixed(3);
const KINDS = ['observation', 'summary'] as const;

async function ranks(service: SearchService, questions: EvalQuestion[], mode: SearchMode, now: number): Promise<{ recall: number; mrr: number }> {
  const r = await scoreMode(service.searcher, questions, mode, [...KINDS], now);
  return { recall: r.recallAt5, mrr: r.mrr };
}

test('doc expansion with scripted phrases: stored through the parser, indexed, and measured on the other questions', async () => {
  for (const set of sets) {
    // The plumbing: every memory with phrases carries them as the compressor's fact, and a keyword
    // search for a phrase finds its memory.
    for (const f of [0, 1]) {
      const { service, store } = set.folds[f];
      let found = 0;
      let phrased = 0;
      for (const [ref, byFold] of set.asked) {
        for (const q of byFold[f]) {
          phrased++;
          const r = await service.searcher.search({ query: q.question, mode: 'keyword', filters: { project: q.project, kinds: [...KINDS] }, limit: 5, offset: 0 }, set.doc.fixtureNow);
          if (r.items.some((i) => i.ref === ref)) found++;
        }
        const row = store.get<{ facts: string }>('SELECT facts FROM observations WHERE id = ?', [Number(ref)]);
        assert.deepEqual(phrasesFromFacts(row?.facts), byFold[f].map((q) => q.question.replace(/[;\s]+/g, ' ').trim()), `${set.name} fold ${f}: memory ${ref} carries its phrases`);
      }
      assert.ok(found >= 0.9 * phrased, `${set.name} fold ${f}: a keyword search for a stored phrase finds its memory (${found} of ${phrased})`);
    }
    // The measure: questions whose memory got phrases from the other fold, before and after.
    const eligible = set.questions.map((q, i) => ({ q, i })).filter(({ q, i }) => !q.answers[0].startsWith('S') && (set.asked.get(q.answers[0])?.[1 - set.foldOf[i]].length ?? 0) > 0);
    const lines: string[] = [];
    for (const mode of ['keyword', 'semantic', 'hybrid'] as SearchMode[]) {
      const before = await ranks(set.base.service, eligible.map((e) => e.q), mode, set.doc.fixtureNow);
      let recall = 0;
      let mrr = 0;
      for (const f of [0, 1]) {
        // Questions of fold f are evaluated on the store that carries the other fold's phrases.
        const qs = eligible.filter((e) => set.foldOf[e.i] === f).map((e) => e.q);
        if (qs.length === 0) continue;
        const r = await ranks(set.folds[1 - f].service, qs, mode, set.doc.fixtureNow);
        recall += r.recall * qs.length;
        mrr += r.mrr * qs.length;
      }
      lines.push(`  ${mode.padEnd(8)} ${f3(before.recall)}/${f3(before.mrr)} -> ${f3(recall / eligible.length)}/${f3(mrr / eligible.length)}`);
    }
    console.log(`doc expansion, ${set.name}: ${eligible.length} of ${set.questions.length} questions have a memory with phrases from another question (recall@5/MRR without -> with):\n${lines.join('\n')}`);
    assert.ok(eligible.length >= 10, `${set.name}: enough questions to measure (${eligible.length})`);
  }
});

test('chat-model rerank with an oracle model: the ceiling from hybrid top 20, every hit kept', async () => {
  for (const set of sets) {
    let before = 0;
    let afterRerank = 0;
    let in20 = 0;
    for (const q of set.questions) {
      const r = await set.base.service.searcher.search({ query: q.question, mode: 'hybrid', filters: { project: q.project, kinds: [...KINDS] }, limit: 20, offset: 0 }, set.doc.fixtureNow);
      const oracle: ChatModelPort = {
        name: 'oracle',
        async send(messages) {
          const shown = messages[0].text;
          const named = q.answers.map((a) => (a.startsWith('S') ? `summary:${a.slice(1)}` : `#${a}`)).filter((id) => new RegExp(`^${id} `, 'm').test(shown));
          return (async function* () {
            yield named.join(' ') || 'none of these';
          })();
        },
      };
      const hits = r.items.map((i) => ({ ...i, score: i.score ?? undefined }));
      const reranked = (await rerankHits(q.question, hits, oracle, { isCancellationRequested: false })) as typeof hits;
      assert.deepEqual(reranked.map((h) => h.ref).sort(), r.items.map((h) => h.ref).sort(), 'rerank keeps every hit');
      const hit5 = (items: { ref: string }[]) => q.answers.some((a) => items.slice(0, 5).some((i) => i.ref === a));
      if (hit5(r.items)) before++;
      if (hit5(reranked)) afterRerank++;
      if (q.answers.some((a) => r.items.some((i) => i.ref === a))) in20++;
    }
    const n = set.questions.length;
    console.log(`chat rerank with an oracle model, ${set.name}: hybrid answer in top 5 ${f3(before / n)} -> ${f3(afterRerank / n)} (answer in top 20: ${f3(in20 / n)})`);
    assert.equal(afterRerank, in20, 'an oracle rerank lifts every answer it was shown into the top 5');
  }
});

test('every text of dev2 and dev3 and their fold stores came from the committed vectors', () => {
  assert.ok(packed.stats.fromPack > 0);
  assert.equal(packed.stats.missed, 0, 'texts without a committed vector: node --import tsx test/eval/vectors.ts writes them');
});

test('the committed vectors are the encoder\'s: 64 of the texts they served, drawn at random, embedded again agree (cosine >= 0.999)', async () => {
  const r = await checkSample(packed, encoder, 64, Number(process.env.EVAL_VECTORS_SEED) || Date.now() % 1e9);
  console.log(`committed vectors against the encoder (EVAL_VECTORS_SEED=${r.seed}): ${r.checked} texts, lowest cosine ${r.minCosine.toFixed(6)}`);
  assert.equal(r.checked, 64);
  assert.ok(r.minCosine >= 0.999, `cosine ${r.minCosine} for ${JSON.stringify(r.worst)}: the encoder changed; node --import tsx test/eval/vectors.ts writes the vectors again`);
});
