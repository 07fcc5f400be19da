// The compression service's routes: provider status and control, and the `vscode` provider
// protocol through which an extension window lends its language model (types in common/contract/,
// docs/agent.md). The wire keeps the old word: /api/agent/*.
import type { Hono } from 'hono';
import { CompressionService } from '../../compression';
import {
  AGENT_MAX_WAIT_MS,
  AGENT_PROTOCOL_VERSION,
  BadRequest,
  intParam,
  parseAgentCredentials,
  parseAgentResult,
  type AgentJobsResponse,
  type AgentResultResponse,
} from '../../../common/contract';
import type { AppContext } from '../context';
import { jsonBody } from '../http';

function windowIdOf(raw: string | undefined): string {
  if (!raw || raw.length > 256 || /[\u0000-\u001f]/.test(raw)) throw new BadRequest("query 'windowId' is required (a printable id of at most 256 characters)");
  return raw;
}

export function agentRoutes(app: Hono, ctx: AppContext): void {
  const service = ctx.compressor instanceof CompressionService ? ctx.compressor : undefined;
  const need = (): CompressionService => {
    if (!service) throw new BadRequest('this worker runs without the agent module', 501);
    return service;
  };

  app.get('/api/agent/status', (c) => c.json(need().status()));

  /** Lifts a pause (after fixing a key or quota) or a backoff; queued work goes again. */
  app.post('/api/agent/resume', (c) => {
    const a = need();
    a.resume();
    ctx.processor.wake();
    return c.json({ provider: a.state() });
  });

  /** An Anthropic key from VS Code SecretStorage: memory only, never written to disk. */
  app.post('/api/agent/credentials', async (c) => {
    const a = need();
    const { anthropicApiKey } = parseAgentCredentials(await jsonBody(c));
    a.setApiKey(anthropicApiKey);
    ctx.processor.wake();
    return c.json({ provider: a.state() });
  });

  // ---- the vscode provider: long-poll for model calls, post replies back ----

  app.get('/api/agent/jobs', async (c) => {
    const a = need();
    const windowId = windowIdOf(c.req.query('windowId'));
    const waitMs = intParam(c.req.query('wait'), 'wait', 25_000, 0, AGENT_MAX_WAIT_MS);
    const max = intParam(c.req.query('max'), 'max', 1, 1, 8);
    const active = a.provider === 'vscode';
    const body: AgentJobsResponse = { protocol: AGENT_PROTOCOL_VERSION, jobs: [], active, provider: a.provider };
    // Not the chosen provider: answer at once so the window can back off.
    if (!active) return c.json(body);
    body.jobs = await a.bridge.poll(windowId, { waitMs, max, signal: c.req.raw.signal });
    return c.json(body);
  });

  app.post('/api/agent/results', async (c) => {
    const a = need();
    const r = parseAgentResult(await jsonBody(c));
    if (!a.bridge.result(r)) return c.json({ error: `job ${r.id} is unknown to window ${r.windowId}: expired, answered already, or never given to it` }, 410);
    const ok: AgentResultResponse = { accepted: true };
    return c.json(ok);
  });

  app.delete('/api/agent/windows/:windowId', (c) => {
    const a = need();
    const released = a.bridge.leave(windowIdOf(c.req.param('windowId')));
    return c.json({ released });
  });
}
