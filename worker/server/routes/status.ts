// Health, readiness, stats, the queue, and admin actions.
import type { Hono } from 'hono';
import type { HealthResponse, QueueResponse, ReadinessResponse, RetryResponse, StatsResponse } from '../../../common/contract';
import { parseIdList, asObject } from '../../../common/contract';
import { SCHEMA_VERSION } from '../../store/schema';
import { deadJobs, queueCounts, retryDead } from '../../store/repos/queue';
import { VERSION } from '../../version';
import type { AppContext } from '../context';
import { jsonBody } from '../http';
import { isAuthed } from '../guard';
import { dataDirIdentity, identityProof, NONCE_RE } from '../../../common/node/identity';

/** One sentence for people when storage is not ok: what is wrong and what to do; null when it is ok. */
function readinessMessage(ctx: AppContext): string | null {
  const { degraded, broken } = ctx.store;
  if (degraded) return degraded;
  if (broken) return `Memory storage is read-only after a write failed (${broken.message}); free disk space or fix the data dir, then restart the worker.`;
  return null;
}

export function statusRoutes(app: Hono, ctx: AppContext): void {
  const dirId = dataDirIdentity(ctx.config.dataDir);
  app.get('/api/health', (c) => {
    // ?nonce= asks the worker to prove, without the client sending the token, that it holds this
    // data dir's token (common/node/identity.ts): clients check it before they send anything else.
    const nonce = c.req.query('nonce');
    if (nonce !== undefined && !NONCE_RE.test(nonce)) return c.json({ error: 'nonce must be 16-128 characters of [A-Za-z0-9_-]' }, 400);
    const q = queueCounts(ctx.store);
    const provider = ctx.compressor.state();
    const body: HealthResponse = {
      status: 'ok',
      service: 'claude-mem-vscode',
      version: VERSION,
      pid: process.pid,
      port: ctx.port(),
      uptimeMs: Date.now() - ctx.startedAt,
      queueDepth: q.pending,
      // Error text (paths, upstream messages) only for a caller with the token.
      provider: isAuthed(c) ? provider : { name: provider.name, state: provider.state },
      ...(nonce !== undefined ? { proof: identityProof(ctx.token, { nonce, port: ctx.port(), dataDir: dirId, pid: process.pid }) } : {}),
    };
    return c.json(body);
  });

  // Not ready whenever acknowledged data is missing (degraded) or writes cannot be made durable
  // (read-only); `message` is one sentence for people, saying what to do.
  app.get('/api/readiness', (c) => {
    const { degraded, broken } = ctx.store;
    const body: ReadinessResponse = {
      ready: !broken && !degraded,
      schemaVersion: SCHEMA_VERSION,
      storage: degraded ? 'degraded' : broken ? `read-only: ${broken.message}` : 'ok',
      message: readinessMessage(ctx),
      recovery: ctx.store.recovery,
      snapshotReplica: ctx.store.replicaAlive,
    };
    return c.json(body);
  });

  app.get('/api/stats', (c) => {
    // The running totals the schema's triggers keep (schema.ts TOTALS_TABLE): no row is read.
    const totals = new Map(ctx.store.all<{ name: string; n: number; input: number; output: number; discovery: number }>('SELECT name, n, input, output, discovery FROM totals').map((r) => [r.name, r]));
    const of = (t: string) => totals.get(t) ?? { n: 0, input: 0, output: 0, discovery: 0 };
    const [obs, sums] = [of('observations'), of('session_summaries')];
    const body: StatsResponse = {
      sessions: of('sessions').n,
      prompts: of('user_prompts').n,
      observations: obs.n,
      summaries: sums.n,
      queue: { ...queueCounts(ctx.store), inFlight: ctx.processor.inFlight.size },
      tokens: { modelInput: obs.input + sums.input, modelOutput: obs.output + sums.output, discovery: obs.discovery },
      storage: { state: ctx.store.degraded ? 'degraded' : ctx.store.broken ? 'read-only' : 'ok', message: readinessMessage(ctx), journalBytes: ctx.store.journalBytes, journalGen: ctx.store.journalGen, lastSnapshot: ctx.store.lastSnapshot ?? null, fdatasync: ctx.store.syncTimes, pageCache: ctx.store.pageCache },
      worker: { pid: process.pid, version: VERSION, uptimeMs: Date.now() - ctx.startedAt, rssBytes: process.memoryUsage().rss, heapUsedBytes: process.memoryUsage().heapUsed, streamClients: ctx.events.clientCount },
    };
    return c.json(body);
  });

  app.get('/api/queue', (c) => {
    const dead = deadJobs(ctx.store, 100).map((j) => ({ id: j.id, kind: j.kind, sessionDbId: j.session_id, attempts: j.attempts, lastError: j.last_error, createdAt: new Date(j.created_at).toISOString() }));
    const body: QueueResponse = { ...queueCounts(ctx.store), inFlight: ctx.processor.inFlight.size, dead };
    return c.json(body);
  });

  app.post('/api/queue/retry', async (c) => {
    const o = asObject(await jsonBody(c));
    const ids = o.ids === undefined || o.ids === 'all' ? 'all' : parseIdList(o.ids);
    const n = await ctx.store.write((tx) => retryDead(tx, ids, Date.now()));
    ctx.processor.kick();
    return c.json({ retried: n } satisfies RetryResponse);
  });

  // Same auth, guards and JSON parsing as a real write, but no store: the baseline for bench/ingest.
  app.post('/api/noop', async (c) => {
    await jsonBody(c);
    return c.json({ ok: true }, 202);
  });

  app.post('/api/admin/snapshot', async (c) => c.json(await ctx.store.snapshot()));

  app.post('/api/admin/shutdown', (c) => {
    setImmediate(() => ctx.shutdown('shutdown requested over HTTP'));
    return c.json({ stopping: true, pid: process.pid });
  });
}
