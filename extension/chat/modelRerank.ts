// Optional rerank of the best search hits by the user's chat model (@memory, memory_search): the
// model reads the top 20 rows (id, type, title) and answers the ids most relevant to the question,
// best first. A small encoder and BM25 match words; a chat model can tell that "the page is slow
// when you scroll far" is about offset pagination. Nothing is ever lost: ids the model leaves out
// keep their order after the ones it ranked, unknown ids are ignored, and any failure (no consent,
// quota, cancellation, an answer with no ids) keeps the search order.
import { recordRef } from '../../common/contract';
import type { SearchHit } from '../core/memoryApi';
import type { CancelSignal, ChatModelPort } from './handler';

export const RERANK_TOP = 20;

export function rerankPrompt(query: string, hits: SearchHit[]): string {
  const rows = hits.map((h) => `${recordRef(h.kind, h.id)} [${h.type}] ${h.title.replace(/\s+/g, ' ').slice(0, 160)}`);
  return [
    'Rank stored memories of a coding project by how well they answer a question.',
    `Question: ${query.replace(/\s+/g, ' ').slice(0, 500)}`,
    'Memories:',
    ...rows,
    'Answer with the ids of the memories that help answer the question, most useful first, like "#12 #7 S3". Leave out the ones that do not help. Answer with ids only.',
  ].join('\n');
}

/** The hits reordered by the model (top RERANK_TOP only; the rest follow unchanged). */
export async function rerankHits(query: string, hits: SearchHit[], model: ChatModelPort, signal: CancelSignal): Promise<SearchHit[]> {
  const top = hits.slice(0, RERANK_TOP);
  if (top.length < 2) return hits;
  let text = '';
  try {
    const stream = await model.send([{ role: 'user', text: rerankPrompt(query, top) }], signal);
    for await (const fragment of stream) {
      if (signal.isCancellationRequested) return hits;
      text += fragment;
      if (text.length > 4000) break;
    }
  } catch {
    return hits;
  }
  const byKey = new Map(top.map((h) => [recordRef(h.kind, h.id), h] as const));
  const picked: SearchHit[] = [];
  // `summary:3` and `prompt:3` are read too: a model may name a kind in words.
  for (const m of text.matchAll(/(?<![\w&])(#\d{1,9}|[SP]\d{1,9}|(summary|prompt):(\d{1,9}))\b/g)) {
    const h = byKey.get(m[2] ? recordRef(m[2] as 'summary' | 'prompt', m[3]) : m[1]);
    if (h && !picked.includes(h)) picked.push(h);
  }
  if (picked.length === 0) return hits;
  return [...picked, ...top.filter((h) => !picked.includes(h)), ...hits.slice(RERANK_TOP)];
}
