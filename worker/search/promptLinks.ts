// Hybrid's third list: the records made in answer to the prompts a query's words match. A later
// question is worded like the prompt that started the work, not like the observation the model
// wrote about it; an observation keeps the number of the prompt it answers. So the best prompts by
// BM25 each lend their score to the record they led to: the observation of that prompt with the
// best prior (rerank.ts), or, when the question asks how something ended, the session's summary if
// its prior is better. A prompt typed in several sessions ("fix the tests") says nothing about
// which one: a text repeated among the hits lends nothing. docs/search.md has the figures.
import type { Store } from '../store/store';
import type { FtsQuery } from './ftsQuery';
import { keywordSearch } from './keyword';
import type { SearchFilters } from './params';
import { hydratePriors, matchesFilters, type PriorInfo } from './records';
import { prior, titleKey, type Intent } from './rerank';
import type { SearchHit } from './hit';
import type { SearchSettings } from './settings';

/** Prompts searched for each query. */
const PROMPT_DEPTH = 10;

type Db = Pick<Store, 'all' | 'get'>;

/** Records led to by the query's best prompts, best first, each once; scored by its prompt's BM25 times its prior. */
export async function promptLinked(store: Db, fq: FtsQuery, f: SearchFilters, intents: Set<Intent>, o: SearchSettings): Promise<SearchHit[]> {
  const wantObs = f.kinds.includes('observation');
  const wantSums = f.kinds.includes('summary') && intents.has('outcome');
  if (!wantObs && !wantSums) return [];
  const found = await keywordSearch(store, fq, { kinds: ['prompt'], project: f.project, platform: f.platform }, PROMPT_DEPTH);
  if (found.length === 0) return [];
  const texts = hydratePriors(store, 'prompt', found.map((h) => h.id), false);
  const key = (id: number) => titleKey(texts.get(id)?.title ?? '');
  const repeats = new Map<string, number>();
  for (const h of found) repeats.set(key(h.id), (repeats.get(key(h.id)) ?? 0) + 1);
  const floor = o.keywordMinRelative * found[0].score;
  const prompts = found.filter((h) => h.score >= floor && repeats.get(key(h.id)) === 1);
  if (prompts.length === 0) return [];

  // Each prompt's records: its observations (same session and prompt number), and for a status
  // question its session's summaries.
  const ids = JSON.stringify(prompts.map((p) => p.id));
  const joins: ['observation' | 'summary', string][] = [];
  if (wantObs) joins.push(['observation', 'JOIN observations c ON c.session_id = p.session_id AND c.prompt_number = p.prompt_number']);
  if (wantSums) joins.push(['summary', 'JOIN session_summaries c ON c.session_id = p.session_id']);
  const byPrompt = new Map<number, PriorInfo[]>();
  for (const [kind, join] of joins) {
    const rows = store.all<{ prompt: number; id: number }>(`SELECT p.id AS prompt, c.id AS id FROM user_prompts p ${join} WHERE p.id IN (SELECT value FROM json_each(?))`, [ids]);
    const info = hydratePriors(store, kind, rows.map((r) => r.id), f.platform !== undefined);
    for (const r of rows) {
      const rec = info.get(r.id);
      if (rec && matchesFilters(rec, f)) byPrompt.set(r.prompt, [...(byPrompt.get(r.prompt) ?? []), rec]);
    }
  }

  // Best first by prompt, each record lent once: the prompt's best record it has not lent yet.
  const out: SearchHit[] = [];
  const taken = new Set<string>();
  for (const p of prompts) {
    let best: SearchHit | undefined;
    for (const r of byPrompt.get(p.id) ?? []) {
      if (taken.has(`${r.kind}:${r.id}`)) continue;
      const score = p.score * prior(r, intents, o);
      if (!best || score > best.score) best = { kind: r.kind, id: r.id, epoch: r.epoch, score };
    }
    if (best) {
      taken.add(`${best.kind}:${best.id}`);
      out.push(best);
    }
  }
  return out.sort((a, b) => b.score - a.score || b.epoch - a.epoch || b.id - a.id);
}
