// What routes need from freshness for one worker: its settings (read once) and the branch view of a
// request (query `branch` and `bases`, else the branch the project was last worked on).
import { BadRequest } from '../../common/contract';
import type { Store } from '../store/store';
import { readFreshnessSettings, type FreshnessSettings } from './settings';
import { lastBranch, type BranchView } from './state';

const cache = new WeakMap<object, FreshnessSettings>();

export function freshnessSettings(deps: { store: Store; config: { dataDir: string } }): FreshnessSettings {
  let s = cache.get(deps.store);
  if (!s) {
    s = readFreshnessSettings(deps.config.dataDir);
    cache.set(deps.store, s);
  }
  return s;
}

const NAME = /^[^\u0000-\u0020~^:?*[\\]{1,256}$/;

export function branchView(db: Pick<Store, 'get'>, project: string | undefined, q: (name: string) => string | undefined): BranchView {
  const branch = q('branch');
  if (branch !== undefined && branch !== '') {
    if (!NAME.test(branch)) throw new BadRequest(`query 'branch' must be a git branch name`);
    const bases = (q('bases') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (bases.length > 10 || bases.some((b) => !NAME.test(b))) throw new BadRequest(`query 'bases' must be a comma list of at most 10 branch names`);
    return { branch, bases };
  }
  return project ? lastBranch(db as Pick<Store, 'get' | 'all'>, project) : {};
}
