// Optional rerank of the best search hits by the user's chat model (@memory, memory_search): the
// prompt and the reading of the answer are common/rerank.ts's (the worker's rerank for MCP uses the
// same). A small encoder and BM25 match words; a chat model can tell that "the page is slow when you
// scroll far" is about offset pagination. Any failure (no consent, quota, cancellation, an answer
// with no ids) keeps the search order.
import { RERANK_TOP, applyRanking, rerankPrompt } from '../../common/rerank';
import type { SearchHit } from '../core/memoryApi';
import type { CancelSignal, ChatModelPort } from './handler';

export { RERANK_TOP, rerankPrompt };

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
  return applyRanking(text, hits) ?? hits;
}
