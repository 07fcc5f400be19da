// The MCP tools over the worker's HTTP routes, without the SDK: each takes parsed arguments and
// returns text for the model. Progressive disclosure: search_memory (index rows) -> get_memory_timeline
// (what happened around one) -> get_memories (full records, by id). Names as in the glossary
// (docs/architecture.md), shared with the VS Code language-model tools.
import { projectFromCwd } from '../common/node/project';
import { NetworkError, query, request, type ClientTarget, type Reply } from './client';
import { parseObservationsBatch, parseSaveMemoryResponse, parseSearchResponse, parseTimelineResponse, recordRef, type SearchParams } from '../common/contract';
import { fullObservation, indexLine } from './format';
import { verifyOthers, verifyProject, viewParams, type Send, type UseView } from './freshnessCheck';
import { ensureWorker } from './startStop';

export interface ToolText {
  text: string;
  isError?: boolean;
}

export const DESCRIPTIONS = {
  search_memory:
    'Search the persistent memory of past coding sessions (observations, session summaries, prompts). ' +
    'Step 1 of 3: returns a compact index (id, time, type, title, estimated tokens to read), not full records. ' +
    'Then use `get_memory_timeline` with an id as anchor to see what happened around it, and `get_memories` with the ids ' +
    'worth reading in full. Searching first and fetching only what matters keeps the context small. ' +
    'Defaults to the current project; project "*" searches every project.',
  get_memory_timeline:
    'Step 2 of 3: what happened around one point in the memory: observations, prompts and summaries before and after an ' +
    'anchor. The anchor is an observation id from `search_memory` (e.g. 123), a summary id (S45) or an ISO time. ' +
    'Then fetch the interesting ids with `get_memories`.',
  get_memories:
    'Step 3 of 3: full records (narrative, facts, concepts, files) for observation ids found with `search_memory` or `get_memory_timeline`. ' +
    'Fetch only the ids you need; each costs a few hundred tokens.',
  save_memory:
    'Save a note to the persistent memory (a decision, a finding, something to remember next session). ' +
    'It becomes searchable with `search_memory`. Defaults to the current project.',
} as const;

/** The 0.1 MCP tool names, still served for one release (same input, same result). */
export const MCP_ALIASES = {
  search: 'search_memory',
  timeline: 'get_memory_timeline',
  get_observations: 'get_memories',
} as const;

export interface ToolDeps {
  target: ClientTarget;
  cwd: string;
  /** How long to wait for a worker this server had to start. */
  startMs?: number;
}

/** Generous: the first semantic search after a worker start loads the embedding model. */
const TOOL_TIMEOUT_MS = 30_000;

async function call<T = unknown>(d: ToolDeps, method: string, urlPath: string, body?: unknown): Promise<Reply<T>> {
  try {
    return await request<T>(d.target, method, urlPath, body, TOOL_TIMEOUT_MS);
  } catch (e) {
    if (!(e instanceof NetworkError) || e.code !== 'ECONNREFUSED') throw e;
    if (process.env.CLAUDE_MEM_NO_AUTOSTART === '1') throw new Error(`the claude-mem worker is not running at ${d.target.host}:${d.target.port} (start it with: claude-mem start)`);
    if (!(await ensureWorker(d.target, d.startMs ?? 15_000))) throw new Error(`the claude-mem worker is not running at ${d.target.host}:${d.target.port} and did not start (see ${d.target.dataDir}/logs)`);
    return request<T>(d.target, method, urlPath, body, TOOL_TIMEOUT_MS);
  }
}

/**
 * The check at the moment of use: the project's cited files against the work tree at cwd, before
 * its memories are shown (a project other than cwd's is not checked: its files are elsewhere).
 */
async function verified(d: ToolDeps, project: string | undefined): Promise<UseView | undefined> {
  if (!project || project !== projectFromCwd(d.cwd)) return undefined;
  try {
    return await verifyProject(async (method, p, body) => {
      const r = await call(d, method, p, body);
      return r.status === 200 ? r.body : undefined;
    }, project, d.cwd);
  } catch {
    return undefined; // memories are still shown, with the marks the worker has
  }
}

/**
 * The check at use for results from several projects: the caller's folder's project here, every
 * other one in the folder it was last worked in (unverified when that folder is unknown here).
 */
async function checkResultProjects(d: ToolDeps, projects: string[]): Promise<{ checked: boolean; unverified: Set<string> }> {
  const all = new Set(projects);
  if (all.size === 0) return { checked: false, unverified: new Set() };
  const own = projectFromCwd(d.cwd);
  const send: Send = async (method, p, body) => {
    const r = await call(d, method, p, body);
    return r.status === 200 ? r.body : undefined;
  };
  try {
    if (all.has(own)) await verifyProject(send, own, d.cwd);
    return { checked: true, unverified: await verifyOthers(send, all, own) };
  } catch {
    return { checked: false, unverified: new Set() }; // shown with the marks the worker has
  }
}

function projectParam(d: ToolDeps, project: string | undefined): string | undefined {
  if (project === '*') return undefined;
  return project && project.trim() ? project.trim() : projectFromCwd(d.cwd);
}

function failure(what: string, r: Reply): ToolText {
  const msg = r.body && typeof r.body === 'object' && 'error' in r.body ? String((r.body as { error: unknown }).error) : JSON.stringify(r.body);
  return { text: `${what} failed (${r.status}): ${msg}`, isError: true };
}

/** The search tool's arguments: the contract's GET /api/search parameters an agent may set, with `query` required (project "*" searches every project). */
export type SearchArgs = Pick<SearchParams, 'project' | 'type' | 'concepts' | 'file' | 'dateStart' | 'dateEnd' | 'limit' | 'offset' | 'mode'> & { query: string };

/** The worker's compression model, when one is connected, reorders the best rows (rerank=model; plain order otherwise). */
export async function searchTool(d: ToolDeps, a: SearchArgs): Promise<ToolText> {
  const project = projectParam(d, a.project);
  const view = await verified(d, project);
  const url = (v: UseView | undefined) =>
    `/api/search${query({ query: a.query, project, type: a.type, concepts: a.concepts, file: a.file, dateStart: a.dateStart, dateEnd: a.dateEnd, limit: a.limit ?? 20, offset: a.offset, mode: a.mode, rerank: 'model', ...viewParams(v) })}`;
  let r = await call(d, 'GET', url(view));
  if (r.status !== 200) return failure('search', r);
  let body = parseSearchResponse(r.body);
  // Every project: each project the results come from is checked in its own folder, then read again.
  let unverified: Set<string> | undefined;
  if (!project && body.items.length) {
    const checked = await checkResultProjects(d, body.items.filter((x) => x.kind === 'observation').map((x) => x.project));
    unverified = checked.unverified;
    if (checked.checked) {
      r = await call(d, 'GET', url(undefined));
      if (r.status !== 200) return failure('search', r);
      body = parseSearchResponse(r.body);
    }
  }
  const rows = body.items;
  const notice = body.notice ? `Note: ${body.notice}\n` : '';
  if (rows.length === 0) return { text: `${notice}No memory matches "${a.query}"${project ? ` in project ${project} (project "*" searches all)` : ''}.` };
  return {
    text:
      `${notice}${rows.length} result(s) for "${a.query}"${project ? ` in ${project}` : ''}:\n` +
      rows.map((x) => indexLine(x, unverified)).join('\n') +
      '\n\nNext: timeline around one with get_memory_timeline(anchor=<id>), full records with get_memories(ids=[...]).',
  };
}

export interface TimelineArgs {
  anchor: string;
  depth_before?: number;
  depth_after?: number;
  project?: string;
}

export async function timelineTool(d: ToolDeps, a: TimelineArgs): Promise<ToolText> {
  const anchor = String(a.anchor).replace(/^#/, '');
  const project = a.project === undefined ? undefined : projectParam(d, a.project);
  const r = await call(d, 'GET', `/api/timeline${query({ anchor, depth_before: a.depth_before, depth_after: a.depth_after, project })}`);
  if (r.status !== 200) return failure('timeline', r);
  const rows = parseTimelineResponse(r.body).items;
  if (rows.length === 0) return { text: `Nothing recorded around ${anchor}.` };
  return { text: `Around ${anchor}:\n${rows.map((x) => indexLine(x)).join('\n')}\n\nNext: get_memories(ids=[...]) for full records.` };
}

export async function getObservationsTool(d: ToolDeps, a: { ids: Array<number | string> }): Promise<ToolText> {
  const ids = [...new Set(a.ids.map((x) => Number(String(x).replace(/^#/, ''))))];
  if (ids.length === 0 || !ids.every((n) => Number.isSafeInteger(n) && n > 0)) return { text: 'ids must be positive observation ids, e.g. [12, 15]', isError: true };
  const own = projectFromCwd(d.cwd);
  const view = await verified(d, own);
  let r = await call(d, 'POST', `/api/observations/batch${query(viewParams(view))}`, { ids });
  if (r.status !== 200) return failure('get_memories', r);
  let { items: rows, missing } = parseObservationsBatch(r.body);
  if (rows.length === 0) return { text: `No observations with ids ${ids.join(', ')}.` };
  // Memories of other projects: checked in their own folders, then read again.
  const checked = await checkResultProjects(d, rows.map((o) => o.project).filter((p) => p !== own));
  if (checked.checked) {
    r = await call(d, 'POST', `/api/observations/batch${query(viewParams(view))}`, { ids });
    if (r.status !== 200) return failure('get_memories', r);
    ({ items: rows, missing } = parseObservationsBatch(r.body));
  }
  return { text: rows.map((o) => fullObservation(o, checked.unverified)).join('\n\n---\n\n') + (missing.length ? `\n\nNot found: ${missing.join(', ')}` : '') };
}

export async function saveMemoryTool(d: ToolDeps, a: { text: string; title?: string; project?: string }): Promise<ToolText> {
  const project = a.project && a.project.trim() && a.project !== '*' ? a.project.trim() : projectFromCwd(d.cwd);
  const r = await call(d, 'POST', '/api/memory/save', { text: a.text, title: a.title, project });
  if (r.status !== 200 && r.status !== 201) return failure('save_memory', r);
  const saved = parseSaveMemoryResponse(r.body);
  return { text: saved.duplicate ? `Already saved as ${recordRef('observation', saved.id)} in ${project}.` : `Saved as ${recordRef('observation', saved.id)} in ${project}.` };
}
