// Reading and curating stored memory.
import type { Context, Hono } from 'hono';
import { BadRequest, intParam, type DeletedResponse, type Observation, type ObservationListResponse, type ProjectDeletedResponse, type ProjectsResponse, type SaveMemoryResponse } from '../../../common/contract';
import { deleteObservation, listObservations, observationById, toObservation } from '../../store/repos/observations';
import { deleteSessionsWhere } from '../../store/repos/sessions';
import { annotateObservations } from '../../freshness/search';
import { branchView, freshnessSettings } from '../../freshness/view';
import { labelObservations } from '../../team/labels';
import { removeShare } from '../../team/local';
import type { AppContext } from '../context';
import { jsonBody, positiveId } from '../http';

export function observationRoutes(app: Hono, ctx: AppContext): void {
  app.get('/api/observations', (c) => {
    const limit = intParam(c.req.query('limit'), 'limit', 50, 1, 1000);
    const offset = intParam(c.req.query('offset'), 'offset', 0, 0, 1e9);
    const project = c.req.query('project') || undefined;
    // Quiet notes (noise: worker/compression/triage.ts) are left out unless ?quiet=include.
    const quiet = c.req.query('quiet') ?? 'hide';
    if (quiet !== 'hide' && quiet !== 'include') throw new BadRequest('quiet must be "hide" or "include"');
    const items = listObservations(ctx.store, project, limit, offset, quiet === 'include').map(toObservation);
    const view = branchView(ctx.store, project, (n) => c.req.query(n));
    return c.json({ items: labelObservations(ctx.store, annotateObservations(ctx.store, items, view, freshnessSettings(ctx))), limit, offset } satisfies ObservationListResponse);
  });

  app.get('/api/observation/:id', (c) => {
    const row = observationById(ctx.store, positiveId(c.req.param('id')));
    if (!row) return c.json({ error: 'no such observation' }, 404);
    const view = branchView(ctx.store, row.project, (n) => c.req.query(n));
    return c.json(labelObservations(ctx.store, annotateObservations(ctx.store, [toObservation(row)], view, freshnessSettings(ctx)))[0] satisfies Observation);
  });

  app.delete('/api/observation/:id', async (c) => {
    const id = positiveId(c.req.param('id'));
    const row = observationById(ctx.store, id);
    if (!row) return c.json({ error: 'no such observation' }, 404);
    await ctx.store.write((tx) => deleteObservation(tx, id));
    ctx.events.emit('observation_deleted', { id, project: row.project });
    return c.json({ deleted: id } satisfies DeletedResponse);
  });

  app.get('/api/projects', (c) => {
    const rows = ctx.store.all<{ name: string; sessions: number; observations: number; last: number }>(
      `SELECT s.project AS name, count(DISTINCT s.id) AS sessions,
              (SELECT count(*) FROM observations o WHERE o.project = s.project) AS observations,
              max(s.updated_at) AS last
         FROM sessions s GROUP BY s.project ORDER BY last DESC`,
    );
    return c.json({ projects: rows.map((r) => ({ name: r.name, sessions: r.sessions, observations: r.observations, lastActivity: new Date(r.last).toISOString() })) } satisfies ProjectsResponse);
  });

  app.delete('/api/projects/:name', (c) => forgetProject(c, ctx, c.req.param('name'))); // hono has already decoded it

  app.delete('/api/session/:id', async (c) => {
    const id = positiveId(c.req.param('id'));
    const row = ctx.store.get<{ project: string }>('SELECT project FROM sessions WHERE id = ?', [id]);
    if (!row) return c.json({ error: 'no such session' }, 404);
    await ctx.store.write((tx) => deleteSessionsWhere(tx, 'id = ?', [id]));
    ctx.events.emit('session_forgotten', { project: row.project, sessionDbId: id });
    return c.json({ deleted: id } satisfies DeletedResponse);
  });

  app.post('/api/memory/save', async (c) => {
    const r: SaveMemoryResponse = await ctx.lifecycle.saveMemory(await jsonBody(c));
    return c.json(r, r.duplicate ? 200 : 201);
  });
}

/** DELETE /api/projects/:name; also reached for a name that is a dot segment (app.ts). */
export async function forgetProject(c: Context, ctx: AppContext, name: string): Promise<Response> {
  if (!name || name.length > 256) throw new BadRequest('project name must be 1 to 256 characters');
  const exists = ctx.store.get('SELECT 1 AS x FROM sessions WHERE project = ? LIMIT 1', [name]);
  if (!exists) return c.json({ error: 'no such project' }, 404);
  // A shared project is forgotten here only: it stops being shared first, so no tombstone is
  // queued for the hub (forgetting it for the team is POST /api/team/forget, a maintainer's right).
  const sessions = await ctx.store.write((tx) => {
    removeShare(tx, name);
    return deleteSessionsWhere(tx, 'project = ?', [name]);
  });
  ctx.events.emit('project_deleted', { project: name, sessions });
  return c.json({ deleted: name, sessions } satisfies ProjectDeletedResponse);
}
