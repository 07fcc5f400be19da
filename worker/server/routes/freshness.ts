// Freshness routes: stale checks from clients, the memories about a file, a person's confirm or
// retire, and re-verify through the compression model. See docs/freshness.md and docs/api.md.
// Registered in worker/server/routes/index.ts.
import type { Context, Hono } from 'hono';
import { canAsk } from '../../compression/model';
import { parseVerdict, VERIFY_SYSTEM, verifyPrompt } from '../../freshness/verify';
import { parseCheck, parseConfirm, parseRetire, parseVerify } from '../../freshness/parse';
import { applyCheck, citedAnswer, confirm, copyCitations, retire } from '../../freshness/record';
import { memoriesForFile, memoryFreshness } from '../../freshness/state';
import { branchView, freshnessSettings } from '../../freshness/view';
import { contentHash } from '../../hash';
import { BadRequest, intParam, type CitedFilesResponse, type FileMemoriesResponse, type FreshnessCheckRequest, type FreshnessCheckResponse, type VerifyResponse } from '../../../common/contract';
import { insertObservation, observationById, parseList } from '../../store/repos/observations';
import { optProject } from '../../search/params';
import { decidedBy } from '../../team/local';
import type { AppContext } from '../context';
import { incomingBody, positiveId } from '../http';

/** Applies a freshness check and tells panels and editors when a verdict changed. */
async function applyAndAnnounce(ctx: AppContext, check: FreshnessCheckRequest): Promise<FreshnessCheckResponse> {
  const r = await ctx.store.write((tx) => applyCheck(tx, check, Date.now()));
  if (r.stale.length || r.fresh.length || r.moved.length) ctx.events.emit('memory_freshness', { project: check.project, stale: r.stale.length, fresh: r.fresh.length });
  return r;
}

/**
 * For the routes that answer after a check sent as their body (the context, a file's history): a
 * hook that checked the work tree gets its answer in one round trip. The check must be about the
 * query's project.
 */
export async function applyBodyCheck(c: Context, ctx: AppContext): Promise<void> {
  const project = optProject(c.req.query('project'));
  if (project === undefined) throw new BadRequest(`query 'project' is required`);
  const check = parseCheck(await incomingBody(c));
  if (check.project !== project) throw new BadRequest(`the check's project must be the query's project`);
  if (freshnessSettings(ctx).enabled && check.files.length > 0) await applyAndAnnounce(ctx, check);
}

export function freshnessRoutes(app: Hono, ctx: AppContext): void {
  const settings = () => freshnessSettings(ctx);
  ctx.lifecycle.recordCitations = settings().enabled;
  /** Panels and editors showing this memory refresh on it. */
  const decided = (id: number, status: 'confirmed' | 'retired') => ctx.events.emit('memory_freshness', { project: observationById(ctx.store, id)?.project ?? null, id, status });
  const one = (id: number, q: (n: string) => string | undefined = () => undefined) => {
    const row = observationById(ctx.store, id);
    if (!row) return undefined;
    const m = memoryFreshness(ctx.store, [id], branchView(ctx.store, row.project, q), settings())[0];
    const by = m && (m.status === 'retired' || m.status === 'confirmed') ? decidedBy(ctx.store, id) : undefined;
    return m && by ? { ...m, decidedBy: by } : m;
  };

  app.post('/api/freshness/check', async (c) => {
    const req = parseCheck(await incomingBody(c));
    if (!settings().enabled) return c.json({ checked: 0, stale: [], fresh: [], moved: [], disabled: true });
    return c.json(await applyAndAnnounce(ctx, req));
  });

  app.get('/api/freshness/cited', (c) => {
    const project = optProject(c.req.query('project'));
    if (!project) throw new BadRequest(`query 'project' is required`);
    const limit = intParam(c.req.query('limit'), 'limit', 5000, 1, 20_000);
    const { folder, files } = citedAnswer(ctx.store, project, limit);
    return c.json({ project, folder, files } satisfies CitedFilesResponse);
  });

  app.get('/api/freshness/file', (c) => {
    const project = optProject(c.req.query('project'));
    const path = c.req.query('path');
    if (!path || path.length > 4096 || /[\u0000-\u001f]/.test(path)) throw new BadRequest(`query 'path' is required: a repository-relative path`);
    const limit = intParam(c.req.query('limit'), 'limit', 20, 1, 200);
    const view = branchView(ctx.store, project, (n) => c.req.query(n));
    const items = memoriesForFile(ctx.store, project, path, view, settings(), limit);
    return c.json({ project: project ?? null, path, items } satisfies FileMemoriesResponse);
  });

  app.get('/api/freshness/observation/:id', (c) => {
    const m = one(positiveId(c.req.param('id')), (n) => c.req.query(n));
    return m ? c.json(m) : c.json({ error: 'no such observation' }, 404);
  });

  app.post('/api/freshness/confirm', async (c) => {
    const { id, files } = parseConfirm(await incomingBody(c));
    if (!observationById(ctx.store, id)) return c.json({ error: 'no such observation' }, 404);
    const now = Date.now();
    await ctx.store.write((tx) => confirm(tx, id, files, now));
    decided(id, 'confirmed');
    return c.json(one(id));
  });

  app.post('/api/freshness/retire', async (c) => {
    const { id, replacedBy, note } = parseRetire(await incomingBody(c));
    if (!observationById(ctx.store, id)) return c.json({ error: 'no such observation' }, 404);
    if (replacedBy !== undefined && (replacedBy === id || !observationById(ctx.store, replacedBy))) throw new BadRequest('replacedBy must be another existing observation');
    const now = Date.now();
    await ctx.store.write((tx) => retire(tx, id, replacedBy ?? null, note ?? null, now));
    decided(id, 'retired');
    return c.json(one(id));
  });

  app.post('/api/freshness/verify', async (c) => {
    const { id, files } = parseVerify(await incomingBody(c));
    const row = observationById(ctx.store, id);
    if (!row) return c.json({ error: 'no such observation' }, 404);
    const asker = ctx.compressor;
    const memory = { title: row.title, subtitle: row.subtitle, narrative: row.narrative, facts: parseList(row.facts) };
    const reply = canAsk(asker) ? await asker.ask({ purpose: 'verify', system: VERIFY_SYSTEM, prompt: verifyPrompt(memory, files), maxOutputTokens: 1024 }) : undefined;
    if (!reply) return c.json({ error: 'no compression model can take this now (local provider, paused, or no key or window); confirm or retire the memory instead' }, 409);
    const v = parseVerdict(reply.text);
    if (!v) return c.json({ error: 'the model gave no usable verdict; nothing was changed', reply: reply.text.slice(0, 500) }, 502);
    const now = Date.now();
    const cited = files.map((f) => ({ path: f.path, blob: f.blob ?? null }));
    const replacedBy = await ctx.store.write((tx) => {
      if (v.verdict === 'still-true') {
        confirm(tx, id, cited, now);
        return undefined;
      }
      if (v.verdict === 'wrong') {
        retire(tx, id, null, `model: ${v.reason}`, now);
        return undefined;
      }
      const newId = insertObservation(tx, {
        type: row.type,
        title: v.title as string,
        subtitle: row.subtitle,
        narrative: v.narrative ?? row.narrative,
        facts: v.facts?.length ? v.facts : parseList(row.facts),
        concepts: parseList(row.concepts),
        filesRead: parseList(row.files_read),
        filesModified: parseList(row.files_modified),
        sessionId: row.session_id,
        project: row.project,
        toolName: row.tool_name,
        promptNumber: row.prompt_number,
        contentHash: contentHash('verify', String(id), v.title as string, v.narrative ?? ''),
        source: 'verify',
        inputTokens: reply.inputTokens,
        outputTokens: reply.outputTokens,
        createdAt: now,
      });
      if (newId === undefined) throw new BadRequest('the corrected memory is already stored');
      copyCitations(tx, id, newId, cited, now);
      retire(tx, id, newId, `model: ${v.reason}`, now);
      return newId;
    });
    decided(id, v.verdict === 'still-true' ? 'confirmed' : 'retired');
    if (replacedBy !== undefined) ctx.events.emit('new_observation', { id: replacedBy, project: row.project, type: row.type, title: v.title ?? row.title, source: 'verify', replaces: id });
    const body: VerifyResponse = { id, verdict: v.verdict, ...(replacedBy !== undefined ? { replacedBy } : {}), memory: one(id) as VerifyResponse['memory'] };
    return c.json(body);
  });
}
