// The doc-expansion folds of search-eval-models.test.ts: each memory that answers questions gets,
// as search phrases a fake compression model wrote, the questions of one fold (the i-th question
// naming a memory is in fold i % 2); the other fold's questions are evaluated on that store.
// test/eval/vectors.ts builds the same fold stores to commit their vectors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseObservations } from '../../worker/compression/parser';
import { searchPhrasesFact } from '../../worker/search/expansion';
import { readSet, type EvalQuestion } from './sets';

/** The development sets the model steps run over. */
export const FOLD_SETS = [
  { name: 'dev2', dir: 'test/fixtures/search-dev2' },
  { name: 'dev3', dir: 'test/fixtures/search-heldout' },
];

export interface Doc {
  fixtureNow: number;
  sessions: { observations: { id: number; type: string; title: string; facts?: string[] }[] }[];
}

export interface FoldSet {
  name: string;
  doc: Doc;
  questions: EvalQuestion[];
  /** Question index -> its fold (the i-th question naming a memory is in fold i % 2). */
  foldOf: number[];
  /** Memory ref -> the questions of each fold naming it. */
  asked: Map<string, [EvalQuestion[], EvalQuestion[]]>;
  /** docs[f]: the history whose memories carry the phrases of fold f's questions. */
  docs: [Doc, Doc];
}

/** What the fake compression model answers for a memory, through the parser, as the stored fact. */
export function phraseFact(title: string, phrases: string[]): string[] {
  const reply = `<observation><type>change</type><title>${title}</title><search_phrases>${phrases.map((p) => `<phrase>${p}</phrase>`).join('')}</search_phrases></observation>`;
  const parsed = parseObservations(reply);
  if (parsed.kind !== 'observations') throw new Error(`the parser did not read the fake model's reply for "${title}" as observations`);
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

/** One set of FOLD_SETS read, its questions split into folds and both fold histories made. */
export function readFoldSet(root: string, name: string, dir: string): FoldSet {
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
  const docs = ([0, 1] as const).map((f) => withPhrases(doc, new Map([...asked].map(([ref, byFold]) => [ref, byFold[f].map((q) => q.question)])))) as [Doc, Doc];
  return { name, doc, questions, foldOf, asked, docs };
}
