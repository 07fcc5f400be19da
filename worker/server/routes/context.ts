// GET /api/context/inject?project=X: the markdown a new session starts with (see worker/context/).
// POST the same with a freshness check as its body (POST /api/freshness/check's): the check is
// applied first, so a hook that checked the work tree gets its context in one round trip.
// Registered in worker/server/routes/index.ts.
import type { Context, Hono } from 'hono';
import { buildContext } from '../../context/builder';
import { branchView, freshnessSettings } from '../../freshness/view';
import { contextOptions } from '../../context/options';
import { BadRequest, type ContextInjectResponse } from '../../../common/contract';
import { optProject } from '../../search/params';
import { teamService } from '../../team/service';
import type { AppContext } from '../context';
import { applyBodyCheck } from './freshness';

export function contextRoutes(app: Hono, ctx: AppContext): void {
  app.get('/api/context/inject', (c) => inject(c, ctx));

  app.post('/api/context/inject', async (c) => {
    await applyBodyCheck(c, ctx);
    return inject(c, ctx);
  });
}

/** The context for the query's project and view (the branch a check at use sent). */
function inject(c: Context, ctx: AppContext): Response {
  const project = optProject(c.req.query('project'));
  if (project === undefined) throw new BadRequest(`query 'project' is required`);
  const format = c.req.query('format') ?? 'markdown';
  if (format !== 'markdown' && format !== 'json') throw new BadRequest(`query 'format' must be markdown or json`);
  const opts = contextOptions(ctx.search.settings.context, (name) => c.req.query(name));
  if (!teamService({ store: ctx.store, events: ctx.events, log: ctx.log, dataDir: ctx.config.dataDir }).settings.injectTeammates) opts.excludeTeammates = true;
  const fs = freshnessSettings(ctx);
  const fresh = fs.enabled ? { view: branchView(ctx.store, project, (n) => c.req.query(n)), settings: fs } : undefined;
  const r = buildContext(ctx.store, project, opts, Date.now(), fresh);
  if (format === 'json') {
    const body: ContextInjectResponse = { project, markdown: r.markdown, tokens: r.tokens, budget: opts.tokenBudget, observations: r.observations, summaries: r.summaries, truncated: r.truncated, ...(r.stale !== undefined ? { stale: r.stale } : {}) };
    return c.json(body);
  }
  return c.body(r.markdown, 200, { 'content-type': 'text/markdown; charset=utf-8' });
}
