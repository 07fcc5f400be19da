// The model rerank of search results, shared by the extension (@memory and the LM search tool, with
// VS Code's chat model) and the worker (GET /api/search?rerank=model, with the compression model):
// the model reads the top rows (id, type, title) and answers the ids most relevant to the question,
// best first. Nothing is ever lost: rows the model leaves out keep their order after the ones it
// ranked, unknown ids are ignored, and an answer with no ids keeps the search order.
import { recordRef } from './contract/refs';

/** Rows the model reads: the best this many. */
export const RERANK_TOP = 20;

export interface RankedRow {
  kind: string;
  id: number;
  type: string;
  title: string;
}

export function rerankPrompt(query: string, rows: RankedRow[]): string {
  const lines = rows.map((h) => `${recordRef(h.kind, h.id)} [${h.type}] ${h.title.replace(/\s+/g, ' ').slice(0, 160)}`);
  return [
    'Rank stored memories of a coding project by how well they answer a question.',
    `Question: ${query.replace(/\s+/g, ' ').slice(0, 500)}`,
    'Memories:',
    ...lines,
    'Answer with the ids of the memories that help answer the question, most useful first, like "#12 #7 S3". Leave out the ones that do not help. Answer with ids only.',
  ].join('\n');
}

/**
 * The rows in the model's order (the top RERANK_TOP only; the rest follow unchanged), or undefined
 * when its answer names none of them.
 */
export function applyRanking<T extends RankedRow>(answer: string, rows: T[]): T[] | undefined {
  const top = rows.slice(0, RERANK_TOP);
  const byKey = new Map(top.map((h) => [recordRef(h.kind, h.id), h] as const));
  const picked: T[] = [];
  // `summary:3` and `prompt:3` are read too: a model may name a kind in words.
  for (const m of answer.matchAll(/(?<![\w&])(#\d{1,9}|[SP]\d{1,9}|(summary|prompt):(\d{1,9}))\b/g)) {
    const h = byKey.get(m[2] ? recordRef(m[2], m[3]) : m[1]);
    if (h && !picked.includes(h)) picked.push(h);
  }
  if (picked.length === 0) return undefined;
  return [...picked, ...top.filter((h) => !picked.includes(h)), ...rows.slice(RERANK_TOP)];
}
