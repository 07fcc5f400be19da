// Hybrid ranking: reciprocal rank fusion of the keyword and vector lists (and the records the
// matching prompts led to, promptLinks.ts), plus a mild recency term:
//
//   score(d) = sum over lists of weight / (k + rank(d))       (rank from 1, k = rrfK)
//            + recencyWeight / (k + 1) * 0.5 ^ (ageDays / recencyHalfLifeDays)
//
// Only meaningful evidence votes: each list is cut to its relevant part first, a confident lexical
// answer stays first, and each list's leaders keep a place near the top (fuseHybrid). Why each
// rule, and the constants (settings.ts RANKING): docs/search.md, "Fusion (hybrid)".
import type { SearchHit } from './hit';
import type { SearchSettings } from './settings';

const DAY = 86_400_000;

/** Keyword (BM25) and vector (cosine) lists, best first, fused with the records the best prompts led to (promptLinks.ts, already cut). */
export function fuseHybrid(keyword: SearchHit[], vector: SearchHit[], prompted: SearchHit[], o: SearchSettings, now: number): SearchHit[] {
  const kwTop = keyword[0]?.score ?? 0;
  const vecTop = vector[0]?.score ?? 0;
  const kw = keyword.filter((h) => h.score >= o.keywordMinRelative * kwTop);
  const vec = vector.filter((h) => h.score >= vecTop - o.vectorWindow && (h.cosine ?? h.score) >= o.vectorMinScore);
  const fused = rrf([kw, vec, prompted], [1, 1, o.promptWeight], o, now);
  // The keyword list's best two keep a place near the top (#1 at floor or better, #2 at floor + 2):
  // the vector side may reorder the head, but a weak encoder's look-alikes cannot bury them.
  if (o.keywordLeaderFloor > 0) keyword.slice(0, 2).forEach((hit, j) => keepAtOrAbove(fused, hit, o.keywordLeaderFloor + 2 * j));
  // Likewise the vector list's best (after the density correction): on a question worded unlike
  // any note, the words can all be wrong while the encoder's first pick is right.
  if (vector[0] && o.vectorLeaderFloor > 0) keepAtOrAbove(fused, vector[0], o.vectorLeaderFloor);
  // A confident lexical answer (its BM25 keywordLeadRatio times the runner-up's) is first.
  const lead = keyword[0];
  if (lead && o.keywordLeadRatio > 0 && (keyword.length === 1 || lead.score >= o.keywordLeadRatio * keyword[1].score)) keepAtOrAbove(fused, lead, 1, 1e-6);
  return fused;
}

/** Plain RRF of already-cut lists with the recency term, best first. */
function rrf(lists: SearchHit[][], weights: number[], o: SearchSettings, now: number): SearchHit[] {
  const byKey = new Map<string, SearchHit & { seen: Set<number> }>();
  lists.forEach((list, li) => {
    list.forEach((item, i) => {
      const key = `${item.kind}:${item.id}`;
      let f = byKey.get(key);
      if (!f) {
        const recency = (o.recencyWeight / (o.rrfK + 1)) * 0.5 ** (Math.max(0, (now - item.epoch) / DAY) / o.recencyHalfLifeDays);
        f = { kind: item.kind, id: item.id, epoch: item.epoch, score: recency, seen: new Set() };
        byKey.set(key, f);
      }
      if (!f.seen.has(li)) {
        f.seen.add(li);
        f.score += weights[li] / (o.rrfK + i + 1);
      }
    });
  });
  return [...byKey.values()].map(({ seen: _seen, ...f }) => f).sort((a, b) => b.score - a.score || b.epoch - a.epoch || b.id - a.id);
}

/** Moves `hit` up to 1-based place `at` (scored `above` over the hit it passes) when fusion put it lower; a hit at or above it stays. */
function keepAtOrAbove(fused: SearchHit[], hit: SearchHit, at: number, above = 1e-9): void {
  const i = fused.findIndex((f) => f.kind === hit.kind && f.id === hit.id);
  if (i >= at) {
    const [item] = fused.splice(i, 1);
    fused.splice(at - 1, 0, { ...item, score: fused[at - 1].score + above });
  }
}
