// A small store for the keyword path's unit tests: numbered observations written in one
// transaction, the statements a search runs through it recorded, and the answer of ranking every
// match in SQL that the kept lists, counts and facts must equal.
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { nullLogger } from '../../common/node/log';
import { idf, registerSearchFunctions } from '../../worker/search/bm25';
import { parseFtsQuery } from '../../worker/search/ftsQuery';
import { keywordSearch } from '../../worker/search/keyword';
import { rankAll } from '../../worker/search/topK';
import { insertObservation, type NewObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir } from './worker';

export const T0 = Date.UTC(2025, 0, 1);

/** A migrated store in a temp dir with the search functions and one session (id 1, project alpha). */
export async function openSearchStore(prefix: string): Promise<Store> {
  const store = await Store.open({ dir: path.join(tempDir(prefix), 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  registerSearchFunctions(store);
  await store.write((tx) => {
    tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'claude-code', 's1', 'alpha', 'completed', ?, ?)`, [T0, T0]);
  });
  return store;
}

/** A keyword search over the observations through db, scores rounded as everyMatch rounds them. */
export async function keywordHits(db: Pick<Store, 'all' | 'get'>, q: string, depth = 20): Promise<{ id: number; score: number }[]> {
  const fq = parseFtsQuery(q);
  assert.ok(fq, q);
  const hits = await keywordSearch(db, fq, { kinds: ['observation'] }, depth);
  return hits.map((h) => ({ id: h.id, score: Math.round(h.score * 1e9) }));
}

/** Writes n observations "note <i>" (narrative text(i), project of(i)) in one transaction; i counts on across calls. */
export function observationWriter(project: (i: number) => string): (store: Store, n: number, text: (i: number) => string) => Promise<void> {
  let made = 0;
  return (store, n, text) =>
    store.write((tx) => {
      for (let i = 0; i < n; i++, made++) {
        insertObservation(tx, {
          sessionId: 1,
          project: project(made),
          type: 'change',
          title: `note ${made}`,
          narrative: text(made),
          facts: [],
          toolName: 'Edit',
          promptNumber: 1,
          contentHash: `h${made}`,
          source: 'local',
          createdAt: T0 + made * 60_000,
        });
      }
    });
}

const TYPES = ['change', 'discovery', 'bugfix', 'decision', 'refactor'];
const CONCEPTS = [[], ['trade-off'], ['how-it-works'], ['gotcha'], ['what-changed']];
export const PRIOR_WORDS = ['cache', 'token', 'retry', 'queue', 'parser', 'index', 'worker', 'session', 'build', 'route'];

/**
 * Observation i of a store whose priors spread (rerank.ts): a random type, concepts and files, a
 * body of a few words to a few hundred characters; every seventh title "Ran the tests: i passed",
 * so those titles share one key (digits folded) and the rest are new. `rand` draws the choices.
 */
export function variedObservation(i: number, project: string, rand: () => number): NewObservation {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const text = (n: number) => Array.from({ length: n }, () => pick(PRIOR_WORDS)).join(' ');
  const letters = i.toString(10).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]);
  return {
    sessionId: 1,
    project,
    type: pick(TYPES),
    title: i % 7 === 0 ? `Ran the tests: ${i} passed` : `note ${text(3)} ${letters}`,
    narrative: text(1 + Math.floor(rand() ** 2 * 60)),
    facts: [],
    concepts: pick(CONCEPTS),
    filesRead: rand() < 0.5 ? [`src/${pick(PRIOR_WORDS)}.ts`] : [],
    toolName: 'Edit',
    promptNumber: 1,
    contentHash: `h${i}`,
    source: 'local',
    createdAt: T0 + i * 60_000,
  };
}

/**
 * The store as a search sees it, recording the statements run through it. With `writes`, the
 * search also sees the store's write count, so it keeps small reads until the next write
 * (worker/store/untilWrite.ts); without it, it reads them every time.
 */
export function recording(store: Store, o: { writes: boolean }): { db: Pick<Store, 'all' | 'get'> & Partial<Pick<Store, 'writes'>>; take: () => string[] } {
  let seen: string[] = [];
  const db: Pick<Store, 'all' | 'get'> = {
    all: <T>(sql: string, params?: (string | number)[]) => (seen.push(sql), store.all<T>(sql, params)),
    get: <T>(sql: string, params?: (string | number)[]) => (seen.push(sql), store.get<T>(sql, params)),
  };
  if (o.writes) Object.defineProperty(db, 'writes', { get: () => store.writes, enumerable: true });
  return {
    db,
    take: () => {
      const s = seen;
      seen = [];
      return s;
    },
  };
}

/** Every match of the words ranked in SQL over the observations, scores rounded to 1e-9. */
export function everyMatch(store: Store, words: string[], depth: number): { id: number; score: number }[] {
  const rows = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n);
  const phrases = words.flatMap((w) => {
    const p = `"${w}"`;
    const df = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM observations_fts WHERE observations_fts MATCH ?', [p])?.n);
    return df > 0 ? [{ p, df, c: idf(rows, df) }] : [];
  });
  return rankAll(store, 'observation', phrases, { kinds: ['observation'] }, depth).map((h) => ({ id: h.id, score: Math.round(h.score * 1e9) }));
}
