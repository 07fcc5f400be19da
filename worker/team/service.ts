// The one TeamSync of a store, created on first use (routes, main.ts, search labels).
import type { Store } from '../store/store';
import { TeamSync, type TeamDeps } from './sync';

const services = new WeakMap<Store, TeamSync>();

export function teamService(deps: TeamDeps): TeamSync {
  let s = services.get(deps.store);
  if (!s) {
    s = new TeamSync(deps);
    services.set(deps.store, s);
  }
  return s;
}

/** The store's TeamSync if one was made (read-only users such as search labels never create it). */
export function existingTeamService(store: Store): TeamSync | undefined {
  return services.get(store);
}
