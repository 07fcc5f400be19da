// Query parameters of the search routes, validated at the edge: anything malformed is a 400
// that names the parameter; a query string itself is never an error (see ftsQuery.ts).
import { BadRequest, intParam, OBSERVATION_TYPES, type SearchKind, type SearchMode } from '../../common/contract';

export interface SearchFilters {
  project?: string;
  /** Only records of sessions from this platform (claude-code, vscode, vscode-agent, copilot-cli, codex, gemini-cli, …). */
  platform?: string;
  /** Record kinds to search; observation types or concepts or a file restrict this to observations. */
  kinds: SearchKind[];
  /** Observation types (any of). */
  types?: string[];
  /** Concepts (any of). */
  concepts?: string[];
  /** Substring of a read or modified file path. */
  file?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
}

export interface SearchRequest {
  query: string;
  mode: SearchMode;
  filters: SearchFilters;
  limit: number;
  offset: number;
}

export const ALL_KINDS: readonly SearchKind[] = ['observation', 'summary', 'prompt'];
const KIND_ALIASES: Record<string, SearchKind> = {
  observation: 'observation',
  observations: 'observation',
  summary: 'summary',
  summaries: 'summary',
  session: 'summary',
  sessions: 'summary',
  prompt: 'prompt',
  prompts: 'prompt',
};
const MODES: readonly SearchMode[] = ['keyword', 'semantic', 'hybrid'];
const MAX_LIMIT = 500;
const MAX_OFFSET = 100_000;

type Query = (name: string) => string | undefined;

export function parseSearchRequest(q: Query): SearchRequest {
  const query = q('query') ?? q('q') ?? '';
  if (query.length > 2000) throw new BadRequest(`query 'query' is longer than 2000 characters`);
  const modeRaw = q('mode') || 'hybrid';
  if (!(MODES as readonly string[]).includes(modeRaw)) throw new BadRequest(`query 'mode' must be one of ${MODES.join(', ')}`);
  const limit = intParam(q('limit'), 'limit', 20, 1, MAX_LIMIT);
  const offset = intParam(q('offset'), 'offset', 0, 0, MAX_OFFSET);
  return { query, mode: modeRaw as SearchMode, filters: parseFilters(q), limit, offset };
}

function parseFilters(q: Query): SearchFilters {
  const project = optProject(q('project'));
  let kinds: SearchKind[] = [...ALL_KINDS];
  const kindRaw = list(q('kind'), 'kind', 3);
  const types: string[] = [];
  // claude-mem compatibility: type=observations|sessions|prompts selects record kinds.
  const typeRaw = list(q('type') ?? q('obs_type'), 'type', 20);
  const kindSet = new Set<SearchKind>();
  for (const k of kindRaw ?? []) {
    const kind = KIND_ALIASES[k];
    if (!kind) throw new BadRequest(`query 'kind' must list observation, summary or prompt; got "${k}"`);
    kindSet.add(kind);
  }
  for (const t of typeRaw ?? []) {
    if (KIND_ALIASES[t]) kindSet.add(KIND_ALIASES[t]);
    else if ((OBSERVATION_TYPES as readonly string[]).includes(t) || /^[a-z][a-z0-9_-]{0,39}$/.test(t)) types.push(t);
    else throw new BadRequest(`query 'type' has an invalid value "${t}"; observation types are ${OBSERVATION_TYPES.join(', ')}`);
  }
  if (kindSet.size > 0) kinds = ALL_KINDS.filter((k) => kindSet.has(k));
  const concepts = list(q('concepts') ?? q('concept'), 'concepts', 20);
  const file = q('file') || undefined;
  if (file !== undefined && (file.length > 4096 || /[\u0000-\u001f]/.test(file))) throw new BadRequest(`query 'file' must be a path of at most 4096 characters`);
  if (types.length > 0 || (concepts && concepts.length > 0) || file) kinds = kinds.filter((k) => k === 'observation');
  if (kinds.length === 0) throw new BadRequest(`filters 'type', 'concepts' and 'file' apply to observations only, but 'kind' excludes observations`);
  const platform = q('platform') || undefined;
  if (platform !== undefined && !/^[a-z][a-z0-9_-]{0,39}$/.test(platform)) throw new BadRequest(`query 'platform' must be a platform id such as claude-code, vscode or vscode-agent; got "${platform.slice(0, 60)}"`);
  const from = parseTime(q('dateStart'), 'dateStart', false);
  const to = parseTime(q('dateEnd'), 'dateEnd', true);
  if (from !== undefined && to !== undefined && from >= to) throw new BadRequest(`'dateStart' must be before 'dateEnd'`);
  return {
    project,
    ...(platform !== undefined ? { platform } : {}),
    kinds,
    types: types.length > 0 ? types : undefined,
    concepts: concepts && concepts.length > 0 ? concepts : undefined,
    file,
    from,
    to,
  };
}

export function optProject(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > 256 || /[\u0000-\u001f]/.test(raw)) throw new BadRequest(`query 'project' must be a name of at most 256 printable characters`);
  return raw;
}

function list(raw: string | undefined, name: string, max: number): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length > max) throw new BadRequest(`query '${name}' lists more than ${max} values`);
  for (const i of items) if (i.length > 100 || /[\u0000-\u001f]/.test(i)) throw new BadRequest(`query '${name}' has an invalid value`);
  return items.map((s) => s.toLowerCase());
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A time given as YYYY-MM-DD (local midnight; as an end it means the end of that day), an ISO
 * time, or epoch milliseconds. Returns epoch ms.
 */
export function parseTime(raw: string | undefined, name: string, isEnd: boolean): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = raw.trim();
  let t: number;
  const d = DATE_ONLY.exec(s);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const date = new Date(y, m - 1, day + (isEnd ? 1 : 0));
    if (m < 1 || m > 12 || day < 1 || day > 31 || new Date(y, m - 1, day).getDate() !== day) throw new BadRequest(`query '${name}' is not a valid date: "${raw}"`);
    t = date.getTime();
  } else if (ISO.test(s)) {
    t = Date.parse(s) + (isEnd ? 1 : 0);
  } else if (/^\d{10,15}$/.test(s)) {
    t = Number(s) + (isEnd ? 1 : 0);
  } else {
    throw new BadRequest(`query '${name}' must be YYYY-MM-DD, an ISO time or epoch milliseconds; got "${raw.slice(0, 40)}"`);
  }
  if (!Number.isFinite(t)) throw new BadRequest(`query '${name}' is not a valid time: "${raw.slice(0, 40)}"`);
  return t;
}
