// The compression service against a fake Anthropic Messages server on loopback, scripted per test:
// each case asserts what is stored and what the queue holds. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { allText, delay, httpError, startFakeAnthropic, text, type FakeAnthropic, type MessagesBody, type Reply, type Script } from '../helpers/fakeAnthropic';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

interface StoredObs {
  title: string;
  type: string;
  source: string;
  toolName: string | null;
  inputTokens: number;
  outputTokens: number;
  contentHash: string;
  facts: string[];
  concepts: string[];
  filesModified: string[];
}
interface StoredSummary {
  request: string | null;
  completed: string | null;
  nextSteps: string | null;
  inputTokens: number;
}

/** Starts a worker on the anthropic provider pointed at the fake, with fast test timings. */
async function agentWorker(fake: FakeAnthropic, settings: Record<string, unknown>, opts: { key?: string; dataDir?: string; env?: Record<string, string> } = {}): Promise<RunningWorker> {
  const dataDir = opts.dataDir ?? tempDir('cmem-agent-');
  const base = { modelObservations: 'every', agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 3, agentTimeoutMs: 5000, dailyTokenBudget: 0, batchMaxAgeMs: 0, batchMaxUses: 1 };
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ ...base, ...settings }));
  return startWorker({ dataDir, env: { ANTHROPIC_API_KEY: opts.key ?? 'test-key', ANTHROPIC_BASE_URL: fake.url, ...opts.env } });
}

let seq = 0;
function postTool(w: RunningWorker, session: string, file: string, toolName = 'Read', extra: Record<string, unknown> = {}) {
  seq += 1;
  const input = toolName === 'Edit' ? { file_path: `/repo/${file}`, old_string: 'a', new_string: 'b' } : { file_path: `/repo/${file}` };
  return w.req('POST', '/api/sessions/observations', {
    contentSessionId: session,
    project: session,
    cwd: '/repo',
    tool_name: toolName,
    tool_input: input,
    tool_response: `contents of ${file}`,
    tool_use_id: `tu-${seq}`,
    ...extra,
  });
}

async function stored(w: RunningWorker, project: string): Promise<{ observations: StoredObs[]; summaries: StoredSummary[] }> {
  const r = await w.req('GET', `/api/export?project=${encodeURIComponent(project)}`);
  assert.equal(r.status, 200);
  const sessions = r.body.sessions as { observations: StoredObs[]; summaries: StoredSummary[] }[];
  return { observations: sessions.flatMap((s) => s.observations), summaries: sessions.flatMap((s) => s.summaries) };
}

const drained = (w: RunningWorker, ms = 20_000) => until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, ms, 'the queue to drain');
const messages = (fake: FakeAnthropic) => fake.requests.filter((r) => r.path === '/v1/messages');
const isSummary = (body: MessagesBody) => JSON.stringify(body.system ?? '').includes('progress summary');

/** The tool uses in an observer request: n and the file each one names. */
function toolUses(body: MessagesBody): { n: number; file: string; tool: string }[] {
  const t = allText(body);
  return [...t.matchAll(/<tool_use n="(\d+)" tool="([^"]+)">\s*<input>\s*(\{.*?\})\s*<\/input>/gs)].map((m) => ({ n: Number(m[1]), tool: m[2], file: String(JSON.parse(m[3]).file_path ?? '').replace('/repo/', '') }));
}

const obsXml = (prefix: string, uses: { n: number; file: string }[]) =>
  uses
    .map((u) => `<observation><type>discovery</type><title>${prefix} ${u.file}</title><facts><fact>${u.file} was read</fact></facts><concepts><concept>how-it-works</concept></concepts><tool_uses>${u.n}</tool_uses></observation>`)
    .join('\n');

/** One good observation per tool use of the request, titled after its file. */
const observeEach =
  (prefix = 'Observed') =>
  (body: MessagesBody): Reply =>
    text(obsXml(prefix, toolUses(body)));

/** A script answering every request with observeEach. */
const eachScript = (prefix: string) => ({ body }: { body: MessagesBody }) => observeEach(prefix)(body);

/** Like sequence(), counted from the next request (the fake's own index runs over its lifetime). */
function fromNext(fake: FakeAnthropic, ...replies: Reply[]): Script {
  const base = messages(fake).length;
  return ({ index }) => replies[Math.min(index - base, replies.length - 1)];
}

const SUMMARY_XML = '<summary><request>Find the bug</request><investigated>a.ts</investigated><learned>it was a typo</learned><completed>fixed it</completed><next_steps>ship</next_steps><notes>none</notes></summary>';

describe('agent with a fake Anthropic server: replies', () => {
  let fake: FakeAnthropic;
  let w: RunningWorker;
  // Batches of 3 tool uses; a partial batch waits (a summary flushes it).
  before(async () => {
    fake = await startFakeAnthropic();
    w = await agentWorker(fake, { batchMaxUses: 3, batchMaxAgeMs: 600_000 });
  });
  after(async () => {
    await w?.kill();
    await fake?.close();
  });

  const script = (reply: (body: MessagesBody) => Reply) => fake.setScript(({ body }) => (isSummary(body) ? text(SUMMARY_XML) : reply(body)));
  const three = async (session: string, tool = 'Read') => {
    for (const f of ['a.ts', 'b.ts', 'c.ts']) assert.equal((await postTool(w, session, f, tool)).status, 202);
  };

  it('good XML: one call for a batch of three tool uses, observations stored with their tokens', async () => {
    const before = messages(fake).length;
    script(observeEach());
    await three('good');
    await drained(w);
    const calls = messages(fake).slice(before);
    assert.equal(calls.length, 1, 'three tool uses, one model call');
    assert.equal(toolUses(calls[0].body as MessagesBody).length, 3);
    assert.equal((calls[0].body as MessagesBody).model, 'claude-haiku-5-5');
    const { observations } = await stored(w, 'good');
    assert.deepEqual(observations.map((o) => o.title).sort(), ['Observed a.ts', 'Observed b.ts', 'Observed c.ts']);
    assert.ok(observations.every((o) => o.source === 'anthropic' && o.type === 'discovery' && o.toolName === 'Read'));
    assert.ok(observations.every((o) => o.inputTokens > 0 && o.outputTokens > 0));
    const total = observations.reduce((n, o) => n + o.inputTokens, 0);
    assert.equal(total, calls[0].inputTokens, 'the call\'s input tokens are spread over its observations exactly');
    const stats = (await w.req('GET', '/api/stats')).body;
    assert.ok(stats.tokens.modelInput >= total);
    assert.equal((await w.req('GET', '/api/health')).body.provider.state, 'ready');
  });

  it('fenced XML inside prose is read', async () => {
    script((body) => text(`Here are the observations:\n\n\`\`\`xml\n${obsXml('Fenced', toolUses(body))}\n\`\`\`\nHope this helps.`));
    await three('fenced');
    await drained(w);
    const { observations } = await stored(w, 'fenced');
    assert.deepEqual(observations.map((o) => o.title).sort(), ['Fenced a.ts', 'Fenced b.ts', 'Fenced c.ts']);
    assert.ok(observations.every((o) => o.source === 'anthropic'));
  });

  it('several observations from one reply, two of them for one tool use, with distinct hashes', async () => {
    script(() =>
      text(`<observation><type>bugfix</type><title>Fixed a</title><narrative>n</narrative><files_modified><file>a.ts</file><file>not-touched.ts</file></files_modified><tool_uses>1</tool_uses></observation>
<observation><type>gotcha: subtle</type><title>A gotcha in a</title><concepts><concept>gotcha: caching by path</concept></concepts><tool_uses>1</tool_uses></observation>
<observation><type>decision</type><title>Decided on b and c</title><facts><fact>f</fact></facts><tool_uses>2,3</tool_uses></observation>`),
    );
    await three('several', 'Edit');
    await drained(w);
    const { observations } = await stored(w, 'several');
    assert.deepEqual(observations.map((o) => o.title).sort(), ['A gotcha in a', 'Decided on b and c', 'Fixed a']);
    assert.equal(new Set(observations.map((o) => o.contentHash)).size, 3);
    const fixed = observations.find((o) => o.title === 'Fixed a') as StoredObs;
    assert.deepEqual(fixed.filesModified, ['a.ts'], 'files_modified only from evidence');
    const decided = observations.find((o) => o.title === 'Decided on b and c') as StoredObs;
    assert.deepEqual(decided.filesModified, ['b.ts', 'c.ts']);
    const gotcha = observations.find((o) => o.title === 'A gotcha in a') as StoredObs;
    assert.equal(gotcha.type, 'gotcha', 'unknown type kept');
    assert.deepEqual(gotcha.concepts, ['gotcha']);
  });

  it('prose: the batch is compressed locally, nothing lost, the queue empty', async () => {
    script(() => text('I looked at these files. They seem to implement a small pager with helpers around it, nothing special.'));
    await three('prose');
    await drained(w);
    const { observations } = await stored(w, 'prose');
    assert.deepEqual(observations.map((o) => o.title).sort(), ['Read a.ts', 'Read b.ts', 'Read c.ts']);
    assert.ok(observations.every((o) => o.source === 'local'));
    assert.ok(observations.reduce((n, o) => n + o.inputTokens, 0) > 0, 'the wasted call is still counted');
    const h = (await w.req('GET', '/api/health')).body;
    assert.equal(h.provider.state, 'ready');
    assert.match(h.provider.lastError, /prose/);
  });

  it('empty reply: compressed locally', async () => {
    script(() => text(''));
    await three('empty');
    await drained(w);
    const { observations } = await stored(w, 'empty');
    assert.equal(observations.length, 3);
    assert.ok(observations.every((o) => o.source === 'local'));
    assert.match((await w.req('GET', '/api/health')).body.provider.lastError, /empty/);
  });

  it('malformed XML: what can be salvaged is kept; nothing usable goes local', async () => {
    script(() => text('<observation><type>feature</type><title>Salvaged title<narrative>cut off mid-way'));
    await three('salvage');
    await drained(w);
    const salvaged = (await stored(w, 'salvage')).observations;
    assert.deepEqual(salvaged.map((o) => [o.title, o.source]), [['Salvaged title', 'anthropic']]);

    script(() => text('<observation><type>change</type><subtitle>no title</subtitle></observation>'));
    await three('malformed');
    await drained(w);
    const local = (await stored(w, 'malformed')).observations;
    assert.equal(local.length, 3);
    assert.ok(local.every((o) => o.source === 'local'));
  });

  it('a skip stores nothing and empties the queue', async () => {
    script(() => text('<skip reason="routine reads"/>'));
    await three('skip');
    await drained(w);
    assert.equal((await stored(w, 'skip')).observations.length, 0);
  });

  it('summarize: flushes the partial batch first, then stores the model summary; a skip_summary stores none', async () => {
    script(observeEach('Before summary'));
    const before = messages(fake).length;
    await postTool(w, 'sum', 'only.ts');
    const s = await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'sum', project: 'sum', last_assistant_message: 'I fixed it.' });
    assert.equal(s.status, 202);
    await drained(w);
    const calls = messages(fake).slice(before).map((r) => (isSummary(r.body as MessagesBody) ? 'summary' : 'observe'));
    assert.deepEqual(calls, ['observe', 'summary'], 'the summary sees every tool use before it');
    const { observations, summaries } = await stored(w, 'sum');
    assert.deepEqual(observations.map((o) => o.title), ['Before summary only.ts']);
    assert.equal(summaries.length, 1);
    assert.deepEqual([summaries[0].request, summaries[0].completed, summaries[0].nextSteps], ['Find the bug', 'fixed it', 'ship']);
    assert.ok(summaries[0].inputTokens > 0);

    fake.setScript(({ body }) => (isSummary(body) ? text('<skip_summary reason="nothing happened"/>') : text('<skip/>')));
    await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'sum2', project: 'sum2', last_assistant_message: 'Nothing.' });
    await drained(w);
    assert.equal((await stored(w, 'sum2')).summaries.length, 0);
  });

  it('session end queues a summary when none exists', async () => {
    script(observeEach('Ended'));
    await three('ending');
    await drained(w);
    const c = await w.req('POST', '/api/sessions/complete', { contentSessionId: 'ending', project: 'ending' });
    assert.equal(c.body.summaryQueued, true);
    await drained(w);
    assert.equal((await stored(w, 'ending')).summaries.length, 1);
  });
});

describe('agent with a fake Anthropic server: failures', () => {
  let fake: FakeAnthropic;
  before(async () => {
    fake = await startFakeAnthropic();
  });
  after(async () => {
    await fake?.close();
  });

  it('429 then success: backs off, retries, stores the model observation', async () => {
    fake.setScript(fromNext(fake, httpError(429, { retryAfter: 0 }), text(obsXml('After 429', [{ n: 1, file: 'x.ts' }]))));
    const w = await agentWorker(fake, {});
    try {
      const before = messages(fake).length;
      await postTool(w, 's429', 'x.ts');
      await drained(w);
      assert.equal(messages(fake).length - before, 2);
      const { observations } = await stored(w, 's429');
      assert.deepEqual(observations.map((o) => [o.title, o.source]), [['After 429 x.ts', 'anthropic']]);
      const h = (await w.req('GET', '/api/health')).body;
      assert.match(h.provider.lastError, /429/);
      assert.equal((await w.req('GET', '/api/queue')).body.dead.length, 0);
    } finally {
      await w.kill();
    }
  });

  it('500s: exactly N attempts, then the job is dead-lettered, listed, and retryable', async () => {
    fake.setScript(() => httpError(500));
    const w = await agentWorker(fake, { agentMaxAttempts: 3 });
    try {
      const before = messages(fake).length;
      await postTool(w, 's500', 'y.ts');
      const q = await until(async () => {
        const r = (await w.req('GET', '/api/queue')).body;
        return r.dead.length === 1 ? r : undefined;
      }, 20_000, 'a dead job');
      assert.equal(q.pending, 0);
      assert.equal(q.dead[0].attempts, 3);
      assert.match(q.dead[0].lastError, /500/);
      assert.equal(messages(fake).length - before, 3, 'no retry storm: one call per attempt');
      assert.equal((await stored(w, 's500')).observations.length, 0);

      fake.setScript(eachScript('Retried'));
      await w.req('POST', '/api/agent/resume', {});
      assert.equal((await w.req('POST', '/api/queue/retry', { ids: 'all' })).body.retried, 1);
      await drained(w);
      assert.deepEqual((await stored(w, 's500')).observations.map((o) => o.title), ['Retried y.ts']);
      assert.equal((await w.req('GET', '/api/queue')).body.dead.length, 0);
    } finally {
      await w.kill();
    }
  });

  it('401: pauses the provider (no retries), work goes local, health shows it; a new key resumes', async () => {
    const keyed = await startFakeAnthropic(eachScript('Keyed'), { apiKey: 'right-key' });
    const w = await agentWorker(keyed, {}, { key: 'wrong-key' });
    try {
      await postTool(w, 's401', 'a.ts');
      await drained(w);
      const h = (await w.req('GET', '/api/health')).body;
      assert.equal(h.provider.name, 'anthropic');
      assert.equal(h.provider.state, 'paused');
      assert.match(h.provider.lastError, /401/);
      assert.equal(h.provider.fallback, 'local');
      await postTool(w, 's401', 'b.ts');
      await drained(w);
      assert.equal(messages(keyed).length, 1, 'no call while paused');
      const local = (await stored(w, 's401')).observations;
      assert.deepEqual(local.map((o) => [o.title, o.source]).sort(), [['Read a.ts', 'local'], ['Read b.ts', 'local']]);
      const status = (await w.req('GET', '/api/agent/status')).body;
      assert.equal(status.provider.pausedReason, 'auth');

      const r = await w.req('POST', '/api/agent/credentials', { anthropicApiKey: 'right-key' });
      assert.equal(r.body.provider.state, 'ready');
      await postTool(w, 's401', 'c.ts');
      await drained(w);
      assert.ok((await stored(w, 's401')).observations.some((o) => o.title === 'Keyed c.ts' && o.source === 'anthropic'));
      assert.equal((await w.req('POST', '/api/agent/credentials', { anthropicApiKey: 'has spaces' })).status, 400);
    } finally {
      await w.kill();
      await keyed.close();
    }
  });

  it('a slow reply past the timeout counts as a failure and is retried', async () => {
    const good = text(obsXml('After timeout', [{ n: 1, file: 'slow.ts' }]));
    fake.setScript(fromNext(fake, delay(30_000, good), good));
    const w = await agentWorker(fake, { agentTimeoutMs: 800 });
    try {
      const before = messages(fake).length;
      await postTool(w, 'slow', 'slow.ts');
      await drained(w, 30_000);
      assert.equal(messages(fake).length - before, 2);
      assert.deepEqual((await stored(w, 'slow')).observations.map((o) => [o.title, o.source]), [['After timeout slow.ts', 'anthropic']]);
      assert.match((await w.req('GET', '/api/health')).body.provider.lastError, /timeout/);
    } finally {
      await w.kill();
    }
  });

  it('a daily token budget stops model calls once spent; work goes local', async () => {
    fake.setScript(eachScript('Budgeted'));
    const w = await agentWorker(fake, { dailyTokenBudget: 1000 });
    try {
      const before = messages(fake).length;
      await postTool(w, 'budget', 'one.ts');
      await drained(w);
      await postTool(w, 'budget', 'two.ts');
      await drained(w);
      assert.equal(messages(fake).length - before, 1, 'the second call would pass the budget');
      const obs = (await stored(w, 'budget')).observations;
      assert.deepEqual(obs.map((o) => [o.title, o.source]).sort(), [['Budgeted one.ts', 'anthropic'], ['Read two.ts', 'local']]);
      const status = (await w.req('GET', '/api/agent/status')).body;
      assert.equal(status.budget.dailyTokens, 1000);
      assert.ok(status.budget.usedToday > 0);
    } finally {
      await w.kill();
    }
  });
});

describe('agent crash safety', () => {
  it('SIGKILL with batches in flight: after a restart no job is lost and no observation duplicated', async () => {
    const fake = await startFakeAnthropic();
    const dataDir = tempDir('cmem-agent-crash-');
    const settings = { batchMaxUses: 3, batchMaxAgeMs: 0, agentConcurrency: 2, agentTimeoutMs: 30_000 };
    // The first call answers at once; later ones hang, so they are in flight when the worker dies.
    fake.setScript(({ body, index }) => {
      const r = observeEach('Crash')(body);
      return index === 0 ? r : delay(60_000, r);
    });
    const w = await agentWorker(fake, settings, { dataDir });
    const files = Array.from({ length: 12 }, (_, i) => `f${i}.ts`);
    try {
      for (const f of files.slice(0, 3)) assert.equal((await postTool(w, 'crash', f)).status, 202);
      await until(async () => (await stored(w, 'crash')).observations.length > 0, 20_000, 'the first batch to be stored');
      for (const f of files.slice(3)) assert.equal((await postTool(w, 'crash', f)).status, 202);
      await until(() => messages(fake).length >= 3, 20_000, 'batches in flight');
      const h = (await w.req('GET', '/api/health')).body;
      assert.ok(h.queueDepth > 0, 'jobs are still queued at the kill');
    } finally {
      await w.kill('SIGKILL');
    }
    fake.setScript(eachScript('Crash'));
    const w2 = await agentWorker(fake, settings, { dataDir });
    try {
      await drained(w2, 30_000);
      const { observations } = await stored(w2, 'crash');
      const titles = observations.map((o) => o.title).sort();
      assert.deepEqual(titles, files.map((f) => `Crash ${f}`).sort(), 'every tool use exactly once');
      assert.equal(new Set(observations.map((o) => o.contentHash)).size, observations.length);
      const q = (await w2.req('GET', '/api/queue')).body;
      assert.deepEqual([q.pending, q.dead.length], [0, 0]);
    } finally {
      await w2.kill();
      await fake.close();
    }
  });
});
