// The one search-hit type: a record found by a ranking (keyword, vector, the prompts' links, or
// the fusion of them), with the score that ranking gave it. Rows for a reply are made from hits
// by records.ts (toSearchRow).
import type { SearchKind } from '../../common/contract';
import type { Int8Unit } from './vectors/blob';

export interface SearchHit {
  kind: SearchKind;
  id: number;
  /** The record's time, epoch ms (ties, recency, date filters). */
  epoch: number;
  score: number;
  /** Vector hits: the cosine itself, before the hubness correction and priors (vectorMinScore reads it). */
  cosine?: number;
  /** Vector hits: the stored vector (a copy), on the first `withVectors` hits of a query that asked for them. */
  unit?: Int8Unit;
}
