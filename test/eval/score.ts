// Recall@5, MRR and nDCG@10 of the searcher over a set's questions, with the misses kept for printing.
import type { SearchKind, SearchMode } from '../../common/contract';
import type { Searcher } from '../../worker/search/searcher';
import type { EvalQuestion } from './sets';

export interface EvalMiss {
  id: string;
  question: string;
  /** 0-based rank of the first relevant record in the top 10, -1 when absent. */
  rank: number;
  top: string;
}

export interface ModeReport {
  mode: SearchMode;
  /** Whether each question's project filter was applied. */
  projectFilter: boolean;
  /** Mean over questions of (relevant records in the top 5) / (relevant records). */
  recallAt5: number;
  /** Mean of 1 / rank of the first relevant record in the top 10 (0 when absent). */
  mrr: number;
  /** Mean nDCG@10 with the qrels' grades (gain 2^grade - 1). */
  ndcg10: number;
  ranks: number[];
  /** Questions whose first relevant record is not in the top 5. */
  misses: EvalMiss[];
}

export async function scoreMode(searcher: Searcher, questions: EvalQuestion[], mode: SearchMode, kinds: SearchKind[], now: number, projectFilter = true): Promise<ModeReport> {
  let recall = 0;
  let rr = 0;
  let ndcg = 0;
  const ranks: number[] = [];
  const misses: EvalMiss[] = [];
  for (const q of questions) {
    const r = await searcher.search({ query: q.question, mode, filters: { project: projectFilter ? q.project : undefined, kinds }, limit: 10, offset: 0 }, now);
    if (r.modeUsed !== mode) throw new Error(`${mode} search fell back to ${r.modeUsed}: ${r.notice ?? ''}`);
    const refs = r.items.map((i) => i.ref);
    recall += q.answers.filter((a) => refs.slice(0, 5).includes(a)).length / q.answers.length;
    const rank = refs.findIndex((ref) => q.answers.includes(ref));
    rr += rank >= 0 ? 1 / (rank + 1) : 0;
    const gain = (g: number) => 2 ** g - 1;
    const dcg = refs.slice(0, 10).reduce((t, ref, i) => t + gain(q.grades[ref] ?? 0) / Math.log2(i + 2), 0);
    const ideal = Object.values(q.grades).sort((a, b) => b - a).slice(0, 10).reduce((t, g, i) => t + gain(g) / Math.log2(i + 2), 0);
    ndcg += ideal > 0 ? dcg / ideal : 0;
    ranks.push(rank);
    if (rank < 0 || rank >= 5) misses.push({ id: q.id, question: q.question, rank, top: r.items[0] ? `${r.items[0].ref} ${r.items[0].title ?? ''}` : '(nothing)' });
  }
  const n = questions.length || 1;
  return { mode, projectFilter, recallAt5: recall / n, mrr: rr / n, ndcg10: ndcg / n, ranks, misses };
}

export function formatMisses(title: string, reports: ModeReport[]): string {
  const lines = [title];
  for (const s of reports) {
    lines.push(`  ${s.mode}${s.projectFilter ? '' : ' (no project filter)'} misses (${s.misses.length}):`);
    for (const m of s.misses) lines.push(`    ${m.id.padEnd(6)} ${m.rank < 0 ? '  -' : `#${m.rank + 1}`.padStart(3)}  ${JSON.stringify(m.question)}  top: ${m.top.slice(0, 70)}`);
  }
  return lines.join('\n');
}
