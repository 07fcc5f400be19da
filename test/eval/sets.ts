// The search evaluation sets in one standard form (test/eval/FORMAT.md): a folder with
// history.json (the records, an export document), questions.json (the questions) and the qrels
// (each question's relevant record refs, with grades), and how each set may be used.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SearchKind } from '../../common/contract';

/** development: constants may be chosen on it; test: frozen, read once per change, never tuned on. */
export type SetRole = 'development' | 'test';

export interface EvalQuestion {
  id: string;
  question: string;
  project?: string;
  cat?: string;
  /** The relevant records ("123" an observation, "S12" a summary, "P7" a prompt), the qrels' keys. */
  answers: string[];
  /** Graded relevance by ref (1 unless given; 0 never appears: an unlisted ref is not relevant). */
  grades: Record<string, number>;
}

export interface EvalSet {
  name: string;
  role: SetRole;
  dir: string;
  /** The record kinds searched (set.json's "kinds"; observations and summaries unless given). */
  kinds: SearchKind[];
  /** The clock the set was written at (history.json's fixtureNow). */
  now: number;
  /** The export document, for POST /api/import's code. */
  history: { fixtureNow: number; sessions: { project: string; observations: { id: number; title: string }[]; summaries: { id: number }[]; prompts?: { id: number }[] }[] };
  questions: EvalQuestion[];
}

const FIXTURES = path.resolve(__dirname, '../fixtures');

/** The sets `npm run eval` runs: every development set, then the frozen test set when its folder is there. */
export const SET_FOLDERS: { name: string; role: SetRole; folder: string }[] = [
  { name: 'dev', role: 'development', folder: 'search' },
  { name: 'dev2', role: 'development', folder: 'search-dev2' },
  { name: 'dev3', role: 'development', folder: 'search-heldout' },
  { name: 'dev4', role: 'development', folder: 'search-dev4' },
  { name: 'dev5', role: 'development', folder: 'search-heldout2' },
  { name: 'dev6', role: 'development', folder: 'search-heldout3' },
  { name: 'test', role: 'test', folder: 'search-heldout4' },
];

interface RawQuestion {
  id: string;
  question: string;
  project?: string | null;
  cat?: string;
  answers: (string | number)[];
  grades?: Record<string, number>;
}

/** Reads one set folder; throws, naming the file and question, on anything malformed. */
export function readSet(dir: string, name: string, role: SetRole): EvalSet {
  const history = JSON.parse(fs.readFileSync(path.join(dir, 'history.json'), 'utf8')) as EvalSet['history'];
  if (typeof history.fixtureNow !== 'number' || !Array.isArray(history.sessions)) throw new Error(`${dir}/history.json: not an export document with fixtureNow`);
  const raw = JSON.parse(fs.readFileSync(path.join(dir, 'questions.json'), 'utf8')) as RawQuestion[];
  let kinds: SearchKind[] = ['observation', 'summary'];
  const setFile = path.join(dir, 'set.json');
  if (fs.existsSync(setFile)) kinds = (JSON.parse(fs.readFileSync(setFile, 'utf8')) as { kinds?: SearchKind[] }).kinds ?? kinds;
  const refs = new Set<string>();
  for (const s of history.sessions) {
    for (const o of s.observations) refs.add(String(o.id));
    for (const m of s.summaries) refs.add(`S${m.id}`);
    for (const p of s.prompts ?? []) refs.add(`P${p.id}`);
  }
  const questions = raw.map((q): EvalQuestion => {
    const answers = q.answers.map(String);
    if (!q.id || typeof q.question !== 'string' || answers.length === 0) throw new Error(`${dir}/questions.json: question ${q.id ?? '?'} needs an id, a question and answers`);
    for (const a of answers) if (!refs.has(a)) throw new Error(`${dir}/questions.json: ${q.id} names ${a}, which history.json does not hold`);
    const grades: Record<string, number> = {};
    for (const a of answers) grades[a] = q.grades?.[a] ?? 1;
    return { id: q.id, question: q.question, ...(q.project ? { project: q.project } : {}), ...(q.cat ? { cat: q.cat } : {}), answers, grades };
  });
  return { name, role, dir, kinds, now: history.fixtureNow, history, questions };
}

/** Every set whose folder holds a questions.json (the test set's folder may be absent). */
export function evalSets(): EvalSet[] {
  return SET_FOLDERS.filter((s) => fs.existsSync(path.join(FIXTURES, s.folder, 'questions.json'))).map((s) => readSet(path.join(FIXTURES, s.folder), s.name, s.role));
}
