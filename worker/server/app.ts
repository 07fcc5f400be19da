// The hono app: guards, body caps, one file per route group, JSON errors everywhere.
import { Hono } from 'hono';
import type { AppContext } from './context';
import { guard } from './guard';
import { errorResponse, setBodyCap } from './http';
import { forgetProject, observationRoutes } from './routes/observations';
import { dotProjectName, isPlainPath } from '../../common/requestPath';
import type { IncomingMessage } from 'node:http';
import { observeRoute } from './routes/observe';
import { sessionRoutes } from './routes/sessions';
import { statusRoutes } from './routes/status';
import { streamRoutes } from './routes/stream';
import { transferRoutes } from './routes/transfer';

/** Route groups added by later modules (search, context, viewer, compression) register here. */
export type RouteGroup = (app: Hono, ctx: AppContext) => void;

/** The model bridge's long poll (routes/agent.ts): it waits for model calls by design. */
export const LONG_POLL = '/api/agent/jobs';

export function createApp(ctx: AppContext, extraRoutes: RouteGroup[] = []): Hono {
  const app = new Hono();
  const { maxBodyBytes, maxImportBytes } = ctx.config.settings;

  // The path as the client sent it (the spool checks its own, common/spool.ts): one the URL parser
  // would rewrite ("/api/%2e%2e/…", "/api/..\\") is refused before it can reach another route.
  app.use('*', async (c, next) => {
    const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
    if (raw !== undefined && !isPlainPath(raw) && dotProjectName(c.req.method, raw) === undefined) {
      return c.json({ error: 'request path is not plain: no dot segments ("..", "%2e%2e"), backslashes or absolute URLs' }, 400);
    }
    return next();
  });
  app.use('*', guard({ token: ctx.token, port: ctx.port, extraHosts: ctx.config.settings.allowRemoteBind ? [ctx.config.host] : [] }));
  // Forgetting a project named "." or ".." (refused at creation now, kept from before): its name is a
  // dot segment, which no route pattern can match, so it is taken from the path as sent.
  app.use('*', async (c, next) => {
    const raw = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.url;
    const name = raw === undefined ? undefined : dotProjectName(c.req.method, raw);
    return name === undefined ? next() : forgetProject(c, ctx, name);
  });
  app.use('*', async (c, next) => {
    // The model bridge's long poll waits for work by design: it holds nothing back (lull.ts).
    const ended = c.req.path === LONG_POLL ? undefined : ctx.lull?.request();
    try {
      await next();
    } finally {
      ended?.();
    }
  });
  app.use('*', async (c, next) => {
    if (c.req.path !== '/api/health') ctx.touch();
    const max = c.req.path === '/api/import' ? maxImportBytes : maxBodyBytes;
    // A declared length over the cap is refused before reading; bodyText() caps the rest.
    if (Number(c.req.header('content-length') ?? 0) > max) return c.json({ error: `request body is larger than ${max} bytes` }, 413);
    setBodyCap(c, max);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    // The compression queue waits while writes (hook posts) are being answered.
    ctx.processor.writeStarted();
    try {
      return await next();
    } finally {
      ctx.processor.writeEnded();
    }
  });

  statusRoutes(app, ctx);
  sessionRoutes(app, ctx);
  observeRoute(app, ctx);
  observationRoutes(app, ctx);
  transferRoutes(app, ctx);
  streamRoutes(app, ctx);
  for (const group of extraRoutes) group(app, ctx);

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((e, c) => errorResponse(c, e, ctx.log));
  return app;
}
