// Search settings: the "search" object of <dataDir>/settings.json, then a few environment
// overrides, and the ranking's constants (not settings). Unknown keys and values of the wrong type are ignored (the default stays), so a typo
// never stops the worker. See docs/search.md. The "context" object is context/settings.ts's.
import { readSettingsFile } from '../../common/node/settingsFile';
import { readContextSettings, type ContextSettings } from '../context/settings';

export type EmbeddingsProvider = 'local' | 'remote' | 'off';

/** What a user may set in settings.json's "search" object (the table in docs/search.md). */
export interface UserSearchSettings {
  /** local: the shipped sentence encoder in its own process; remote: an OpenAI-compatible endpoint; off: keyword only. */
  embeddings: EmbeddingsProvider;
  remoteUrl: string;
  remoteModel: string;
  remoteApiKey: string;
  /** Expected remote vector length; 0 learns it from the first answer. */
  remoteDims: number;
  /** A model folder (embed/folder.ts) used instead of the bundled encoder when embeddings is "local"; empty = bundled. */
  localModelDir: string;
  /** Records embedded per batch by the background indexer. */
  indexBatchSize: number;
  /** The background indexer embeds nothing this long after the worker listens (a vector query still does at once). */
  indexStartDelayMs: number;
  /** The background indexer embeds nothing until this long has passed without a new record (a burst of writes becomes one pass). */
  indexQuietMs: number;
  /** Query embeddings kept (LRU). */
  queryCacheSize: number;
  /**
   * 0 (the default): every full-text match is ranked (exactly, through impact lists: topK.ts).
   * A number: BM25 is computed for at most about this many matches per record kind, the newest.
   */
  keywordRankCap: number;
  /** Hybrid: vector hits under this cosine do not vote, whatever the best one is (a small store's every record is some query's nearest). */
  vectorMinScore: number;
  /** End the model process (and drop the vector scan) after this long unused. */
  embedderIdleMs: number;
  /** Impact lists of this many of the most common words are built in the background after start (listWarmer.ts); 0: off. */
  keywordWarmTerms: number;
}

/**
 * The ranking's constants: chosen on the development sets (docs/search.md), not read from
 * settings.json. Code may change them per service (tests, and the eval's trials switching a
 * mechanism off).
 */
export interface RankingConstants {
  /** Hybrid: reciprocal rank fusion constant. */
  rrfK: number;
  /** Hybrid (and the prompts' list): keyword hits under this fraction of the best BM25 score do not vote. */
  keywordMinRelative: number;
  /** Hybrid: vector hits more than this below the best corrected cosine do not vote. */
  vectorWindow: number;
  /** Hybrid: a best keyword hit scoring this many times the runner-up stays first (0 = off). */
  keywordLeadRatio: number;
  /** Hybrid: a brand-new record gains this fraction of a first-rank RRF score, halving every recencyHalfLifeDays. */
  recencyWeight: number;
  recencyHalfLifeDays: number;
  /** Hybrid: after fusion the best keyword hit ranks no lower than this, the runner-up no lower than this + 2 (0 = off). */
  keywordLeaderFloor: number;
  /** Hybrid: after fusion the best vector hit ranks no lower than this (0 = off). */
  vectorLeaderFloor: number;
  /** Hybrid: weight of an identifier a query word is part of (identifiers.ts: "msg id" also looks for client_msg_id), times the share of its parts named; 0 = off. */
  identifierWeight: number;
  /** Hybrid: at most this many identifiers are added to a query. */
  identifierTerms: number;
  /** Hybrid: weight of the third list, the records the prompts matching the query led to (promptLinks.ts); 0 = off. */
  promptWeight: number;
  /** The priors (rerank.ts): weight of a record's substance; 0 = off. */
  substancePrior: number;
  /** The priors (rerank.ts): factor 1 + this for a record that fits the question's intent (why / where / outcome); 0 = off. */
  intentBoost: number;
  /** The priors on the vector side: cosine + this * (prior - 1). */
  vectorPriorWeight: number;
  /** A hit whose title repeats one ranked above it moves behind the hits with new titles. */
  demoteDuplicates: boolean;
  /** Vector side: cosine minus this times the hit's mean cosine to its densityK nearest neighbours in the pool (0 = off). */
  densityPenalty: number;
  densityK: number;
  densityPool: number;
}

export type SearchSettings = UserSearchSettings & RankingConstants;

const USER_DEFAULTS: UserSearchSettings = {
  embeddings: 'local',
  remoteUrl: '',
  remoteModel: '',
  remoteApiKey: '',
  remoteDims: 0,
  localModelDir: '',
  indexBatchSize: 16,
  indexStartDelayMs: 60_000,
  indexQuietMs: 10_000,
  queryCacheSize: 256,
  keywordRankCap: 0,
  vectorMinScore: 0,
  embedderIdleMs: 5 * 60_000,
  keywordWarmTerms: 128,
};

export const RANKING: RankingConstants = {
  rrfK: 30,
  keywordMinRelative: 0.3,
  vectorWindow: 0.15,
  keywordLeadRatio: 1.5,
  recencyWeight: 0.15,
  recencyHalfLifeDays: 30,
  keywordLeaderFloor: 3,
  vectorLeaderFloor: 4,
  identifierWeight: 0.7,
  identifierTerms: 8,
  promptWeight: 1,
  substancePrior: 0.8,
  intentBoost: 0.3,
  vectorPriorWeight: 0.2,
  demoteDuplicates: true,
  densityPenalty: 0.5,
  densityK: 3,
  densityPool: 200,
};

export const DEFAULT_SEARCH_SETTINGS: SearchSettings = { ...USER_DEFAULTS, ...RANKING };

/** Bounds for numbers; a value outside is clamped. */
const SEARCH_BOUNDS: Partial<Record<keyof UserSearchSettings, [number, number]>> = {
  remoteDims: [0, 8192],
  indexBatchSize: [1, 256],
  indexStartDelayMs: [0, 3600_000],
  indexQuietMs: [0, 600_000],
  queryCacheSize: [0, 100_000],
  keywordRankCap: [0, 1_000_000],
  vectorMinScore: [-1, 1],
  embedderIdleMs: [1000, 24 * 3600_000],
  keywordWarmTerms: [0, 100_000],
};

const ENUMS: Partial<Record<keyof UserSearchSettings, readonly string[]>> = {
  embeddings: ['local', 'remote', 'off'],
};

/** The user's "search" object over the defaults: a number clamped to its bounds, a string one of its enum's. */
function merge(raw: unknown): UserSearchSettings {
  const out: Record<string, unknown> = { ...USER_DEFAULTS };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out as unknown as UserSearchSettings;
  for (const [key, d] of Object.entries(USER_DEFAULTS) as [keyof UserSearchSettings, unknown][]) {
    const v = (raw as Record<string, unknown>)[key];
    const b = SEARCH_BOUNDS[key];
    const allowed = ENUMS[key];
    if (typeof d === 'number' && typeof v === 'number' && Number.isFinite(v)) out[key] = b ? Math.min(b[1], Math.max(b[0], v)) : v;
    else if (typeof d === 'string' && typeof v === 'string' && (!allowed || allowed.includes(v))) out[key] = v;
  }
  return out as unknown as UserSearchSettings;
}

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
