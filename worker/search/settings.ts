// Search settings: the "search" object of <dataDir>/settings.json, then a few environment
// overrides, and the ranking's constants (not settings). Unknown keys and values of the wrong type are ignored (the default stays), so a typo
// never stops the worker. See docs/search.md. The "context" object is context/settings.ts's.
import { readSettingsFile } from '../../common/node/settingsFile';
import { readContextSettings, type ContextSettings } from '../context/settings';

type EmbeddingsProvider = 'local' | 'remote' | 'off';

/** A user setting: its default and, for a number, its range (a value outside is clamped) or, for a string, its allowed values. */
interface Setting<T> {
  default: T;
  range?: [number, number];
  values?: readonly string[];
}

/** What a user may set in settings.json's "search" object (the table in docs/search.md). */
const USER_SETTINGS = {
  /** local: the shipped sentence encoder in its own process; remote: an OpenAI-compatible endpoint; off: keyword only. */
  embeddings: { default: 'local' as EmbeddingsProvider, values: ['local', 'remote', 'off'] },
  remoteUrl: { default: '' },
  remoteModel: { default: '' },
  remoteApiKey: { default: '' },
  /** Expected remote vector length; 0 learns it from the first answer. */
  remoteDims: { default: 0, range: [0, 8192] },
  /** A model folder (embed/folder.ts) used instead of the bundled encoder when embeddings is "local"; empty = bundled. */
  localModelDir: { default: '' },
  /** Records embedded per batch by the background indexer. */
  indexBatchSize: { default: 16, range: [1, 256] },
  /** The background indexer embeds nothing this long after the worker listens (a vector query still does at once). */
  indexStartDelayMs: { default: 60_000, range: [0, 3600_000] },
  /** The background indexer embeds nothing until this long has passed without a new record (a burst of writes becomes one pass). */
  indexQuietMs: { default: 10_000, range: [0, 600_000] },
  /** Query embeddings kept (LRU). */
  queryCacheSize: { default: 256, range: [0, 100_000] },
  /** Hybrid: vector hits under this cosine do not vote, whatever the best one is (a small store's every record is some query's nearest). */
  vectorMinScore: { default: 0, range: [-1, 1] },
  /** End the model process (and drop the vector scan) after this long unused. */
  embedderIdleMs: { default: 5 * 60_000, range: [1000, 24 * 3600_000] },
  /** Impact lists of this many of the most common words are built in the background after start (listWarmer.ts); 0: off. */
  keywordWarmTerms: { default: 128, range: [0, 100_000] },
} satisfies Record<string, Setting<string | number>>;

type UserSearchSettings = { [K in keyof typeof USER_SETTINGS]: (typeof USER_SETTINGS)[K]['default'] };

/**
 * The ranking's constants: chosen on the development sets (docs/search.md), not read from
 * settings.json. Code may change them per service (tests, and the eval's trials switching a
 * mechanism off).
 */
export const RANKING = {
  /** Hybrid: reciprocal rank fusion constant. */
  rrfK: 30,
  /** Hybrid (and the prompts' list): keyword hits under this fraction of the best BM25 score do not vote. */
  keywordMinRelative: 0.3,
  /** Hybrid: vector hits more than this below the best corrected cosine do not vote. */
  vectorWindow: 0.15,
  /** Hybrid: a best keyword hit scoring this many times the runner-up stays first (0 = off). */
  keywordLeadRatio: 1.5,
  /** Hybrid: a brand-new record gains this fraction of a first-rank RRF score, halving every recencyHalfLifeDays. */
  recencyWeight: 0.15,
  recencyHalfLifeDays: 30,
  /** Hybrid: after fusion the best keyword hit ranks no lower than this, the runner-up no lower than this + 2 (0 = off). */
  keywordLeaderFloor: 3,
  /** Hybrid: after fusion the best vector hit ranks no lower than this (0 = off). */
  vectorLeaderFloor: 4,
  /** Hybrid: weight of an identifier a query word is part of (identifiers.ts: "msg id" also looks for client_msg_id), times the share of its parts named; 0 = off. */
  identifierWeight: 0.7,
  /** Hybrid: at most this many identifiers are added to a query. */
  identifierTerms: 8,
  /** Hybrid: weight of the third list, the records the prompts matching the query led to (promptLinks.ts); 0 = off. */
  promptWeight: 1,
  /** The priors (rerank.ts): weight of a record's substance; 0 = off. */
  substancePrior: 0.8,
  /** The priors (rerank.ts): factor 1 + this for a record that fits the question's intent (why / where / outcome); 0 = off. */
  intentBoost: 0.3,
  /** The priors on the vector side: cosine + this * (prior - 1). */
  vectorPriorWeight: 0.2,
  /** A hit whose title repeats one ranked above it moves behind the hits with new titles. */
  demoteDuplicates: true,
  /** Vector side: cosine minus this times the hit's mean cosine to its densityK nearest neighbours in the pool (0 = off). */
  densityPenalty: 0.5,
  densityK: 3,
  densityPool: 200,
};

export type RankingConstants = typeof RANKING;

export type SearchSettings = UserSearchSettings & RankingConstants;

/** The user's "search" object over the defaults: a number clamped to its range, a string one of its values. */
function merge(raw: unknown): UserSearchSettings {
  const given = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(USER_SETTINGS) as [string, Setting<string | number>][]) {
    const v = given[key];
    if (typeof s.default === 'number' && typeof v === 'number' && Number.isFinite(v)) out[key] = s.range ? Math.min(s.range[1], Math.max(s.range[0], v)) : v;
    else if (typeof s.default === 'string' && typeof v === 'string' && (!s.values || s.values.includes(v))) out[key] = v;
    else out[key] = s.default;
  }
  return out as UserSearchSettings;
}

export const DEFAULT_SEARCH_SETTINGS: SearchSettings = { ...merge(undefined), ...RANKING };

export interface SearchConfig {
  search: SearchSettings;
  context: ContextSettings;
  /** Settings that could not be honoured, one line each (logged and shown by /api/search/status). */
  problems: string[];
}

export function readSearchConfig(dataDir: string | undefined, env: NodeJS.ProcessEnv = process.env): SearchConfig {
  // Missing or malformed: the defaults (config.ts reports a malformed file).
  const raw = dataDir ? readSettingsFile(dataDir).raw : {};
  const search: SearchSettings = { ...merge(raw.search), ...RANKING };
  const context = readContextSettings(raw.context);
  const e = env.CLAUDE_MEM_EMBEDDINGS;
  if (e === 'local' || e === 'remote' || e === 'off') search.embeddings = e;
  if (env.CLAUDE_MEM_EMBEDDINGS_URL) {
    search.remoteUrl = env.CLAUDE_MEM_EMBEDDINGS_URL;
    if (!e) search.embeddings = 'remote';
  }
  if (env.CLAUDE_MEM_EMBEDDINGS_MODEL) search.remoteModel = env.CLAUDE_MEM_EMBEDDINGS_MODEL;
  if (env.CLAUDE_MEM_EMBEDDINGS_API_KEY) search.remoteApiKey = env.CLAUDE_MEM_EMBEDDINGS_API_KEY;
  if (env.CLAUDE_MEM_EMBEDDINGS_MODEL_DIR) search.localModelDir = env.CLAUDE_MEM_EMBEDDINGS_MODEL_DIR;
  const problems: string[] = [];
  if (search.embeddings === 'remote' && !search.remoteUrl) {
    search.embeddings = 'off';
    problems.push('search.embeddings is "remote" but search.remoteUrl is empty: semantic search is off');
  }
  return { search, context, problems };
}
