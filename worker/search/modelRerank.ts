// The compression model reranks the best search rows, when a client asks (GET /api/search?rerank=model:
// MCP search_memory) and a model is connected to the worker (the anthropic provider, or the vscode
// provider with a window): one small call (the top RERANK_TOP rows' ids, types and titles; capped
// output; a timeout), with the prompt and the reading of the answer the extension's @memory rerank
// uses (common/rerank.ts). Off with no model; any failure, a timeout or an answer with no ids keeps
// the plain order. The call's tokens count against the daily budget like any model call.
import { RERANK_TOP, applyRanking, rerankPrompt, type RankedRow } from '../../common/rerank';
import type { Asker } from '../compression/model';
import type { Logger } from '../../common/node/log';

const RERANK_SYSTEM = 'You rank search results for a developer. Answer with ids only.';
/** Enough for 20 ids. */
const RERANK_MAX_OUTPUT_TOKENS = 120;
const RERANK_TIMEOUT_MS = 10_000;

interface Reranked<T> {
  rows: T[];
  /** The model's order was applied. */
  reranked: boolean;
  /** Why not, when it was asked for and not applied. */
  why?: string;
}

export async function modelRerank<T extends RankedRow>(query: string, rows: T[], asker: Asker | undefined, opts: { log?: Logger } = {}): Promise<Reranked<T>> {
  if (!asker) return { rows, reranked: false, why: 'no model' };
  if (rows.length < 2 || query.trim() === '') return { rows, reranked: false, why: 'nothing to rerank' };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), RERANK_TIMEOUT_MS);
    });
    const call = asker.ask({ purpose: 'rerank', system: RERANK_SYSTEM, prompt: rerankPrompt(query, rows.slice(0, RERANK_TOP)), maxOutputTokens: RERANK_MAX_OUTPUT_TOKENS });
    call.catch(() => undefined); // a late failure after the timeout is not unhandled
    const reply = await Promise.race([call, timeout]);
    if (reply === 'timeout') return { rows, reranked: false, why: 'model timed out' };
    if (!reply) return { rows, reranked: false, why: 'no model can take work now' };
    const ranked = applyRanking(reply.text, rows);
    return ranked ? { rows: ranked, reranked: true } : { rows, reranked: false, why: 'the model named no result' };
  } catch (e) {
    opts.log?.warn(`search rerank failed (${e instanceof Error ? e.message : String(e)}); plain order kept`);
    return { rows, reranked: false, why: 'model call failed' };
  } finally {
    clearTimeout(timer);
  }
}
