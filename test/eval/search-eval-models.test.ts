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
// Not run on the test set (test/fixtures/search-heldout2): the scripted phrases are questions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { rerankHits } from '../../extension/chat/modelRerank';
import type { ChatModelPort } from '../../extension/chat/handler';
import { parseObservations } from '../../worker/compression/parser';
import { createLocalEmbedder } from '../../worker/search/embed/embedder';
import { phrasesFromFacts, searchPhrasesFact } from '../../worker/search/expansion';
import type { SearchService } from '../../worker/search/service';
import type { SearchMode } from '../../common/contract';
import { scoreMode } from './score';
import { readSet, type EvalQuestion } from './sets';
import { diskCachedEmbedder } from '../helpers/diskCachedEmbedder';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';

const root = path.resolve(__dirname, '../..');
const built = path.join(root, 'dist/embedder.js');
const local = createLocalEmbedder({ threadScript: fs.existsSync(built) ? built : path.join(root, 'worker/search/embedderThread.ts'), batchSize: 16, log: nullLogger });
const embedder = diskCachedEmbedder(local, path.join(root, '.cache/search-eval-embeddings'));

interface Doc {
  fixtureNow: number;
  sessions: { observations: { id: number; type: string; title: string; facts?: string[] }[] }[];
}

const SETS = [
  { name: 'dev2', dir: 'test/fixtures/search-dev2' },
  { name: 'dev3', dir: 'test/fixtures/search-heldout' },
];

interface Loaded {
  name: string;
  doc: Doc;
  questions: EvalQuestion[];
  base: EvalService;
  /** folds[f]: the store whose memories carry the phrases of fold f's questions. */
  folds: EvalService[];
  /** Question index -> its fold (the i-th question naming a memory is in fold i % 2). */
  foldOf: number[];
  /** Memory ref -> the questions of each fold naming it. */
  asked: Map<string, [EvalQuestion[], EvalQuestion[]]>;
}

const open: EvalService[] = [];
const sets: Loaded[] = [];

/** What the fake compression model answers for a memory, through the parser, as the stored fact. */
function phraseFact(title: string, phrases: string[]): string[] {
  const reply = `<observation><type>change</type><title>${title}</title><search_phrases>${phrases.map((p) => `<phrase>${p}</phrase>`).join('')}</search_phrases></observation>`;
  const parsed = parseObservations(reply);
  assert.equal(parsed.kind, 'observations');
  return searchPhrasesFact(parsed.observations[0].searchPhrases);
}

function withPhrases(doc: Doc, phrases: Map<string, string[]>): Doc {
  const copy = JSON.parse(JSON.stringify(doc)) as Doc;
  for (const s of copy.sessions) {
    for (const o of s.observations) {
      const p = phrases.get(String(o.id));
      if (p && p.length > 0) o.facts = [...(o.facts ?? []), ...phraseFact(o.title, p)];
    }
  }
  return copy;
}

before(async () => {
  for (const { name, dir } of SETS) {
    const doc = JSON.parse(fs.readFileSync(path.join(root, dir, 'history.json'), 'utf8')) as Doc;
    const { questions } = readSet(path.join(root, dir), name, 'development');
    const asked = new Map<string, [EvalQuestion[], EvalQuestion[]]>();
    const foldOf = questions.map(() => 0);
    questions.forEach((q, i) => {
      const first = q.answers[0];
      if (first.startsWith('S')) return;
      const both = asked.get(first) ?? [[], []];
      asked.set(first, both);
      foldOf[i] = (both[0].length + both[1].length) % 2;
      both[foldOf[i]].push(q);
    });
    const base = await openEvalService(`eval-models-${name}-`, importDoc(doc), embedder);
    open.push(base);
    const folds: EvalService[] = [];
    for (const f of [0, 1]) {
      const phrases = new Map([...asked].map(([ref, byFold]) => [ref, byFold[f].map((q) => q.question)]));
      const svc = await openEvalService(`eval-models-${name}-fold${f}-`, importDoc(withPhrases(doc, phrases)), embedder);
      open.push(svc);
      folds.push(svc);
    }
    sets.push({ name, doc, questions, base, folds, foldOf, asked });
  }
});

after(async () => {
  for (const s of open) await s.close();
  await local.close();
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
