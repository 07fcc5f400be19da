// Who wrote a pulled record and on which machine, for search rows, timelines and the panel.
// Local records carry no label (they are the user's own, from this machine).
import type { TeamLabel } from '../../common/contract';
import type { Store } from '../store/store';
import { untilWrite } from '../store/untilWrite';

interface Labelled {
  kind: string;
  id: number;
}

/** Adds `team: {author, machine}` to the items that were pulled from the hub. */
export function labelTeamItems<T extends Labelled>(store: Pick<Store, 'all'>, items: T[]): (T & { team?: TeamLabel })[] {
  const ids = items.filter((i) => i.kind === 'observation' || i.kind === 'summary' || i.kind === 'prompt').map((i) => [i.kind, i.id]);
  // No team record at all (the team was never used): a lookup, not a join of the page's ids.
  if (ids.length === 0 || !hasTeamTables(store) || !untilWrite(store, 'any team record', () => store.all('SELECT 1 AS x FROM team_records LIMIT 1').length > 0)) return items;
  const rows = store.all<{ kind: string; local_id: number; author: string | null; machine: string | null }>(
    `SELECT r.kind, r.local_id, r.author, r.machine FROM team_records r JOIN json_each(?) j ON r.kind = json_extract(j.value, '$[0]') AND r.local_id = json_extract(j.value, '$[1]')
      WHERE r.author IS NOT NULL`,
    [JSON.stringify(ids)],
  );
  if (rows.length === 0) return items;
  const by = new Map(rows.map((r) => [`${r.kind}:${r.local_id}`, { author: r.author, machine: r.machine }]));
  return items.map((i) => {
    const l = by.get(`${i.kind}:${i.id}`);
    return l ? { ...i, team: l } : i;
  });
}

let known: WeakSet<object> | undefined;

function hasTeamTables(store: Pick<Store, 'all'>): boolean {
  known ??= new WeakSet();
  if (known.has(store)) return true;
  const ok = store.all(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'team_records'`).length > 0;
  if (ok) known.add(store);
  return ok;
}

/** SQL (on alias o of observations or summaries) leaving out teammates' pulled records. */
export function notTeammatesSql(kind: 'observation' | 'summary', alias: string): string {
  return `NOT EXISTS (SELECT 1 FROM team_records tr WHERE tr.kind = '${kind}' AND tr.local_id = ${alias}.id AND tr.author IS NOT NULL
    AND tr.author IS NOT (SELECT value FROM team_meta WHERE key = 'author'))`;
}

/** labelTeamItems for full observations (list, single, batch routes). */
export function labelObservations<T extends { id: number }>(store: Pick<Store, 'all'>, items: T[]): (T & { team?: TeamLabel })[] {
  const labelled = labelTeamItems(store, items.map((o) => ({ ...o, kind: 'observation' })));
  return labelled.map(({ kind: _kind, ...o }) => o as unknown as T & { team?: TeamLabel });
}
