// The `vscode` provider's protocol, with a scripted client standing in for an extension window:
// it long-polls GET /api/agent/jobs, "runs" the model, and posts to POST /api/agent/results.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AgentJob, AgentJobsResponse } from '../../common/contract';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

async function vscodeWorker(settings: Record<string, unknown>): Promise<RunningWorker> {
  const dataDir = tempDir('cmem-vscode-');
  const base = { modelObservations: 'every', agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 3, agentTimeoutMs: 5000, batchMaxUses: 2, batchMaxAgeMs: 0, vscodeWaitMs: 600_000 };
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ ...base, ...settings }));
  return startWorker({ dataDir, env: { CLAUDE_MEM_PROVIDER: 'vscode' } });
}

let n = 0;
const postTool = (w: RunningWorker, session: string, file: string) =>
  w.req('POST', '/api/sessions/observations', {
    contentSessionId: session,
    project: session,
    cwd: '/repo',
    platform: 'vscode',
    tool_name: 'FileSave',
    tool_input: { file: `/repo/${file}`, added: 2, removed: 1, excerpt: '+const x = 1' },
    tool_response: '',
    tool_use_id: `v${++n}`,
  });

const poll = async (w: RunningWorker, windowId: string, wait = 5000): Promise<AgentJobsResponse> => {
  const r = await w.req('GET', `/api/agent/jobs?windowId=${windowId}&wait=${wait}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as AgentJobsResponse;
};
/** Polls until a job arrives. */
const nextJob = (w: RunningWorker, windowId: string): Promise<AgentJob> =>
  until(async () => (await poll(w, windowId, 2000)).jobs[0], 20_000, `a job for ${windowId}`);

const answer = (w: RunningWorker, windowId: string, job: AgentJob, body: Record<string, unknown>) => w.req('POST', '/api/agent/results', { windowId, id: job.id, ...body });

async function observations(w: RunningWorker, project: string): Promise<{ title: string; source: string; inputTokens: number; outputTokens: number; filesModified: string[] }[]> {
  const r = await w.req('GET', `/api/observations?project=${project}&limit=100`);
  return r.body.items;
}

const health = async (w: RunningWorker) => (await w.req('GET', '/api/health')).body;

describe('vscode provider protocol (scripted window)', () => {
  let w: RunningWorker;
  before(async () => {
    w = await vscodeWorker({});
  });
  after(async () => {
    await w?.kill();
  });

  it('work waits while no window is connected, then a window takes it and its reply is stored', async () => {
    assert.equal((await postTool(w, 'vs1', 'a.ts')).status, 202);
    await until(async () => (await health(w)).provider.state === 'waiting_for_window', 10_000, 'waiting state');
    assert.equal((await health(w)).queueDepth, 1, 'the job waits in the queue');

    const job = await nextJob(w, 'win-1');
    assert.equal(job.purpose, 'observe');
    assert.match(job.system, /<observation>/);
    assert.match(job.prompt, /<tool_use n="1" tool="FileSave">/);
    assert.ok(job.deadline > Date.now());
    assert.ok(job.maxOutputTokens > 0);
    const status = (await w.req('GET', '/api/agent/status')).body;
    assert.equal(status.windows[0].windowId, 'win-1');
    assert.equal(status.windows[0].jobsInFlight, 1);

    const r = await answer(w, 'win-1', job, {
      text: '<observation><type>feature</type><title>Added x to a.ts</title><narrative>x is one</narrative><files_modified><file>a.ts</file><file>b.ts</file></files_modified><tool_uses>1</tool_uses></observation>',
      inputTokens: 321,
      outputTokens: 45,
      model: 'copilot/fake-lm-1',
    });
    assert.deepEqual([r.status, r.body], [200, { accepted: true }]);
    await until(async () => (await health(w)).queueDepth === 0, 10_000, 'drain');
    const obs = await observations(w, 'vs1');
    assert.equal(obs.length, 1);
    assert.deepEqual([obs[0].title, obs[0].source, obs[0].inputTokens, obs[0].outputTokens], ['Added x to a.ts', 'vscode', 321, 45]);
    assert.deepEqual(obs[0].filesModified, ['a.ts'], 'b.ts was never saved');
    const h = await health(w);
    assert.deepEqual([h.provider.name, h.provider.state, h.provider.model], ['vscode', 'ready', 'copilot/fake-lm-1']);
  });

  it('refuses a result for an unknown or answered job, and bad bodies', async () => {
    const fake = { id: 'nope', purpose: 'observe', system: '', prompt: '', maxOutputTokens: 1, deadline: 0 } as AgentJob;
    assert.equal((await answer(w, 'win-1', fake, { text: 'x' })).status, 410);
    assert.equal((await w.req('POST', '/api/agent/results', { windowId: 'win-1', id: 'x' })).status, 400);
    assert.equal((await w.req('POST', '/api/agent/results', { windowId: 'win-1', id: 'x', error: { kind: 'weird', message: '' } })).status, 400);
    assert.equal((await w.req('GET', '/api/agent/jobs')).status, 400, 'windowId is required');
    assert.equal((await w.req('GET', '/api/agent/jobs?windowId=w&wait=999999')).status, 400);
  });

  it('a long-poll returns empty after its wait', async () => {
    const t = Date.now();
    const r = await poll(w, 'win-idle', 200);
    assert.deepEqual([r.jobs, r.active, r.provider, r.protocol], [[], true, 'vscode', 1]);
    assert.ok(Date.now() - t < 10_000);
  });

  it('a rate-limited window error is retried; the next answer is stored', async () => {
    await postTool(w, 'vs2', 'c.ts');
    const first = await nextJob(w, 'win-1');
    assert.equal((await answer(w, 'win-1', first, { error: { kind: 'rate_limit', message: 'slow down' } })).status, 200);
    const second = await nextJob(w, 'win-1');
    assert.notEqual(second.id, first.id);
    assert.equal(second.prompt, first.prompt, 'the same work again');
    await answer(w, 'win-1', second, { text: '<observation><type>change</type><title>Saved c</title><tool_uses>1</tool_uses></observation>' });
    await until(async () => (await observations(w, 'vs2')).length === 1, 10_000, 'stored');
    const [o] = await observations(w, 'vs2');
    assert.equal(o.source, 'vscode');
    assert.ok(o.inputTokens > 0, 'estimated when the window does not count');
    assert.match((await health(w)).provider.lastError, /rate_limit/);
  });

  it('a window that leaves gives its job back to another window', async () => {
    await postTool(w, 'vs3', 'd.ts');
    const job = await nextJob(w, 'win-a');
    const other = poll(w, 'win-b', 10_000);
    const del = await w.req('DELETE', '/api/agent/windows/win-a');
    assert.deepEqual(del.body, { released: 1 });
    const got = await other;
    assert.equal(got.jobs[0]?.id, job.id);
    assert.equal((await answer(w, 'win-a', job, { text: '<skip/>' })).status, 410, 'the window that left cannot answer');
    await answer(w, 'win-b', got.jobs[0], { text: '<observation><title>Saved d</title><tool_uses>1</tool_uses></observation>' });
    await until(async () => (await observations(w, 'vs3')).length === 1, 10_000, 'stored');
  });

  it('summaries go through the window too', async () => {
    await postTool(w, 'vs4', 'e.ts');
    const obsJob = await nextJob(w, 'win-1');
    await answer(w, 'win-1', obsJob, { text: '<observation><title>Saved e</title><tool_uses>1</tool_uses></observation>' });
    await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'vs4', project: 'vs4', platform: 'vscode', last_assistant_message: 'done' });
    const sumJob = await nextJob(w, 'win-1');
    assert.equal(sumJob.purpose, 'summarize');
    assert.match(sumJob.prompt, /Saved e/);
    await answer(w, 'win-1', sumJob, { text: '<summary><request>save e</request><completed>saved e</completed></summary>' });
    await until(async () => (await w.req('GET', '/api/stats')).body.summaries === 1, 10_000, 'summary stored');
    const exp = await w.req('GET', '/api/export?project=vs4');
    assert.equal(exp.body.sessions[0].summaries[0].completed, 'saved e');
  });

  it('an auth error from the window pauses the provider; work goes local', async () => {
    await postTool(w, 'vs5', 'f.ts');
    const job = await nextJob(w, 'win-1');
    await answer(w, 'win-1', job, { error: { kind: 'auth', message: 'the user did not allow this extension to use the model' } });
    await until(async () => (await observations(w, 'vs5')).length === 1, 10_000, 'local fallback');
    assert.equal((await observations(w, 'vs5'))[0].source, 'local');
    const h = await health(w);
    assert.deepEqual([h.provider.state, h.provider.fallback], ['paused', 'local']);
    assert.match(h.provider.lastError, /did not allow/);
    const resumed = await w.req('POST', '/api/agent/resume', {});
    assert.equal(resumed.body.provider.state, 'ready');
  });
});

describe('vscode provider fallback', () => {
  it('with no window for vscodeWaitMs, work goes local', async () => {
    const w = await vscodeWorker({ vscodeWaitMs: 300 });
    try {
      await postTool(w, 'alone', 'g.ts');
      await until(async () => (await observations(w, 'alone')).length === 1, 20_000, 'local fallback');
      assert.equal((await observations(w, 'alone'))[0].source, 'local');
    } finally {
      await w.kill();
    }
  });

  it('a window polling a worker on another provider is told so at once', async () => {
    const w = await startWorker();
    try {
      const r = await w.req('GET', '/api/agent/jobs?windowId=w&wait=30000');
      assert.deepEqual([r.status, r.body.active, r.body.provider, r.body.jobs], [200, false, 'local', []]);
      assert.equal((await w.req('GET', '/api/health')).body.provider.name, 'local');
    } finally {
      await w.kill();
    }
  });
});
