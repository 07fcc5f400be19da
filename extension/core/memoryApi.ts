// Typed reads and writes of stored memory over the worker's HTTP API, for the chat participant,
// the tools and the commands. Tolerant of the search/context routes' exact row shapes, and with a
// plain fallback while those routes are missing (404): recent observations filtered by keyword.
// No vscode import.
import type { Observation } from '../../worker/protocol';
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
  mode?: 'keyword' | 'semantic' | 'hybrid';
}

export interface SearchResult {
  hits: SearchHit[];
  /** Set when the worker has no search route yet and a local keyword filter stood in. */
  fallback?: string;
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

/** The worker answers an unknown route with 404 `{error: "no route …"}`: a route that has not landed yet. */
export function isNoRoute(r: Reply<unknown>): boolean {
  return r.status === 404 && /^no route /.test(errorOf(r));
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Pulls the row list out of `{results}`, `{items}`, `{observations}`, `{timeline}` or a bare array. */
function rowsOf(body: unknown): Record<string, unknown>[] {
  if (Array.isArray(body)) return body.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    for (const k of ['results', 'items', 'observations', 'timeline', 'hits', 'rows']) {
      if (Array.isArray(o[k])) return rowsOf(o[k]);
    }
  }
  return [];
}

export function toHit(r: Record<string, unknown>): SearchHit | undefined {
  const rawId = r.id;
  let kind = str(r.kind) ?? str(r.docType) ?? str(r.doc_type) ?? 'observation';
  let id = num(rawId);
  if (id === undefined && typeof rawId === 'string' && /^S\d+$/i.test(rawId)) {
    id = Number(rawId.slice(1));
    kind = 'summary';
  }
  if (id === undefined) return undefined;
  const time = str(r.time) ?? str(r.createdAt) ?? str(r.created_at) ?? (num(r.createdAtEpoch) !== undefined ? new Date(num(r.createdAtEpoch) as number).toISOString() : undefined);
  return {
    id,
    kind,
    type: str(r.type) ?? kind,
    title: str(r.title) ?? str(r.request) ?? str(r.text)?.slice(0, 100) ?? `#${id}`,
    project: str(r.project),
    platform: str(r.platform),
    time,
    score: num(r.score) ?? (typeof r.score === 'number' ? r.score : undefined),
    tokens: num(r.tokens) ?? num(r.readTokens) ?? num(r.read_tokens) ?? num(r.estimatedTokens) ?? num(r.estimated_tokens),
    ...(str(r.snippet) ? { snippet: str(r.snippet) } : {}),
    ...(str(r.freshness) ? { freshness: str(r.freshness) } : {}),
    ...(str(r.staleReason) ? { staleReason: str(r.staleReason) } : {}),
    ...(str(r.branch) ? { branch: str(r.branch) } : {}),
    ...(r.otherBranch === true ? { otherBranch: true } : {}),
  };
}

function observationHit(o: Observation): SearchHit {
  return { id: o.id, kind: 'observation', type: o.type, title: o.title, project: o.project, time: o.createdAt };
}

function observationText(o: Observation): string {
  return [o.title, o.subtitle, o.narrative, ...o.facts, ...o.concepts, ...o.filesRead, ...o.filesModified].filter(Boolean).join(' ').toLowerCase();
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
    try {
      r = await this.req<unknown>('GET', url(o.mode), undefined, timeoutMs);
    } catch (e) {
      if (o.mode === 'keyword' || !/timed out|timeout/i.test((e as Error).message)) throw e;
      r = await this.req<unknown>('GET', url('keyword'));
      if (r.status === 200 && r.body && typeof r.body === 'object') (r.body as Record<string, unknown>).notice = 'semantic search is still loading; keyword results';
    }
    if (isNoRoute(r)) {
      return { hits: await this.keywordFallback(query, o), fallback: 'the worker has no search route yet: matched recent observations by keyword' };
    }
    if (r.status >= 400) throw new WorkerError(`search: ${errorOf(r)}`, r.status);
    const notice = r.body && typeof r.body === 'object' ? str((r.body as Record<string, unknown>).notice) : undefined;
    return { hits: rowsOf(r.body).map(toHit).filter((h): h is SearchHit => !!h), ...(notice ? { notice } : {}) };
  }

  private async keywordFallback(query: string, o: SearchOptions): Promise<SearchHit[]> {
    const recent = await this.recent(o.project, 500);
    const words = query.toLowerCase().split(/\W+/).filter((w) => w.length > 2);
    const scored = recent
      .filter((x) => !o.type || x.type === o.type)
      .map((x) => {
        const text = observationText(x);
        return { x, score: words.length === 0 ? 1 : words.filter((w) => text.includes(w)).length };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || b.x.createdAtEpoch - a.x.createdAtEpoch);
    return scored.slice(0, o.limit ?? 10).map((s) => ({ ...observationHit(s.x), score: s.score }));
  }

  /** What happened around an anchor: an observation id, `S<summaryId>` or an ISO time. */
  async timeline(anchor: string, o: { project?: string; before?: number; after?: number } = {}): Promise<SearchResult> {
    const r = await this.req<unknown>('GET', `/api/timeline${qs({ anchor, project: o.project, depth_before: o.before ?? 5, depth_after: o.after ?? 5 })}`);
    if (isNoRoute(r)) {
      // No timeline route yet: neighbours of the anchor among recent observations.
      const recent = (await this.recent(o.project, 500)).sort((a, b) => a.createdAtEpoch - b.createdAtEpoch);
      const id = Number(anchor);
      const i = recent.findIndex((x) => x.id === id);
      if (i < 0) return { hits: [], fallback: 'no timeline route yet and the anchor is not among recent observations' };
      return { hits: recent.slice(Math.max(0, i - (o.before ?? 5)), i + 1 + (o.after ?? 5)).map(observationHit), fallback: 'the worker has no timeline route yet: showing neighbouring observations' };
    }
    if (r.status >= 400) throw new WorkerError(`timeline: ${errorOf(r)}`, r.status);
    return { hits: rowsOf(r.body).map(toHit).filter((h): h is SearchHit => !!h) };
  }

  /** Full records by id, in the order asked. */
  async get(ids: number[]): Promise<Observation[]> {
    if (ids.length === 0) return [];
    const r = await this.req<unknown>('POST', '/api/observations/batch', { ids });
    if (isNoRoute(r)) {
      const each = await Promise.all(
        ids.map(async (id) => {
          const one = await this.req<Observation>('GET', `/api/observation/${id}`);
          return one.status === 200 ? one.body : undefined;
        }),
      );
      return each.filter((x): x is Observation => !!x);
    }
    if (r.status >= 400) throw new WorkerError(`get observations: ${errorOf(r)}`, r.status);
    const rows = rowsOf(r.body) as unknown as Observation[];
    const byId = new Map(rows.map((x) => [x.id, x]));
    return ids.map((id) => byId.get(id)).filter((x): x is Observation => !!x);
  }

  async recent(project: string | undefined, limit = 10): Promise<Observation[]> {
    const body = await this.ok<{ items: Observation[] }>('GET', `/api/observations${qs({ project, limit })}`);
    return body.items ?? [];
  }

  async save(text: string, o: { title?: string; project?: string } = {}): Promise<{ id: number; duplicate: boolean; project: string }> {
    return this.ok('POST', '/api/memory/save', { text, ...(o.title ? { title: o.title } : {}), ...(o.project ? { project: o.project } : {}) });
  }

  /** The project's injected context (markdown inside <claude-mem-context>), or a small stand-in from recent observations. */
  async context(project: string, params: Record<string, string | number | undefined> = {}): Promise<{ text: string; fallback?: string }> {
    const r = await this.req<unknown>('GET', `/api/context/inject${qs({ project, ...params })}`);
    if (r.status === 200) {
      const b = r.body;
      const text = typeof b === 'string' ? b : str((b as Record<string, unknown>)?.context) ?? str((b as Record<string, unknown>)?.markdown) ?? str((b as Record<string, unknown>)?.text) ?? JSON.stringify(b);
      return { text };
    }
    if (!isNoRoute(r)) throw new WorkerError(`context: ${errorOf(r)}`, r.status);
    const recent = await this.recent(project, 15);
    const lines = recent.map((o) => `- #${o.id} ${o.createdAt.slice(0, 16).replace('T', ' ')} [${o.type}] ${o.title}`);
    const text = `<claude-mem-context>\n# ${project}: recent memory\n${lines.length ? lines.join('\n') : 'No memory stored for this project yet.'}\n</claude-mem-context>`;
    return { text, fallback: 'the worker has no context route yet: recent observations instead' };
  }

  async forgetProject(project: string): Promise<{ deleted: string; sessions: number }> {
    return this.ok('DELETE', `/api/projects/${enc(project)}`);
  }

  async exportMemory(project?: string): Promise<unknown> {
    return this.ok('GET', `/api/export${qs({ project })}`, undefined, 120_000);
  }

  async importMemory(doc: unknown): Promise<{ imported: Record<string, number> }> {
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
