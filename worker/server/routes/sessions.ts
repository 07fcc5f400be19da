// Hook endpoints: init (UserPromptSubmit), summarize (Stop), complete (SessionEnd); a tool use
// (PostToolUse, POST /api/sessions/observations) is observe.ts's.
import type { Hono } from 'hono';
import { intParam, type CompleteResponse, type InitReply, type QueuedOrSkipped, type SessionListResponse } from '../../../common/contract';
import { listSessions, toSessionInfo } from '../../store/repos/sessions';
import type { AppContext } from '../context';
import { jsonBody } from '../http';

export function sessionRoutes(app: Hono, ctx: AppContext): void {
  app.post('/api/sessions/init', async (c) => c.json((await ctx.lifecycle.init(await jsonBody(c))) satisfies InitReply));
  app.post('/api/sessions/summarize', async (c) => {
    const r: QueuedOrSkipped = await ctx.lifecycle.summarize(await jsonBody(c));
    return c.json(r, 'queued' in r ? 202 : 200);
  });
  app.post('/api/sessions/complete', async (c) => c.json((await ctx.lifecycle.complete(await jsonBody(c))) satisfies CompleteResponse));
  app.get('/api/sessions', (c) => {
    const limit = intParam(c.req.query('limit'), 'limit', 50, 1, 1000);
    const offset = intParam(c.req.query('offset'), 'offset', 0, 0, 1e9);
    const project = c.req.query('project') || undefined;
    return c.json({ items: listSessions(ctx.store, project, limit, offset).map(toSessionInfo), limit, offset } satisfies SessionListResponse);
  });
}
