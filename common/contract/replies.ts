// Parsers for the worker's replies, for every client (extension, MCP server, terminal, panel).
// A reply that does not match its declared shape is a bug on one side: the parser throws a
// ContractError that names the route and the field, instead of guessing at other keys. Fields a
// reply adds beyond the contract are ignored (an older client keeps working with a newer worker).
import type {
  ContextInjectResponse,
  FileHistoryResponse,
  Observation,
  ObservationListResponse,
  ObservationsBatchResponse,
  SaveMemoryResponse,
  SearchKind,
  SearchMode,
  SearchResponse,
  SearchRow,
  SessionInfo,
  SessionListResponse,
  TeamLabel,
  TimelineItem,
  TimelineResponse,
} from './routes';

export class ContractError extends Error {
  constructor(
    readonly route: string,
    readonly field: string,
    what: string,
  ) {
    super(`the worker's reply to ${route} does not match the contract: ${field} ${what}`);
  }
}

type Rec = Record<string, unknown>;

/** Reads one reply, naming each field it checks in the error. */
class Reader {
  constructor(
    readonly route: string,
    readonly path: string,
    readonly o: Rec,
  ) {}

  static of(route: string, u: unknown, path = 'the reply'): Reader {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) throw new ContractError(route, path, 'must be an object');
    return new Reader(route, path, u as Rec);
  }

  private at(k: string): string {
    return this.path === 'the reply' ? k : `${this.path}.${k}`;
  }

  fail(k: string, what: string): never {
    throw new ContractError(this.route, this.at(k), what);
  }

  num(k: string): number {
    const v = this.o[k];
    return typeof v === 'number' && Number.isFinite(v) ? v : this.fail(k, 'must be a number');
  }
  int(k: string): number {
    const v = this.num(k);
    return Number.isSafeInteger(v) ? v : this.fail(k, 'must be an integer');
  }
  str(k: string): string {
    const v = this.o[k];
    return typeof v === 'string' ? v : this.fail(k, 'must be a string');
  }
  bool(k: string): boolean {
    const v = this.o[k];
    return typeof v === 'boolean' ? v : this.fail(k, 'must be a boolean');
  }
  nullableStr(k: string): string | null {
    const v = this.o[k];
    return v === null ? null : typeof v === 'string' ? v : this.fail(k, 'must be a string or null');
  }
  nullableInt(k: string): number | null {
    return this.o[k] === null ? null : this.int(k);
  }
  nullableNum(k: string): number | null {
    return this.o[k] === null ? null : this.num(k);
  }
  optStr(k: string): string | undefined {
    return this.o[k] === undefined ? undefined : this.str(k);
  }
  optNum(k: string): number | undefined {
    return this.o[k] === undefined ? undefined : this.num(k);
  }
  optTrue(k: string): true | undefined {
    const v = this.o[k];
    return v === undefined ? undefined : v === true ? true : this.fail(k, 'must be true when present');
  }
  strList(k: string): string[] {
    const v = this.o[k];
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : this.fail(k, 'must be an array of strings');
  }
  intList(k: string): number[] {
    const v = this.o[k];
    return Array.isArray(v) && v.every((x) => Number.isSafeInteger(x)) ? (v as number[]) : this.fail(k, 'must be an array of integers');
  }
  oneOf<T extends string>(k: string, allowed: readonly T[]): T {
    const v = this.str(k);
    return (allowed as readonly string[]).includes(v) ? (v as T) : this.fail(k, `must be one of ${allowed.join(', ')}`);
  }
  list<T>(k: string, each: (r: Reader) => T): T[] {
    const v = this.o[k];
    if (!Array.isArray(v)) this.fail(k, 'must be an array');
    return v.map((x, i) => each(Reader.of(this.route, x, `${this.at(k)}[${i}]`)));
  }
  obj(k: string): Reader {
    return Reader.of(this.route, this.o[k], this.at(k));
  }
  optObj(k: string): Reader | undefined {
    return this.o[k] === undefined ? undefined : this.obj(k);
  }
}

// Only the fields that are present are copied, so an optional field stays absent rather than undefined.
function present<T extends Rec>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

const SEARCH_KINDS: readonly SearchKind[] = ['observation', 'summary', 'prompt'];
const SEARCH_MODES: readonly SearchMode[] = ['keyword', 'semantic', 'hybrid'];
const FRESHNESS = ['fresh', 'stale', 'confirmed', 'retired', 'aged'] as const;

function teamLabel(r: Reader): TeamLabel | undefined {
  const t = r.optObj('team');
  return t ? { author: t.nullableStr('author'), machine: t.nullableStr('machine') } : undefined;
}

function observation(r: Reader): Observation {
  const f = r.optObj('freshness');
  return present({
    id: r.int('id'),
    sessionId: r.int('sessionId'),
    project: r.str('project'),
    type: r.str('type'),
    title: r.str('title'),
    subtitle: r.nullableStr('subtitle'),
    facts: r.strList('facts'),
    narrative: r.nullableStr('narrative'),
    concepts: r.strList('concepts'),
    filesRead: r.strList('filesRead'),
    filesModified: r.strList('filesModified'),
    toolName: r.nullableStr('toolName'),
    promptNumber: r.nullableInt('promptNumber'),
    source: r.str('source'),
    inputTokens: r.num('inputTokens'),
    outputTokens: r.num('outputTokens'),
    discoveryTokens: r.num('discoveryTokens'),
    createdAt: r.str('createdAt'),
    createdAtEpoch: r.num('createdAtEpoch'),
    team: teamLabel(r),
    freshness: f
      ? present({ status: f.oneOf('status', FRESHNESS), reason: f.optStr('reason'), branch: f.nullableStr('branch'), otherBranch: f.optTrue('otherBranch'), replacedBy: f.optNum('replacedBy'), decidedBy: f.optStr('decidedBy') })
      : undefined,
  });
}

function timelineItem(r: Reader): TimelineItem {
  const freshness = r.optStr('freshness');
  if (freshness !== undefined && freshness !== 'stale' && freshness !== 'retired') r.fail('freshness', 'must be stale or retired when present');
  return present({
    kind: r.oneOf('kind', SEARCH_KINDS),
    id: r.int('id'),
    ref: r.str('ref'),
    type: r.str('type'),
    title: r.str('title'),
    project: r.str('project'),
    sessionId: r.int('sessionId'),
    platform: r.optStr('platform'),
    time: r.str('time'),
    epoch: r.num('epoch'),
    readTokens: r.num('readTokens'),
    team: teamLabel(r),
    freshness: freshness as 'stale' | 'retired' | undefined,
    staleReason: r.optStr('staleReason'),
    branch: r.optStr('branch'),
    otherBranch: r.optTrue('otherBranch'),
    decidedBy: r.optStr('decidedBy'),
    anchor: r.optTrue('anchor'),
  });
}

function searchRow(r: Reader): SearchRow {
  const { anchor: _anchor, ...row } = timelineItem(r);
  return present({ ...row, score: r.nullableNum('score'), snippet: r.optStr('snippet') });
}

function session(r: Reader): SessionInfo {
  return {
    id: r.int('id'),
    platform: r.str('platform'),
    contentSessionId: r.str('contentSessionId'),
    project: r.str('project'),
    cwd: r.nullableStr('cwd'),
    status: r.str('status'),
    promptCounter: r.int('promptCounter'),
    startedAt: r.str('startedAt'),
    completedAt: r.nullableStr('completedAt'),
  };
}

/** GET /api/observation/:id */
export function parseObservation(u: unknown, route = 'GET /api/observation/:id'): Observation {
  return observation(Reader.of(route, u));
}

/** GET /api/observations */
export function parseObservationList(u: unknown): ObservationListResponse {
  const r = Reader.of('GET /api/observations', u);
  return { items: r.list('items', observation), limit: r.int('limit'), offset: r.int('offset') };
}

/** GET /api/sessions */
export function parseSessionList(u: unknown): SessionListResponse {
  const r = Reader.of('GET /api/sessions', u);
  return { items: r.list('items', session), limit: r.int('limit'), offset: r.int('offset') };
}

/** POST /api/observations/batch */
export function parseObservationsBatch(u: unknown): ObservationsBatchResponse {
  const r = Reader.of('POST /api/observations/batch', u);
  return { items: r.list('items', observation), missing: r.intList('missing') };
}

/** GET /api/search */
export function parseSearchResponse(u: unknown): SearchResponse {
  const r = Reader.of('GET /api/search', u);
  const modeUsed = r.str('modeUsed');
  if (modeUsed !== 'browse' && !(SEARCH_MODES as readonly string[]).includes(modeUsed)) r.fail('modeUsed', `must be browse or one of ${SEARCH_MODES.join(', ')}`);
  return present({
    query: r.str('query'),
    mode: r.oneOf('mode', SEARCH_MODES),
    modeUsed: modeUsed as SearchResponse['modeUsed'],
    notice: r.optStr('notice'),
    items: r.list('items', searchRow),
    limit: r.int('limit'),
    offset: r.int('offset'),
    hasMore: r.bool('hasMore'),
    tookMs: r.num('tookMs'),
    rerank: r.optStr('rerank'),
  });
}

/** GET /api/timeline */
export function parseTimelineResponse(u: unknown): TimelineResponse {
  const r = Reader.of('GET /api/timeline', u);
  const a = r.obj('anchor');
  const kind = a.str('kind');
  if (kind !== 'time' && !(SEARCH_KINDS as readonly string[]).includes(kind)) a.fail('kind', `must be time or one of ${SEARCH_KINDS.join(', ')}`);
  return {
    anchor: { kind: kind as TimelineResponse['anchor']['kind'], ref: a.str('ref'), time: a.str('time'), epoch: a.num('epoch') },
    project: r.nullableStr('project'),
    items: r.list('items', timelineItem),
    depthBefore: r.int('depthBefore'),
    depthAfter: r.int('depthAfter'),
  };
}

/** GET /api/search/by-file */
export function parseFileHistory(u: unknown): FileHistoryResponse {
  const r = Reader.of('GET /api/search/by-file', u);
  return {
    path: r.str('path'),
    project: r.nullableStr('project'),
    items: r.list('items', (x) => ({ ...timelineItem(x), action: x.oneOf('action', ['modified', 'read'] as const), path: x.str('path') })),
    limit: r.int('limit'),
    offset: r.int('offset'),
    hasMore: r.bool('hasMore'),
  };
}

/** The markdown of a GET /api/context/inject reply, whichever form it came in. */
export function contextMarkdown(u: unknown): string {
  const r = parseContextInject(u);
  return typeof r === 'string' ? r : r.markdown;
}

/** POST /api/memory/save */
export function parseSaveMemoryResponse(u: unknown): SaveMemoryResponse {
  const r = Reader.of('POST /api/memory/save', u);
  return { id: r.int('id'), duplicate: r.bool('duplicate'), project: r.str('project') };
}

/** GET /api/context/inject: markdown text by default, the JSON form with format=json. */
export function parseContextInject(u: unknown): string | ContextInjectResponse {
  if (typeof u === 'string') return u;
  const r = Reader.of('GET /api/context/inject', u);
  return present({
    project: r.str('project'),
    markdown: r.str('markdown'),
    tokens: r.num('tokens'),
    budget: r.num('budget'),
    observations: r.int('observations'),
    summaries: r.int('summaries'),
    truncated: r.bool('truncated'),
    stale: r.optNum('stale'),
  });
}
