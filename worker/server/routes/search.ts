// Search routes, progressive disclosure in three layers: compact ranked rows (search, by-file),
// what happened around a point (timeline), full records for chosen ids (observations/batch); by-file
// also as a POST that applies a freshness check of the file first (the file-context hook's one request).
// Plus the vector index's status and a reindex. Registered in worker/server/routes/index.ts.
import type { Context, Hono } from 'hono';
import { BadRequest, intParam, parseBatchRequest, parseReindexRequest, type ObservationsBatchResponse } from '../../../common/contract';
import { annotateObservations, annotateRows } from '../../freshness/search';
import { branchView, freshnessSettings } from '../../freshness/view';
import { fileHistory } from '../../search/byFile';
import { canAsk } from '../../compression/model';
import { modelRerank } from '../../search/modelRerank';
import { optProject, parseSearchRequest } from '../../search/params';
import { SearchStages } from '../../search/searcher';
import { GCProfiler } from 'node:v8';
import { RERANK_TOP } from '../../../common/rerank';
import { NotFound, timeline } from '../../search/timeline';
import { toObservation, type ObservationRow } from '../../store/repos/observations';
import { labelObservations, labelTeamItems } from '../../team/labels';
import type { AppContext } from '../context';
import { applyBodyCheck } from './freshness';
import { bodyText, jsonBody } from '../http';

export function searchRoutes(app: Hono, ctx: AppContext): void {
  const service = () => ctx.search;

  app.get('/api/search', async (c) => {
    // CLAUDE_MEM_SEARCH_STAGES=1: where the time went, as a Server-Timing header (searcher.ts).
    const stages = SearchStages.enabled ? new SearchStages() : undefined;
    const gc = stages ? new GCProfiler() : undefined;
    gc?.start();
    const chunkReads = stages ? (ctx.store.pageCache?.reads ?? 0) : 0;
    // The query string parsed once: each c.req.query(name) parses all of it again when it holds
    // an escape (a '+' or '%', as every query of two words does), and a search reads about 15 names.
    const params = c.req.query();
    const param = (name: string): string | undefined => params[name];
    const req = parseSearchRequest(param);
    const rerank = param('rerank');
    if (rerank !== undefined && rerank !== 'model' && rerank !== 'off') throw new BadRequest('rerank must be "model" or "off"');
    // The model reorders the first page only: it reads the best RERANK_TOP rows, the page is cut after.
    const byModel = rerank === 'model' && req.offset === 0 && req.query.trim() !== '';
    stages?.mark('params');
    const res = await service().searcher.search(byModel ? { ...req, limit: Math.max(req.limit, RERANK_TOP) } : req, Date.now(), stages);
    if (byModel) {
      const r = await modelRerank(req.query, res.items, canAsk(ctx.compressor) ? ctx.compressor : undefined, { log: ctx.log });
      res.hasMore = res.hasMore || r.rows.length > req.limit;
      res.items = r.rows.slice(0, req.limit);
      res.limit = req.limit;
      res.rerank = r.reranked ? 'model' : (r.why ?? 'plain');
    }
    // Freshness: the stale mark and the branch on observation rows (docs/freshness.md).
    const fs = freshnessSettings(ctx);
    if (fs.enabled) res.items = annotateRows(ctx.store, res.items, branchView(ctx.store, req.filters.project, param), fs);
    stages?.mark('freshness');
    const body = { ...res, items: labelTeamItems(ctx.store, res.items) };
    stages?.mark('labels');
    // As bytes: written as they are (a string reply is measured, then encoded as it is written).
    const bytes = Buffer.from(JSON.stringify(body));
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (stages) {
      stages.mark('json');
      const collected = gc?.stop()?.statistics ?? [];
      // The GC pauses inside the request (ms, count) and the page cache's chunks read from disk for it.
      stages.marks.push(['gc', collected.reduce((n, g) => n + g.cost / 1000, 0)], ['gcs', collected.length], ['chunkReads', (ctx.store.pageCache?.reads ?? 0) - chunkReads]);
      headers['server-timing'] = stages.header();
    }
    return c.body(bytes, 200, headers);
  });

  app.get('/api/search/by-file', (c) => byFile(c, ctx));

  // The same with a freshness check of the file as its body (POST /api/freshness/check's): the check
  // is applied first, so the file-context hook gets its verdicts and the history in one round trip.
  app.post('/api/search/by-file', async (c) => {
    await applyBodyCheck(c, ctx);
    return byFile(c, ctx);
  });

  app.get('/api/search/status', (c) => c.json(service().status()));

  app.post('/api/search/reindex', async (c) => {
    const text = await bodyText(c);
    const req = parseReindexRequest(text.trim() === '' ? undefined : jsonFrom(text));
    return c.json(await service().reindex(req), 202);
  });

  app.get('/api/timeline', (c) => {
    const q = (name: string, alt: string) => c.req.query(name) ?? c.req.query(alt);
    const before = intParam(q('depth_before', 'depthBefore'), 'depth_before', 10, 0, 100);
    const after = intParam(q('depth_after', 'depthAfter'), 'depth_after', 10, 0, 100);
    try {
      const t = timeline(ctx.store, c.req.query('anchor'), { before, after, project: optProject(c.req.query('project')) });
      return c.json({ ...t, items: labelTeamItems(ctx.store, t.items) });
    } catch (e) {
      if (e instanceof NotFound) return c.json({ error: e.message }, 404);
      throw e;
    }
  });

  app.post('/api/observations/batch', async (c) => {
    const { ids, project } = parseBatchRequest(await jsonBody(c));
    const rows = ids.length
      ? ctx.store.all<ObservationRow>('SELECT * FROM observations WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)])
      : [];
    const byId = new Map(rows.filter((r) => project === undefined || r.project === project).map((r) => [r.id, r]));
    const seen = new Set<number>();
    const items = [];
    const missing: number[] = [];
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      const r = byId.get(id);
      if (r) items.push(toObservation(r));
      else missing.push(id);
    }
    if (items.length) annotateObservations(ctx.store, items, branchView(ctx.store, project ?? items[0].project, (n) => c.req.query(n)), freshnessSettings(ctx));
    return c.json({ items: labelObservations(ctx.store, items), missing } satisfies ObservationsBatchResponse);
  });
}

/** A file's history (GET /api/search/by-file), with the marks of the query's branch. */
function byFile(c: Context, ctx: AppContext): Response {
  const limit = intParam(c.req.query('limit'), 'limit', 50, 1, 500);
  const offset = intParam(c.req.query('offset'), 'offset', 0, 0, 100_000);
  const project = optProject(c.req.query('project'));
  const res = fileHistory(ctx.store, c.req.query('path') ?? c.req.query('file'), { project, limit, offset });
  // Freshness: the stale mark and the branch, as on search rows (the file-context hook shows them).
  const fs = freshnessSettings(ctx);
  if (fs.enabled) res.items = annotateRows(ctx.store, res.items, branchView(ctx.store, project, (n) => c.req.query(n)), fs);
  return c.json(res);
}

function jsonFrom(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadRequest('malformed JSON body');
  }
}
