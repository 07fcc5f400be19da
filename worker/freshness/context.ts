// Freshness in context injection: stale memories are never injected as fact (listed apart with
// what changed, or dropped by setting); retired and aged-out ones stay out; memories of the
// current branch (and the ones it came from) are picked before others, which say where they are from.
import type { Store } from '../store/store';
import type { FreshnessSettings } from './settings';
import { freshnessOf, type BranchView, type Freshness } from './state';

export interface ContextFreshness {
  view: BranchView;
  settings: FreshnessSettings;
}

export interface Split<R extends { id: number }> {
  keep: R[];
  stale: { row: R; reason: string }[];
  /** Retired, aged out, or stale and dropped by setting. */
  hidden: number;
  info: Map<number, Freshness>;
}

export function splitForContext<R extends { id: number }>(db: Pick<Store, 'all' | 'get'>, rows: R[], cf: ContextFreshness, now: number): Split<R> {
  const info = freshnessOf(db, rows.map((r) => r.id), cf.view, cf.settings, now);
  const out: Split<R> = { keep: [], stale: [], hidden: 0, info };
  for (const r of rows) {
    const f = info.get(r.id);
    if (!f || f.status === 'fresh' || f.status === 'confirmed') out.keep.push(r);
    else if (f.status === 'stale' && cf.settings.staleInContext === 'apart') out.stale.push({ row: r, reason: f.reason ?? 'a cited file changed' });
    else out.hidden += 1;
  }
  return out;
}

/** 1 for a memory of another branch (picked after the others when preferBranch is on). */
export function branchRank(info: Map<number, Freshness>, id: number, cf: ContextFreshness): number {
  return cf.settings.preferBranch && info.get(id)?.otherBranch ? 1 : 0;
}

export function branchNote(info: Map<number, Freshness> | undefined, id: number): string {
  const f = info?.get(id);
  return f?.otherBranch && f.branch ? ` [from branch ${f.branch}]` : '';
}
