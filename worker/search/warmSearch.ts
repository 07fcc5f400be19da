// The first keyword searches after start paid for compiling the search path: V8 compiles its
// JavaScript and sql.js's WebAssembly functions on first use, then again optimised, and the first
// few searches of a fresh worker cost 5-30x a warm one (6-45 ms of CPU against 1.4 ms at 500
// observations), which made the slow tail of a worker's first hundreds of searches. Once the
// keyword warm-up is done (listWarmer.ts), the worker runs a few keyword searches of its own on the
// titles of its newest observations, unfiltered and within their project, off the request path:
// what a search does is compiled before anybody waits for it. The answers are dropped; what they
// leave behind are the lists of a few title words, which later searches of those words reuse.
import type { SearchResponse } from '../../common/contract';
import type { Store } from '../store/store';
import { ALL_KINDS, type SearchRequest } from './params';

/** Searches run: enough for the code of the search path to be optimised. */
export const WARM_SEARCHES = 8;
/** Words of a title searched for. */
const WORDS = 4;

/**
 * Runs the warm-up searches, yielding to other work between them; resolves to how many ran (none
 * on an empty store). `stopped` ends it early (the worker stopping).
 */
export async function warmSearches(store: Pick<Store, 'all'>, search: (req: SearchRequest) => Promise<SearchResponse>, stopped: () => boolean = () => false): Promise<number> {
  const newest = store.all<{ title: string; project: string }>('SELECT title, project FROM observations ORDER BY id DESC LIMIT ?', [WARM_SEARCHES]);
  let ran = 0;
  for (const [i, r] of newest.entries()) {
    if (stopped()) break;
    const query = r.title.split(/\s+/).slice(0, WORDS).join(' ');
    const filters = i % 2 === 0 ? { kinds: ['observation' as const], project: r.project } : { kinds: [...ALL_KINDS] };
    // Serialised as a route would: the reply's JSON is part of the path.
    JSON.stringify(await search({ query, mode: 'keyword', limit: 20, offset: 0, filters }));
    ran++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return ran;
}
