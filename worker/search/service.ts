// The search module's services for one store: settings, the embedders (one model process for
// queries and the background indexer; a query goes before the rest of an indexing batch), vector
// indexes, the indexer and the searcher. main.ts creates it; routes reach it as ctx.search (server/context.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkerConfig } from '../../common/node/config';
import type { EventBus } from '../events';
import type { Lull } from '../lull';
import type { Logger } from '../../common/node/log';
import type { ReindexRequest, ReindexResponse, SearchStatus } from '../../common/contract';
import type { Store } from '../store/store';
import { FTS_WEIGHTS, registerSearchFunctions } from './bm25';
import { buildDocLengths, docLengths } from './docLengths';
import { cachedEmbedder } from './embed/cache';
import { createLocalEmbedder } from './embed/embedder';
import { createFolderEmbedders } from './embed/folder';
import { createRemoteEmbedder } from './embed/remote';
import type { Embedder } from './embed/types';
import { vectorModelId } from './embedText';
import { FtsMerger } from './ftsMerge';
import { EmbeddingIndexer } from './indexer';
import { ListWarmer } from './listWarmer';
import { identifierPartsOf } from './identifiers';
import { stepInBackground, type Stepping } from './background';
import { KINDS } from './records';
import { fillPriors } from './rowFacts';
import { Searcher, type VectorSide } from './searcher';
import { warmSearches } from './warmSearch';
import { SemanticIndex } from './semantic';
import { readSearchConfig, type SearchConfig } from './settings';
import { VectorFiles } from './vectors/files';

export interface SearchDeps {
  config: Pick<WorkerConfig, 'dataDir'>;
  store: Store;
  events: EventBus;
  log: Logger;
  /** What background work waits for (the server's requests); none: it does not wait. */
  lull?: Lull;
}

export interface SearchServiceOptions {
  /** Overrides settings.json / environment (tests). */
  settings?: SearchConfig;
  /** Overrides the embedders (tests, bench): one for queries, one for indexing. */
  embedders?: { query: Embedder; index: Embedder };
  threadScript?: string;
}

/**
 * Texts a message to the indexer's model process (the indexer takes indexBatchSize records a
 * round): the host groups a message's texts into runs of similar length (embed/runs.ts), which
 * costs less a record than one text a message, and runs a query before the rest of the message.
 */
export const INDEX_MESSAGE_TEXTS = 32;

/** A failed query embedding makes semantic search "unavailable" this long before trying again. */
const QUERY_RETRY_MS = 30_000;
/** The vector scan is loaded this long after start (healthy first, then warm). */
const WARM_DELAY_MS = 1500;
/** Rows a step of the fill's last identifier catch-up reads (a few milliseconds at 100k). */
const IDENTIFIER_STEP_ROWS = 500;
/** The warm-up process reads doclists front to back: a small cache serves it. */
const WARM_PROCESS_CACHE_BYTES = 16 << 20;

export class SearchService {
  readonly settings: SearchConfig;
  readonly searcher: Searcher;
  readonly semantic: SemanticIndex | undefined;
  readonly indexer: EmbeddingIndexer | undefined;
  private readonly embedders: { query: Embedder; index: Embedder } | undefined;
  private queryFailure: { at: number; message: string } | undefined;
  private pendingCache: { at: number; n: number } | undefined;
  private unsubscribe: (() => void) | undefined;
  private warmTimer: NodeJS.Timeout | undefined;
  private listWarmer: ListWarmer | undefined;
  /** The start-up fill of the rows' lengths, prior facts and identifiers. */
  private fill: Stepping | undefined;
  private ftsMerger: FtsMerger | undefined;
  /** Warm-up searches run after start (warmSearch.ts); undefined until they ran. */
  searchesWarmed: number | undefined;
  private searchWarmTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: SearchDeps,
    opts: SearchServiceOptions = {},
  ) {
    registerSearchFunctions(deps.store);
    this.settings = opts.settings ?? readSearchConfig(deps.config.dataDir);
    for (const p of this.settings.problems) deps.log.warn(p);
    const s = this.settings.search;
    this.embedders = opts.embedders ?? makeEmbedders(this.settings, deps.log, opts.threadScript);
    if (this.embedders) {
      this.semantic = new SemanticIndex({
        store: deps.store,
        model: vectorModelId(this.embedders.index.name),
        log: deps.log,
        files: new VectorFiles(path.join(deps.config.dataDir, 'vector-data')),
        idleMs: s.embedderIdleMs,
        onBroken: () => this.indexer?.rescan(),
      });
      this.indexer = new EmbeddingIndexer({
        store: deps.store,
        embedder: this.embedders.index,
        semantic: this.semantic,
        batchSize: s.indexBatchSize,
        startDelayMs: s.indexStartDelayMs,
        quietMs: s.indexQuietMs,
        log: deps.log,
      });
    }
    const query = this.embedders ? cachedEmbedder(this.embedders.query, s.queryCacheSize) : undefined;
    const side: VectorSide | undefined =
      this.semantic && query
        ? {
            semantic: this.semantic,
            unavailable: () => this.vectorUnavailable(),
            embedQuery: async (text) => {
              // The query starts the model process anyway, and its answer wants every record's vector.
              this.indexer?.wake();
              try {
                const [v] = await query.embed([text]);
                this.queryFailure = undefined;
                return v;
              } catch (e) {
                this.queryFailure = { at: Date.now(), message: (e as Error).message };
                throw e;
              }
            },
            catchingUp: () => this.catchingUp(),
          }
        : undefined;
    this.searcher = new Searcher(deps.store, s, side, () => this.vectorUnavailable() ?? 'no embedder');
  }

  /** Subscribes to store events and starts the first indexing pass (in idle time: indexer.ts). */
  start(): void {
    if (this.unsubscribe) return;
    // The full-text indexes merged once writes pause: every keyword statement walks every segment.
    // CLAUDE_MEM_INDEX_MERGE=off leaves them as written (the fault suite, which needs the journal
    // to hold only its own writes between the checkpoints it asks for).
    const merger = process.env.CLAUDE_MEM_INDEX_MERGE === 'off' ? undefined : (this.ftsMerger = new FtsMerger(this.deps.store, this.deps.log, { lull: this.deps.lull }));
    const kick = () => {
      this.indexer?.kick();
      merger?.kick();
    };
    const projectChanged = (d: { project: string }) => {
      this.indexer?.erase(d.project);
      void this.semantic?.projectChanged(d.project).catch((err: Error) => this.deps.log.warn('vector index update failed', { error: err.message }));
    };
    this.unsubscribe = this.deps.events.on({
      new_observation: kick,
      observations_imported: kick,
      new_summary: kick,
      observation_deleted: (d) => {
        this.indexer?.erase(d.project);
        this.semantic?.removed('observation', d.id, d.project);
      },
      project_deleted: projectChanged,
      session_forgotten: projectChanged,
    });
    this.indexer?.start();
    merger?.kick();
    // The most common words' keyword lists, built a step at a time once start-up is done.
    const store = this.deps.store;
    const script = warmProcessScript();
    const child = script ? { script, dir: store.dir, pageCacheBytes: WARM_PROCESS_CACHE_BYTES } : undefined;
    // Then a few searches of its own, so the first searches people make do not pay for compiling them (warmSearch.ts).
    const startedAt = Date.now();
    const onDone = () => {
      // Never before WARM_DELAY_MS (the warm-up ends at once when it is off): start-up first.
      this.searchWarmTimer = setTimeout(() => {
        const t0 = performance.now();
        void warmSearches(store, (req) => this.searcher.search(req), () => this.unsubscribe === undefined)
          .then((n) => {
            this.searchesWarmed = n;
            this.deps.log.info('keyword searches warmed', { searches: n, ms: Math.round(performance.now() - t0) });
          })
          .catch((e: Error) => this.deps.log.warn('keyword search warm-up stopped', { error: e.message }));
      }, Math.max(0, startedAt + WARM_DELAY_MS - Date.now()));
      this.searchWarmTimer.unref();
    };
    this.listWarmer = new ListWarmer(store, this.settings.search.keywordWarmTerms, this.deps.log, { process: child, onDone });
    this.listWarmer.start(WARM_DELAY_MS);
    // Each table's row lengths (docLengths.ts: a common word's first list is then read from the
    // index's segments once, not ranked a window at a time through SQL), every row's prior facts
    // and the identifiers in its text, by part (rowFacts.ts fillPriors, identifiers.ts; one read of
    // each row for both), a page of rows a step from 1.5 s after start (from start, the first start
    // after an import kept 9-22 MB more RSS after the scale bench's searches).
    const parts = this.settings.search.identifierWeight > 0 ? identifierPartsOf(store) : undefined;
    const fill = (function* () {
      for (const k of [KINDS.observation, KINDS.summary, KINDS.prompt]) {
        if (!docLengths(store, k)) yield* buildDocLengths(store, k, FTS_WEIGHTS[k.weights].length);
        yield* fillPriors(store, k, parts);
      }
      // Rows the fill left out (a table whose facts cannot be kept) or added since.
      while (parts && !parts.catchUp(store, IDENTIFIER_STEP_ROWS)) yield;
    })();
    // A store being reloaded or closed ends it (a step throws): the facts are a cache; pools read
    // what they need. Kept alive with the identifiers: a caller awaiting identifiersReady must not
    // see the process exit first.
    const lull = this.deps.lull;
    this.fill = stepInBackground(fill, { delayMs: WARM_DELAY_MS, keepAlive: parts !== undefined, ...(lull ? { wait: () => lull.idle() } : {}) });
    // Until the fill ends (done, failed or stopped), queries leave the identifiers' catching up to it.
    if (parts) {
      parts.filling = true;
      void this.fill.ended.then(() => (parts.filling = false));
    }
    // Load the vector scan soon after start, off the request path, so the first semantic query is fast.
    if (this.semantic) {
      const semantic = this.semantic;
      this.warmTimer = setTimeout(() => void semantic.loadScan().catch((e: Error) => this.deps.log.warn('vector scan load failed', { error: e.message })), WARM_DELAY_MS);
      this.warmTimer.unref();
    }
  }

  /** Settles when no full-text index merge is waiting or under way (tests). */
  mergesIdle(): Promise<void> {
    return this.ftsMerger?.idle() ?? Promise.resolve();
  }

  /** Settles when the identifier parts hold every row that was there at start (tests and evals wait for it). */
  identifiersReady(): Promise<void> {
    return (this.settings.search.identifierWeight > 0 && this.fill?.ended) || Promise.resolve();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.warmTimer);
    clearTimeout(this.searchWarmTimer);
    this.fill?.stop();
    this.listWarmer?.stop();
    this.ftsMerger?.stop();
    this.semantic?.close();
    // Stop the indexer first (no new batch), then close the embedders, which fails a batch in
    // flight at once instead of waiting for it; a batch already embedded is still stored.
    const indexing = this.indexer?.stop();
    if (this.embedders) {
      await Promise.all([this.embedders.query.close(), this.embedders.index === this.embedders.query ? undefined : this.embedders.index.close()]).catch(() => undefined);
    }
    await indexing;
  }

  vectorUnavailable(): string | undefined {
    if (!this.embedders) return this.settings.search.embeddings === 'off' ? 'embeddings are off in settings' : 'no embedder configured';
    if (this.queryFailure && Date.now() - this.queryFailure.at < QUERY_RETRY_MS) return this.queryFailure.message;
    if (this.indexer?.state === 'unavailable' && this.semantic && this.semantic.scanStats().items === 0 && this.indexer.embedded === 0) {
      return this.indexer.lastError ?? 'the embedder is unavailable';
    }
    return undefined;
  }

  private catchingUp(): string | undefined {
    if (!this.indexer || this.indexer.state !== 'indexing') return undefined;
    const now = Date.now();
    if (!this.pendingCache || now - this.pendingCache.at > 5000) this.pendingCache = { at: now, n: this.indexer.pendingCount() };
    return this.pendingCache.n > 0 ? `the semantic index is catching up (${this.pendingCache.n} records not embedded yet)` : undefined;
  }

  status(): SearchStatus {
    const s = this.settings.search;
    const model = this.embedders ? vectorModelId(this.embedders.index.name) : null;
    const counts = model
      ? this.deps.store.all<{ kind: string; n: number }>('SELECT kind, count(*) AS n FROM vectors WHERE model = ? GROUP BY kind', [model])
      : [];
    const indexed = { observations: 0, summaries: 0 };
    for (const c of counts) {
      if (c.kind === 'observation') indexed.observations = c.n;
      else if (c.kind === 'summary') indexed.summaries = c.n;
    }
    const ix = this.indexer;
    const pending = ix ? ix.pendingCount() : 0;
    const state: SearchStatus['embeddings']['state'] = !ix ? 'off' : ix.state === 'unavailable' ? 'unavailable' : ix.state === 'indexing' ? 'indexing' : this.vectorUnavailable() ? 'unavailable' : 'ready';
    const lastError = ix?.lastError ?? this.queryFailure?.message;
    return {
      embeddings: { provider: s.embeddings, model, state, ...(lastError ? { lastError } : {}) },
      indexed,
      pending,
      ...(ix ? { backlog: ix.rate.progress(pending, ix.embedded) } : {}),
      scan: this.semantic?.scanStats() ?? { loaded: false, items: 0, bytes: 0 },
      problems: this.settings.problems,
    };
  }

  /** Reloads the vector scan from the stored vectors; with reembed, drops the stored vectors so every record is embedded again. */
  async reindex(req: ReindexRequest): Promise<ReindexResponse> {
    const semantic = this.semantic;
    const indexer = this.indexer;
    if (!semantic || !indexer) return { project: req.project ?? null, reembed: !!req.reembed, rebuilt: [], dropped: 0, status: this.status() };
    const projects = req.project !== undefined ? [req.project] : semantic.projects();
    let dropped = 0;
    if (req.reembed) {
      // New vectors go to fresh files; the old ones are deleted once no row names them.
      const where = req.project !== undefined ? ' WHERE project = ?' : '';
      for (const r of this.deps.store.all<{ model: string; project: string }>(`SELECT DISTINCT model, project FROM vectors${where}`, req.project !== undefined ? [req.project] : [])) {
        semantic.files.retire(r.model, r.project);
      }
      dropped = await this.deps.store.write((tx) =>
        req.project !== undefined ? tx.run('DELETE FROM vectors WHERE project = ?', [req.project]).changes : tx.run('DELETE FROM vectors').changes,
      );
    }
    if (req.project !== undefined) await semantic.projectChanged(req.project);
    else semantic.reset();
    indexer.rescan();
    return { project: req.project ?? null, reembed: !!req.reembed, rebuilt: projects, dropped, status: this.status() };
  }
}

function makeEmbedders(cfg: SearchConfig, log: Logger, threadScript?: string): { query: Embedder; index: Embedder } | undefined {
  const s = cfg.search;
  if (s.embeddings === 'off') return undefined;
  if (s.embeddings === 'remote') {
    const remote = createRemoteEmbedder({ url: s.remoteUrl, apiKey: s.remoteApiKey || undefined, model: s.remoteModel || undefined, dims: s.remoteDims || undefined });
    return { query: remote, index: remote };
  }
  const script = threadScript ?? defaultThreadScript();
  if (s.localModelDir) {
    try {
      return createFolderEmbedders(s.localModelDir, { threadScript: script, idleMs: s.embedderIdleMs, batchSize: INDEX_MESSAGE_TEXTS, log });
    } catch (e) {
      cfg.problems.push(`search.localModelDir: ${(e as Error).message}; using the bundled model`);
      log.warn('model folder unusable; using the bundled model', { error: (e as Error).message });
    }
  }
  if (!script) {
    cfg.problems.push('the embedder thread script (embedder.js) was not found beside the worker: semantic search is off');
    return undefined;
  }
  // One model process for both: the indexer's messages (INDEX_MESSAGE_TEXTS) go one at a time and
  // a query waits for at most one graph run of them; after a backlog the process goes soon
  // (loading it again costs about 0.2 s), after a query once embedderIdleMs has passed.
  const query = createLocalEmbedder({ threadScript: script, idleMs: s.embedderIdleMs, log });
  return { query, index: query.serial(INDEX_MESSAGE_TEXTS, Math.min(s.embedderIdleMs, 60_000)) };
}

/**
 * The keyword warm-up process's script: beside the bundle, or the build's when run from the
 * sources; none, or CLAUDE_MEM_WARM_PROCESS=0: the warm-up steps on the worker's event loop.
 */
function warmProcessScript(): string | undefined {
  if (process.env.CLAUDE_MEM_WARM_PROCESS === '0') return undefined;
  return [path.join(__dirname, 'list-warmer.js'), path.resolve(__dirname, '..', '..', 'dist', 'list-warmer.js')].find((p) => fs.existsSync(p));
}

export function defaultThreadScript(): string | undefined {
  const candidates = [path.join(__dirname, 'embedder.js'), path.join(__dirname, 'embedderThread.ts'), path.resolve(__dirname, '..', '..', 'dist', 'embedder.js')];
  return candidates.find((p) => fs.existsSync(p));
}
