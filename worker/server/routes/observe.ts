// POST /api/sessions/observations (the PostToolUse hook): one tool use checked, cleaned and queued
// to become an observation. The order: the request's shape as sent (checkObservationRequest,
// common/contract/validate.ts: a 400 naming the field), then every value through cleanIncoming
// (common/privacy/incoming.ts: private blocks stripped, secrets redacted), the skip list and the
// excluded projects, the tool's input and output through scrubToolUse (secret files by tool kind)
// and cut to maxFieldChars, then one journaled write that files the job in the durable queue
// (`pending_work`), refusing a duplicate by its content hash. The processor (queue/processor.ts)
// compresses the job later and stores the observation (store/repos/observations.ts,
// insertObservation) in the transaction that deletes the job. Reading and curating stored
// observations is observations.ts.
import type { Hono } from 'hono';
import type { Settings } from '../../../common/node/config';
import { BadRequest, checkObservationRequest, type QueuedOrSkipped, type QueuedResponse, type SkippedResponse } from '../../../common/contract';
import { scrubToolUse } from '../../../common/privacy';
import type { EventBus } from '../../events';
import { parseCitations } from '../../freshness/parse';
import { recordSeen } from '../../freshness/record';
import { contentHash } from '../../hash';
import { clean, DEFAULT_PLATFORM, incoming, projectFrom, type ObservationJob } from '../../lifecycle';
import { fieldText, isExcludedProject, isSkippedTool } from '../../privacy/filters';
import { hasObservationHash } from '../../store/repos/observations';
import { enqueue } from '../../store/repos/queue';
import { ensureSession, touchSession } from '../../store/repos/sessions';
import type { Store } from '../../store/store';
import type { AppContext } from '../context';
import { jsonBody } from '../http';

export function observeRoute(app: Hono, ctx: AppContext): void {
  app.post('/api/sessions/observations', async (c) => {
    const deps: ObserveDeps = {
      store: ctx.store,
      events: ctx.events,
      settings: ctx.config.settings,
      recordCitations: ctx.lifecycle.recordCitations,
      onQueued: () => ctx.processor.kick(),
    };
    const r: QueuedOrSkipped = await observe(deps, await jsonBody(c));
    return c.json(r, 'queued' in r ? 202 : 200);
  });
}

export interface ObserveDeps {
  store: Store;
  events: EventBus;
  settings: Settings;
  /** Store the file fingerprints clients attach to tool uses (settings.json freshness.enabled). */
  recordCitations: boolean;
  /** A job was queued: wake the processor. */
  onQueued: () => void;
}

const TOOL_FIELDS = ['tool_input', 'tool_response'] as const;

export async function observe(deps: ObserveDeps, body: unknown): Promise<QueuedResponse | SkippedResponse> {
  const { settings } = deps;
  checkObservationRequest(body); // refused as sent, with the field named, before anything else
  const req = checkObservationRequest(incoming(body, TOOL_FIELDS));
  const { o, contentSessionId } = req;
  const toolName = clean(req.toolName).trim();
  if (toolName === '') throw new BadRequest("field 'tool_name' is empty once private content is removed");
  const toolUseId = req.toolUseId === undefined ? undefined : clean(req.toolUseId) || undefined;
  const platform = req.platform ?? DEFAULT_PLATFORM;
  const { project, cwd } = projectFrom(req.cwd, req.project);
  if (isSkippedTool(toolName, settings.skipTools)) return { skipped: 'skip_list' };
  if (isExcludedProject(project, cwd, settings.excludedProjects)) return { skipped: 'excluded_project' };
  // Private blocks (keys too), the content of secret-looking files, then secrets; cut last.
  const use = scrubToolUse(o.tool_input, o.tool_response, toolName);
  const toolInput = fieldText(use.input, settings.maxFieldChars);
  const toolResponse = fieldText(use.response, settings.maxFieldChars);
  if (use.removed > 0 && isBlank(toolInput) && isBlank(toolResponse)) return { skipped: 'private_content' };
  // A tool use id names one tool call: the same call reported twice (two hook files, a retry) is
  // one observation whatever its payload looks like the second time.
  const hash = toolUseId ? contentHash('tool_use', toolUseId) : contentHash(toolName, toolInput, toolResponse, '');
  const citations = deps.recordCitations ? parseCitations(o.citations) : undefined;
  const now = Date.now();
  const r = await deps.store.write((tx): QueuedResponse | SkippedResponse | { session: number; jobId: number } => {
    const { row } = ensureSession(tx, { platform, contentSessionId, project, cwd, now });
    if (row.prompt_private) return { skipped: 'private_prompt' };
    if (hasObservationHash(tx, row.id, hash)) return { skipped: 'duplicate' };
    const job: ObservationJob = { toolName, toolInput, toolResponse, cwd, toolUseId, promptNumber: row.prompt_counter, platform };
    const jobId = enqueue(tx, { sessionId: row.id, kind: 'observation', payload: job, contentHash: hash, now });
    if (jobId === undefined) return { skipped: 'duplicate' }; // already queued
    // Fingerprints at the job's time: the trigger of schema step 4 cites them from its observations.
    if (citations) recordSeen(tx, { sessionId: row.id, project: row.project, now, citations });
    // A burst of tool uses need not rewrite the session row for each one.
    if (row.status !== 'active' || now - row.updated_at >= 1000) touchSession(tx, row.id, now);
    return { session: row.id, jobId };
  });
  if ('skipped' in r) return r;
  if ('jobId' in r && 'session' in r) {
    deps.events.emit('observation_queued', { jobId: r.jobId, sessionDbId: r.session, project, toolName });
    deps.onQueued();
    return { queued: true, jobId: r.jobId };
  }
  return r;
}

function isBlank(s: string): boolean {
  return s === '' || s === '""' || s === '{}' || s === '[]' || s === 'null';
}
