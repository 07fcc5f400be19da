// One search request: keyword, semantic or hybrid, with filters and paging. Hybrid starts the
// query embedding (off-thread) first, ranks keywords while it runs, then fuses both lists.
// When the vector side cannot answer, the keyword ranking is returned with a notice saying so.
import type { SearchResponse, SearchRow } from '../../common/contract';
import type { Store } from '../store/store';
import { parseFtsQuery, type FtsQuery } from './ftsQuery';
import { fuseHybrid } from './hybrid';
import { browse, keywordSearch } from './keyword';
import type { SearchHit } from './hit';
import type { SearchFilters, SearchRequest } from './params';
import { existingIds, hydrate, hydratePriors, KINDS, matchesFilters, toSearchRow, type PriorInfo, type RecordInfo } from './records';
import { factsCanFilter, keepPriors, keptFacts, passes, PRIOR_KEPT, priorsKept, projectCode } from './rowFacts';
import { neighbourDensity } from './density';
import type { SemanticIndex } from './semantic';
import type { SearchSettings } from './settings';
import { demoteDuplicates, prior, priorBound, priorOf, questionIntents, titleHash, titleKey, type Intent } from './rerank';
import { makeSnippet } from './snippet';
import { expandIdentifiers, identifierPartsOf } from './identifiers';
import { promptLinked } from './promptLinks';

/**
 * Where a search's time goes, behind CLAUDE_MEM_SEARCH_STAGES=1 (off by default): each stage's
 * milliseconds, which the search route sends as a Server-Timing header (bench/scale.mjs prints them
 * for the slowest searches). Stages are marked in order; a stage's time is from the previous mark.
 */
export class SearchStages {
  static readonly enabled = process.env.CLAUDE_MEM_SEARCH_STAGES === '1';
  private last = performance.now();
  readonly marks: [string, number][] = [];

  mark(name: string): void {
    const now = performance.now();
    this.marks.push([name, now - this.last]);
    this.last = now;
  }

  /** The marks as a Server-Timing header value. */
  header(): string {
    return this.marks.map(([n, ms]) => `${n};dur=${ms.toFixed(2)}`).join(', ');
  }
}

export interface VectorSide {
  semantic: SemanticIndex;
  /** Why semantic search cannot run now; undefined when it can. */
  unavailable(): string | undefined;
  embedQuery(text: string): Promise<Float32Array>;
  /** Set while stored records still wait for a vector. */
  catchingUp(): string | undefined;
}

/** Candidates asked from each side for fusion, at least. */
const FUSION_DEPTH = 50;
/** Rows a query reads to catch the identifier parts up (the rows added since; the background build does the rest). */
const QUERY_CATCH_UP_ROWS = 500;
/** Keyword candidates re-scored with the priors (rerank.ts), at least. */
const PRIOR_POOL = 100;
/** The pool's rows read at a time beyond the page (Searcher.keywordRanked). */
const PRIOR_BATCH = 10;

export class Searcher {
  constructor(
    private readonly store: Store,
    private readonly settings: SearchSettings,
    private readonly vectors: VectorSide | undefined,
    /** Why there is no vector side, for the fallback notice. */
    private readonly noVectors: () => string = () => 'semantic search is not configured',
  ) {}

  async search(req: SearchRequest, now = Date.now(), stages?: SearchStages): Promise<SearchResponse> {
    const t0 = performance.now();
    const base = { query: req.query, mode: req.mode, limit: req.limit, offset: req.offset };
    const depth = req.offset + req.limit + 1;
    const notices: string[] = [];
    let ranked: SearchHit[];
    let modeUsed: SearchResponse['modeUsed'] = req.mode;
    let fq: FtsQuery | undefined;
    if (req.query.trim() === '') {
      ranked = browse(this.store, req.filters, depth);
      modeUsed = 'browse';
    } else {
      fq = parseFtsQuery(req.query);
      stages?.mark('parse');
      if (!fq) {
        return { ...base, modeUsed: req.mode, items: [], hasMore: false, tookMs: ms(t0), notice: 'the query has no searchable words' };
      }
      const r = await this.ranked(req, fq, depth, now, notices, stages);
      ranked = r.ranked;
      modeUsed = r.modeUsed;
    }
    const page = ranked.slice(req.offset, req.offset + req.limit);
    const items = this.rows(page, fq, modeUsed === 'semantic', stages);
    return {
      ...base,
      modeUsed,
      ...(notices.length ? { notice: notices.join('; ') } : {}),
      items,
      hasMore: ranked.length > req.offset + req.limit,
      tookMs: ms(t0),
    };
  }

  /** Ranked candidates for the mode (depth of them at least when there are that many). */
  async ranked(req: SearchRequest, fq: FtsQuery, depth: number, now: number, notices: string[], stages?: SearchStages): Promise<{ ranked: SearchHit[]; modeUsed: SearchResponse['modeUsed'] }> {
    const s = this.settings;
    const reason = req.mode === 'keyword' ? undefined : this.vectors ? this.vectors.unavailable() : this.noVectors();
    // Start the query embedding before the (synchronous) keyword ranking so they overlap.
    let embedding: Promise<Float32Array> | undefined;
    if (req.mode !== 'keyword' && reason === undefined && this.vectors) {
      embedding = this.vectors.embedQuery(req.query.trim());
      embedding.catch(() => undefined);
    }
    const intents = questionIntents(req.query);
    // Hybrid only (keyword mode keeps to the words typed): a query word that is part of an
    // identifier also looks for the identifier (identifiers.ts).
    if (req.mode === 'hybrid' && s.identifierWeight > 0) {
      const parts = identifierPartsOf(this.store);
      if (!parts.filling) parts.catchUp(this.store, QUERY_CATCH_UP_ROWS);
      fq = expandIdentifiers(fq, parts, s.identifierWeight, s.identifierTerms);
    }
    const kw = req.mode === 'semantic' && !reason ? undefined : await this.keywordRanked(fq, req.filters, Math.max(depth, req.mode === 'hybrid' ? FUSION_DEPTH : 0), intents, stages);
    if (req.mode === 'keyword') return { ranked: kw ?? [], modeUsed: 'keyword' };
    // Hybrid: the records the matching prompts led to (a question is worded like the prompt that
    // started the work), ranked while the query embedding is still on its way.
    const prompted = req.mode === 'hybrid' && embedding && s.promptWeight > 0
      ? await promptLinked(this.store, fq, req.filters, intents, s)
      : [];
    stages?.mark('links');

    let vec: SearchHit[] | undefined;
    let failure = reason;
    if (embedding) {
      try {
        const query = await embedding;
        stages?.mark('embedWait');
        vec = await this.vectorRanked(query, req.filters, Math.max(depth, FUSION_DEPTH, PRIOR_POOL), intents, stages);
        const lag = this.vectors?.catchingUp();
        if (lag) notices.push(lag);
      } catch (e) {
        failure = (e as Error).message;
      }
    }
    if (!vec) {
      notices.push(`semantic search unavailable (${failure ?? 'unknown reason'}); showing keyword results`);
      const hits = kw ?? (await this.keywordRanked(fq, req.filters, depth, intents));
      return { ranked: hits, modeUsed: 'keyword' };
    }
    if (req.mode === 'semantic') return { ranked: vec, modeUsed: 'semantic' };
    const fused = fuseHybrid(kw ?? [], vec, prompted, s, now);
    stages?.mark('fusion');
    return { ranked: fused, modeUsed: 'hybrid' };
  }

  /**
   * BM25 hits of a pool of at least PRIOR_POOL, multiplied by their priors, best first. The pool's
   * rows are read best BM25 first, a batch at a time, only until no hit left unread can reach the
   * first `depth` places (its BM25 times the largest prior is below the depth-th hit with a new
   * title): at 100k records each row read is a page-cache chunk inflated, and the pool's rows
   * were most of a search's CPU. The result is the one the whole pool gives.
   */
  private async keywordRanked(fq: FtsQuery, f: SearchFilters, depth: number, intents: Set<Intent>, stages?: SearchStages): Promise<SearchHit[]> {
    const s = this.settings;
    const found = await keywordSearch(this.store, fq, f, Math.max(depth, PRIOR_POOL));
    stages?.mark('rank');
    const bound = priorBound(intents, s);
    const factor: (number | undefined)[] = [];
    const key: TitleKey[] = [];
    const read = new Map<string, PriorInfo>();
    let m = 0;
    for (let take = depth + PRIOR_BATCH; ; take += PRIOR_BATCH) {
      const next = Math.min(found.length, take);
      for (const x of this.leanPriors(found.slice(m, next), intents, read)) {
        factor.push(x?.prior);
        key.push(x?.hash);
      }
      m = next;
      if (m === found.length || settled(this.pool(found, factor, key, m), depth, found[m].score * bound, s.demoteDuplicates)) break;
    }
    this.sharedTitles(found.slice(0, m), key, read);
    stages?.mark('priorRows');
    // How many of the pool's hits had their priors taken (the rest could not reach the page).
    stages?.marks.push(['pool', m]);
    const ranked = this.pool(found, factor, key, m);
    stages?.mark('priors');
    return ranked.slice(0, depth).map((x) => x.h);
  }

  /** The first m hits times their priors, best first; with demoteDuplicates, a title (by key) ranked above moves the hit behind the new titles. */
  private pool(found: SearchHit[], factor: (number | undefined)[], key: TitleKey[], m: number): PoolHit[] {
    const hits = found.slice(0, m).map((h, i) => ({ h: factor[i] === undefined ? h : { ...h, score: h.score * factor[i] }, key: key[i] }));
    hits.sort((a, b) => b.h.score - a.h.score || b.h.epoch - a.h.epoch || b.h.id - a.h.id);
    return this.settings.demoteDuplicates ? demoteDuplicates(hits, (x) => x.key) : hits;
  }

  /** Hits whose title hashes are equal get their titles' keys, so two titles are duplicates exactly when their keys are equal. */
  private sharedTitles(hits: SearchHit[], key: TitleKey[], read: Map<string, PriorInfo>): void {
    const count = new Map<string | number, number>();
    for (const k of key) if (k !== undefined) count.set(k, (count.get(k) ?? 0) + 1);
    const shared = hits.filter((_, i) => (count.get(key[i] as number) ?? 0) > 1);
    if (shared.length === 0) return;
    const titles = new Map<string, string>();
    for (const [ref, r] of read) titles.set(ref, r.title);
    for (const kind of ['observation', 'summary', 'prompt'] as const) {
      const ids = shared.filter((h) => h.kind === kind && !titles.has(`${kind}:${h.id}`)).map((h) => h.id);
      if (ids.length > 0) for (const [id, r] of hydratePriors(this.store, kind, ids, false)) titles.set(`${kind}:${id}`, r.title);
    }
    for (const [i, h] of hits.entries()) {
      if ((count.get(key[i] as number) ?? 0) < 2) continue;
      const t = titles.get(`${h.kind}:${h.id}`);
      key[i] = t === undefined ? undefined : titleKey(t);
    }
  }

  /** Vector hits with every filter applied (the index applies project, kind and time; the rest here). */
  private async vectorRanked(vector: Float32Array, f: SearchFilters, depth: number, intents: Set<Intent>, stages?: SearchStages): Promise<SearchHit[]> {
    const semantic = (this.vectors as VectorSide).semantic;
    const extra = f.types !== undefined || f.concepts !== undefined || f.file !== undefined;
    let k = extra ? Math.max(depth * 4, 200) : Math.max(depth, this.settings.densityPenalty > 0 ? this.settings.densityPool : 0);
    for (;;) {
      const hits = await semantic.query(vector, k, { project: f.project, kinds: f.kinds, from: f.from, to: f.to, withVectors: this.settings.densityPenalty > 0 ? this.settings.densityPool : 0 });
      stages?.mark('scan');
      const kept = this.filterHits(hits, f, intents);
      stages?.mark('vectorPriors');
      // Filters dropped too many: look deeper, unless the index had nothing more to give.
      if (kept.length >= depth || hits.length < k || k >= 20_000) return kept;
      k *= 4;
    }
  }

  private filterHits(hits: SearchHit[], f: SearchFilters, intents: Set<Intent>): SearchHit[] {
    const s = this.settings;
    const read = new Map<string, PriorInfo>();
    const lean = this.leanPriors(hits, intents, read, f);
    const key: TitleKey[] = lean.map((x) => x?.hash);
    this.sharedTitles(hits, key, read);
    const out: (SearchHit & { key: TitleKey })[] = [];
    // Hubness correction (density.ts): a hit among look-alikes pays for their closeness.
    // Hits past the pool were not compared: they pay the most any pooled hit pays, so none jumps ahead for that.
    const density = s.densityPenalty > 0 ? neighbourDensity(hits.slice(0, s.densityPool).map((h) => h.unit), s.densityK) : undefined;
    const beyond = density && density.length > 0 ? Math.max(...density) : 0;
    for (const [i, h] of hits.entries()) {
      const r = lean[i];
      // Absent: deleted since it was indexed, or filtered out.
      if (r) out.push({ kind: h.kind, id: h.id, epoch: r.epoch, key: key[i], cosine: h.score, score: h.score - s.densityPenalty * (density ? (density[i] ?? beyond) : 0) + s.vectorPriorWeight * (r.prior - 1) });
    }
    out.sort((a, b) => b.score - a.score || b.epoch - a.epoch || b.id - a.id);
    return (s.demoteDuplicates ? demoteDuplicates(out, (h) => h.key) : out).map(({ key: _k, ...h }) => h);
  }

  /**
   * Each hit's prior, time and title hash (undefined: its row is gone). From the rows'
   * facts kept in memory (rowFacts.ts); rows whose facts are not kept are read as lean rows (into
   * `read`, and kept). With `filters` (the vector side's hits), existence is asked of the docsize
   * table and the filters are applied (undefined: filtered out); a type, concept, file or platform
   * filter, which the facts cannot answer, reads every hit's lean row. At 100k records each lean row
   * read was mostly a page-cache miss: a keyword pool or a vector pool of 200 read that way was
   * most of a search's CPU.
   */
  private leanPriors(hits: SearchHit[], intents: Set<Intent>, read: Map<string, PriorInfo>, filters?: SearchFilters): ({ prior: number; epoch: number; hash: number } | undefined)[] {
    const s = this.settings;
    const out: ({ prior: number; epoch: number; hash: number } | undefined)[] = new Array(hits.length).fill(undefined);
    for (const kind of ['observation', 'summary', 'prompt'] as const) {
      const at = [...hits.keys()].filter((i) => hits[i].kind === kind);
      if (at.length === 0) continue;
      const facts = !filters || factsCanFilter(filters) ? keptFacts(this.store, KINDS[kind]) : undefined;
      const fromFacts: number[] = [];
      const fromRows: number[] = [];
      for (const i of at) (facts && priorsKept(facts, hits[i].id) ? fromFacts : fromRows).push(i);
      if (facts && fromFacts.length > 0) {
        const alive = filters && existingIds(this.store, KINDS[kind], fromFacts.map((i) => hits[i].id));
        const code = filters && projectCode(facts, filters.project);
        for (const i of fromFacts) {
          const id = hits[i].id;
          if (filters && !(alive?.has(id) && passes(facts, id, filters, code))) continue;
          out[i] = { prior: priorOf(kind, facts.bodyLength[id], facts.priorBits[id] & ~PRIOR_KEPT, intents, s), epoch: facts.epoch[id], hash: facts.titleHash[id] };
        }
      }
      if (fromRows.length === 0) continue;
      const rows = hydratePriors(this.store, kind, fromRows.map((i) => hits[i].id), filters?.platform !== undefined);
      if (facts) keepPriors(facts, rows.values());
      for (const i of fromRows) {
        const r = rows.get(hits[i].id);
        if (!r || (filters && !matchesFilters(r, filters))) continue;
        out[i] = { prior: prior(r, intents, s), epoch: r.epoch, hash: titleHash(r.title) };
        read.set(`${kind}:${r.id}`, r);
      }
    }
    return out;
  }

  private rows(page: SearchHit[], fq: FtsQuery | undefined, semanticOnly: boolean, stages?: SearchStages): SearchRow[] {
    const info = new Map<string, RecordInfo>();
    for (const kind of ['observation', 'summary', 'prompt'] as const) {
      const ids = page.filter((p) => p.kind === kind).map((p) => p.id);
      for (const [id, r] of hydrate(this.store, kind, ids)) info.set(`${kind}:${id}`, r);
    }
    stages?.mark('pageRows');
    const out: SearchRow[] = [];
    for (const p of page) {
      const r = info.get(`${p.kind}:${p.id}`);
      if (!r) continue;
      const snippet = fq ? makeSnippet(r.body, semanticOnly ? [] : fq.words) : undefined;
      out.push(toSearchRow(r, fq ? p.score : null, snippet || undefined));
    }
    stages?.mark('snippets');
    return out;
  }
}

/** A title's hash, or its folded key where hashes are shared (sharedTitles); undefined: the row is gone. */
type TitleKey = string | number | undefined;
type PoolHit = { h: SearchHit; key: TitleKey };

/**
 * Whether a pool ranked so far settles the first `depth` places: its depth-th hit has a title not
 * ranked above (by title hash: equal hashes count as one title, which counts fewer; demoted titles
 * stand behind every new one) and scores above `unread`, the most a hit not read yet can score.
 * Those places then depend on nothing below them.
 */
function settled(ranked: PoolHit[], depth: number, unread: number, demoted: boolean): boolean {
  const d = ranked[depth - 1];
  return unread >= 0 && d !== undefined && d.h.score > unread && !(demoted && d.key !== undefined && ranked.slice(0, depth - 1).some((x) => x.key === d.key));
}

function ms(t0: number): number {
  return Math.round((performance.now() - t0) * 10) / 10;
}

