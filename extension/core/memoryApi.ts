// Typed reads and writes of stored memory over the worker's HTTP API, for the chat participant,
// the tools and the commands. Replies are read with the contract's parsers: a reply that does not
// match is a bug and fails loudly (ContractError). No vscode import.
import {
  contextMarkdown,
  parseObservationList,
  parseObservationsBatch,
  parseSaveMemoryResponse,
  parseSearchResponse,
  parseTimelineResponse,
  type Observation,
  type ProjectDeletedResponse,
  type ImportResponse,
  type SearchMode,
  type SearchRow,
  type TimelineItem,
} from '../../common/contract';
import type { Reply } from '../workerClient';

export interface Requester {
  request<T = unknown>(method: string, urlPath: string, body?: unknown, timeoutMs?: number): Promise<Reply<T>>;
}

export interface SearchHit {
  id: number;
  /** 'observation' unless the route says otherwise (summary, prompt). */
  kind: string;
  type: string;
  title: string;
  project?: string;
  /** The platform of the record's session (claude-code, vscode-agent, …), when the route says. */
  platform?: string;
  time?: string;
  score?: number;
  tokens?: number;
  /** Search rows: the matched excerpt, and freshness (docs/freshness.md). */
  snippet?: string;
  freshness?: string;
  staleReason?: string;
  branch?: string;
  otherBranch?: boolean;
}

export interface SearchOptions {
  project?: string;
  /** Only sessions of this platform. */
  platform?: string;
  type?: string;
  limit?: number;
  mode?: SearchMode;
}

export interface SearchResult {
  hits: SearchHit[];
  notice?: string;
}

export class WorkerError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const enc = encodeURIComponent;

function qs(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

function errorOf(r: Reply<unknown>): string {
  const b = r.body as { error?: unknown } | string | undefined;
  if (b && typeof b === 'object' && typeof b.error === 'string') return b.error;
  return typeof b === 'string' && b ? b.slice(0, 200) : `HTTP ${r.status}`;
}

/** A search or timeline row as the extension shows it. */
export function toHit(r: SearchRow | TimelineItem): SearchHit {
  return {
    id: r.id,
    kind: r.kind,
    type: r.type,
    title: r.title,
    project: r.project,
    ...(r.platform ? { platform: r.platform } : {}),
    time: r.time,
    ...('score' in r && r.score !== null ? { score: r.score } : {}),
    tokens: r.readTokens,
    ...('snippet' in r && r.snippet ? { snippet: r.snippet } : {}),
    ...(r.freshness ? { freshness: r.freshness } : {}),
    ...(r.staleReason ? { staleReason: r.staleReason } : {}),
    ...(r.branch ? { branch: r.branch } : {}),
    ...(r.otherBranch ? { otherBranch: true } : {}),
  };
}

export class MemoryApi {
  constructor(private readonly client: () => Requester | undefined) {}

  private async req<T>(method: string, urlPath: string, body?: unknown, timeoutMs = 5000): Promise<Reply<T>> {
    const c = this.client();
    if (!c) throw new WorkerError('the memory worker is not running yet', 0);
    return c.request<T>(method, urlPath, body, timeoutMs);
  }

  private async ok<T>(method: string, urlPath: string, body?: unknown, timeoutMs?: number): Promise<T> {
    const r = await this.req<T>(method, urlPath, body, timeoutMs);
    if (r.status >= 400) throw new WorkerError(`${method} ${urlPath.split('?')[0]}: ${errorOf(r)}`, r.status);
    return r.body;
  }

  /**
   * Ranked compact rows. Hybrid search can stall while the worker loads its embedding model (seconds
   * on a busy machine): past `timeoutMs` the same query is asked again in keyword mode, with a notice.
   */
  async search(query: string, o: SearchOptions = {}, timeoutMs = 6000): Promise<SearchResult> {
    const url = (mode: string | undefined) => `/api/search${qs({ query, project: o.project, platform: o.platform, type: o.type, limit: o.limit ?? 10, mode })}`;
    let r: Reply<unknown>;
    let notice: string | undefined;
    try {
      r = await this.req<unknown>('GET', url(o.mode), undefined, timeoutMs);
    } catch (e) {
      if (o.mode === 'keyword' || !/timed out|timeout/i.test((e as Error).message)) throw e;
      r = await this.req<unknown>('GET', url('keyword'));
      notice = 'semantic search is still loading; keyword results';
    }
    if (r.status >= 400) throw new WorkerError(`search: ${errorOf(r)}`, r.status);
    const body = parseSearchResponse(r.body);
    notice ??= body.notice;
    return { hits: body.items.map(toHit), ...(notice ? { notice } : {}) };
  }

  /** What happened around an anchor: an observation id, `S<summaryId>` or an ISO time. */
  async timeline(anchor: string, o: { project?: string; before?: number; after?: number } = {}): Promise<SearchResult> {
    const body = parseTimelineResponse(await this.ok<unknown>('GET', `/api/timeline${qs({ anchor, project: o.project, depth_before: o.before ?? 5, depth_after: o.after ?? 5 })}`));
    return { hits: body.items.map(toHit) };
  }

  /** Full records by id, in the order asked. */
  async get(ids: number[]): Promise<Observation[]> {
    if (ids.length === 0) return [];
    const body = parseObservationsBatch(await this.ok<unknown>('POST', '/api/observations/batch', { ids }));
    const byId = new Map(body.items.map((x) => [x.id, x]));
    return ids.map((id) => byId.get(id)).filter((x): x is Observation => !!x);
  }

  async recent(project: string | undefined, limit = 10): Promise<Observation[]> {
    return parseObservationList(await this.ok<unknown>('GET', `/api/observations${qs({ project, limit })}`)).items;
  }

  async save(text: string, o: { title?: string; project?: string } = {}): Promise<{ id: number; duplicate: boolean; project: string }> {
    return parseSaveMemoryResponse(await this.ok<unknown>('POST', '/api/memory/save', { text, ...(o.title ? { title: o.title } : {}), ...(o.project ? { project: o.project } : {}) }));
  }

  /** The project's injected context (markdown inside <claude-mem-context>). */
  async context(project: string, params: Record<string, string | number | undefined> = {}): Promise<{ text: string }> {
    return { text: contextMarkdown(await this.ok<unknown>('GET', `/api/context/inject${qs({ project, ...params })}`)) };
  }

  async forgetProject(project: string): Promise<ProjectDeletedResponse> {
    return this.ok('DELETE', `/api/projects/${enc(project)}`);
  }

  async exportMemory(project?: string): Promise<unknown> {
    return this.ok('GET', `/api/export${qs({ project })}`, undefined, 120_000);
  }

  async importMemory(doc: unknown): Promise<ImportResponse> {
    return this.ok('POST', '/api/import', doc, 300_000);
  }

  /** Observations created since local midnight in a project (for the status bar). */
  async countToday(project: string | undefined): Promise<number> {
    const midnight = new Date();
    midnight.setHours(0, 0, 0, 0);
    const items = await this.recent(project, 1000);
    return items.filter((o) => o.createdAtEpoch >= midnight.getTime()).length;
  }
}
