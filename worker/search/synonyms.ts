// Query expansion from a small hand-written table of general software vocabulary: the words people
// use in chat for a problem ("slow", "blew up", "twice") next to the words notes use for it
// ("latency", "crash", "duplicate"). Written from general knowledge of how developers talk, not
// from any eval set. Each group is symmetric: a query word from a group adds the group's other
// words as extra, lower-weighted keyword terms. Hybrid mode only: keyword mode keeps to the words
// typed (predictable, and no extra doclists on its path). Constants chosen on dev ∪ dev2
// (docs/search.md): weight 0.4 per synonym, shared out when a word has more than 2 of them.
import { isStopWord, withExtraWords, type FtsQuery } from './ftsQuery';

const GROUPS: string[][] = [
  ['slow', 'slower', 'sluggish', 'lag', 'lags', 'laggy', 'latency', 'performance', 'stutter', 'stutters', 'forever', 'ages'],
  ['crash', 'crashed', 'crashes', 'crashing', 'panic', 'blew', 'dies', 'died', 'killed', 'exception'],
  ['memory', 'leak', 'leaks', 'leaking', 'oom', 'rss', 'heap'],
  ['duplicate', 'duplicates', 'duplicated', 'twice', 'double', 'dedupe', 'dedup', 'deduplication'],
  ['lost', 'lose', 'losing', 'missing', 'disappeared', 'vanished', 'skipped', 'dropped'],
  ['retry', 'retries', 'retried', 'backoff', 'reconnect', 'reconnects', 'rerun', 'reran'],
  ['timezone', 'timezones', 'tz', 'utc'],
  ['encoding', 'unicode', 'utf', 'charset', 'accented', 'accents'],
  ['permission', 'permissions', 'denied', 'forbidden', 'unauthorized'],
  ['xss', 'injection', 'sanitize', 'sanitized', 'script'],
  ['password', 'credentials', 'secret', 'secrets'],
  ['login', 'logged', 'signin', 'session'],
  ['config', 'configuration', 'settings', 'options'],
  ['deploy', 'deployed', 'deploys', 'release', 'rollout'],
  ['database', 'db', 'sql'],
  ['queue', 'queued', 'job', 'jobs', 'worker'],
  ['cache', 'cached', 'caching', 'memoize'],
  ['big', 'large', 'huge'],
  ['old', 'older', 'stale', 'legacy'],
  ['error', 'errors', 'failure', 'fails', 'failed', 'failing', 'broken', 'broke'],
  ['fast', 'faster', 'speed', 'quick', 'quicker'],
  ['limit', 'limits', 'cap', 'throttle', 'throttling', 'quota'],
  ['delete', 'deleted', 'remove', 'removed', 'purge'],
  ['upgrade', 'upgraded', 'bump', 'bumped', 'migrate', 'migrated'],
  ['startup', 'boot', 'launch', 'autostart'],
  ['undo', 'revert', 'reverted', 'rollback'],
  ['sync', 'synced', 'syncing', 'replicate'],
  ['upload', 'uploads', 'uploaded', 'transfer'],
  ['search', 'lookup', 'find'],
  ['test', 'tests', 'spec', 'specs'],
];

/** A word's synonyms together weigh at most this many full synonyms. */
const FULL_SHARE = 2;

const TABLE = new Map<string, string[]>();
for (const g of GROUPS) for (const w of g) TABLE.set(w, [...new Set([...(TABLE.get(w) ?? []), ...g.filter((x) => x !== w)])]);

/** The query's words' synonyms that it does not already contain (at most `max`), each with its share of `weight`. */
export function synonymsOf(words: string[], weight: number, max = 12): { word: string; weight: number }[] {
  const have = new Set(words);
  const out: { word: string; weight: number }[] = [];
  for (const w of words) {
    if (isStopWord(w)) continue;
    const fresh = (TABLE.get(w) ?? []).filter((s) => !have.has(s));
    // A word with many synonyms spreads its weight over them: FULL_SHARE of them at most weigh fully.
    const each = weight * Math.min(1, FULL_SHARE / Math.max(1, fresh.length));
    for (const s of fresh) {
      have.add(s);
      out.push({ word: s, weight: each });
    }
  }
  return out.slice(0, max);
}

/** The query with each synonym appended as one more OR term, weighted below the typed words. */
export function expandQuery(q: FtsQuery, weight: number, max = 12): FtsQuery {
  return withExtraWords(q, synonymsOf(q.terms.flatMap((t) => (t.tokens.length === 1 && !t.prefix ? t.tokens : [])), weight, max));
}
