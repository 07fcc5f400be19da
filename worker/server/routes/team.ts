// Team memory (docs/team.md): status, share/unshare a project, sync now, the connection string from
// the extension (held in memory only), and the shared records of a project. Registered in
// worker/server/routes/index.ts.
import type { Hono } from 'hono';
import { asObject, BadRequest, optId, optString, reqId } from '../../../common/contract';
import { scrub } from '../../../common/node/teamConnection';
import { teamService } from '../../team/service';
import type { AppContext } from '../context';
import { jsonBody } from '../http';

export function teamRoutes(app: Hono, ctx: AppContext): void {
  const team = () => teamService({ store: ctx.store, events: ctx.events, log: ctx.log, dataDir: ctx.config.dataDir });
  /** A hub error is the hub's (502), never a 500 of ours, and never shows the connection string. */
  const hubCall = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof BadRequest) throw e;
      throw new BadRequest(`team hub: ${scrub((e as Error).message, undefined)}`, 502);
    }
  };

  app.get('/api/team/status', (c) => c.json(team().status()));

  app.post('/api/team/share', async (c) => {
    const o = asObject(await jsonBody(c));
    const project = reqId(o, 'project');
    if (o.prompts !== undefined && typeof o.prompts !== 'boolean') throw new BadRequest(`field 'prompts' must be true or false`);
    const r = await hubCall(() => team().share(project, optId(o, 'team'), o.prompts === true));
    return c.json({ ...r, status: team().status() });
  });

  app.post('/api/team/unshare', async (c) => {
    const o = asObject(await jsonBody(c));
    const r = await team().unshare(reqId(o, 'project'));
    return r.unshared ? c.json(r) : c.json({ error: `project "${r.project}" is not shared` }, 404);
  });

  /**
   * Forgets a project for the whole team (a maintainer's right, checked by the hub). Explicit only:
   * `confirm` must repeat the project's name. Forgetting a project locally (DELETE /api/projects/:name)
   * never touches the hub.
   */
  app.post('/api/team/forget', async (c) => {
    const o = asObject(await jsonBody(c));
    const project = reqId(o, 'project');
    if (o.confirm !== project) throw new BadRequest(`forgetting "${project}" for the whole team erases every teammate's records of it; send "confirm": "${project}" to do it`);
    return c.json(await hubCall(() => team().forgetForTeam(project, optId(o, 'team'))));
  });

  app.post('/api/team/sync', async (c) => c.json(await hubCall(() => team().syncNow())));

  /** The extension hands over the string from VS Code's SecretStorage; { url: null } forgets it; { reload: true } re-reads env/file. */
  app.post('/api/team/connection', async (c) => {
    const o = asObject(await jsonBody(c));
    if (o.reload === true) await team().reloadConnection();
    else if (o.url === null) await team().setExtensionUrl(undefined);
    else {
      const url = optString(o, 'url', { max: 4096 });
      if (!url) throw new BadRequest(`send { "url": "postgres://..." }, { "url": null } or { "reload": true }`);
      await team().setExtensionUrl(url);
    }
    return c.json(team().status());
  });

  /** Every shared record of a project: global id, origin, author, machine (what converged, for checks and the CLI). */
  app.get('/api/team/records', (c) => {
    const project = c.req.query('project');
    if (!project) throw new BadRequest(`query 'project' is required`);
    const rows = ctx.store.all<{ kind: string; localId: number; gid: string; origin: string; author: string | null; machine: string | null; title: string | null }>(
      `SELECT r.kind, r.local_id AS localId, r.gid, r.origin, r.author, r.machine,
              CASE r.kind WHEN 'observation' THEN (SELECT title FROM observations WHERE id = r.local_id)
                          WHEN 'prompt' THEN (SELECT substr(text, 1, 200) FROM user_prompts WHERE id = r.local_id)
                          ELSE (SELECT request FROM session_summaries WHERE id = r.local_id) END AS title
         FROM team_records r WHERE r.project = ? ORDER BY r.gid`,
      [project],
    );
    return c.json({ project, items: rows });
  });

  if (process.env.CLAUDE_MEM_TEST_HOOKS === '1') {
    app.post('/api/team/test/clock', async (c) => {
      const o = asObject(await jsonBody(c));
      const ms = Number(o.advanceMs);
      if (!Number.isFinite(ms) || ms < 0) throw new BadRequest('advanceMs must be a non-negative number');
      team().clock.advance(ms);
      return c.json({ now: new Date(team().clock.now()).toISOString() });
    });
  }
}
