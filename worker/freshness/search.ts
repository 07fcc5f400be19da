// Freshness on search rows: the stale or retired mark with what changed, and the branch a memory
// is from; with preferBranch, rows of other branches move after the rest of the page (stable).
import type { Observation, SearchRow, TimelineItem } from '../../common/contract';
import type { Store } from '../store/store';
import { untilWrite } from '../store/untilWrite';
import type { FreshnessSettings } from './settings';
import { freshnessOf, type BranchView } from './state';

export function annotateRows<R extends SearchRow | TimelineItem>(db: Pick<Store, 'all' | 'get'>, rows: R[], view: BranchView, settings: FreshnessSettings, now = Date.now()): R[] {
  const ids = rows.filter((r) => r.kind === 'observation').map((r) => r.id);
  // Nothing recorded from git and no memory confirmed or retired: every row is fresh, of no branch,
  // and would be left as it is (an aged row carries no mark here).
  if (ids.length === 0 || !hasFreshnessFacts(db)) return rows;
  const info = freshnessOf(db, ids, view, settings, now);
  for (const r of rows) {
    if (r.kind !== 'observation') continue;
    const f = info.get(r.id);
    if (!f) continue;
    const row = r as SearchRow;
    if (f.status === 'stale') {
      row.freshness = 'stale';
      if (f.reason) row.staleReason = f.reason;
    } else if (f.status === 'retired') row.freshness = 'retired';
    if (f.branch) row.branch = f.branch;
    if (f.otherBranch) row.otherBranch = true;
    if (f.decidedBy) row.decidedBy = f.decidedBy;
  }
  if (!settings.preferBranch) return rows;
  const rank = (r: R) => ((r as SearchRow).otherBranch ? 1 : 0) + ((r as SearchRow).freshness === 'retired' ? 2 : 0);
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map((x) => x.r);
}

/** Whether any citation, memory state or session branch exists (kept until the next write). */
function hasFreshnessFacts(db: Pick<Store, 'all'>): boolean {
  return untilWrite(db, 'any freshness fact', () =>
    db.all('SELECT 1 AS x FROM citations UNION ALL SELECT 1 FROM memory_state UNION ALL SELECT 1 FROM session_git WHERE branch IS NOT NULL LIMIT 1').length > 0,
  );
}

/**
 * Freshness on full records (batch, the list, one record): whoever reads them (tools, chat
 * grounding, the panel) learns a memory may be stale. Fresh ones on the asked-for branch stay bare.
 */
export function annotateObservations(db: Pick<Store, 'all' | 'get'>, items: Observation[], view: BranchView, settings: FreshnessSettings, now = Date.now()): Observation[] {
  if (!settings.enabled || items.length === 0) return items;
  const info = freshnessOf(db, items.map((o) => o.id), view, settings, now);
  for (const o of items) {
    const f = info.get(o.id);
    if (f && (f.status !== 'fresh' || f.otherBranch)) o.freshness = { status: f.status, branch: f.branch, ...(f.reason ? { reason: f.reason } : {}), ...(f.otherBranch ? { otherBranch: true as const } : {}), ...(f.replacedBy ? { replacedBy: f.replacedBy } : {}), ...(f.decidedBy ? { decidedBy: f.decidedBy } : {}) };
  }
  return items;
}
