import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBudget } from '../../worker/compression/budget';
import type { ObserveBatch } from '../../worker/compression/compressor';
import { confirmedModified, evidenceOf } from '../../worker/compression/evidence';
import { ProviderGate } from '../../worker/compression/gate';
import { chooseProvider } from '../../worker/compression/index';
import { NotNow, ProviderError, type ModelBackend, type ModelReply, type ModelRequest, type Unavailable } from '../../worker/compression/model';
import { ModelCompressor, shares } from '../../worker/compression/modelCompressor';
import { compactToolUse, OBSERVER_SYSTEM, observerPrompt } from '../../worker/compression/prompts';
import { TYPE_NAMES } from '../../worker/compression/taxonomy';
import { VscodeBridge } from '../../worker/compression/vscode';
import type { ObservationJob } from '../../worker/lifecycle';
import type { Logger } from '../../common/node/log';
import { OBSERVATION_TYPES, parseAgentResult } from '../../common/contract';
import { backoffMs } from '../../worker/queue/processor';
import { plan, type JobMeta } from '../../worker/queue/plan';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

const job = (toolName: string, input: unknown, response = ''): ObservationJob => ({
  toolName,
  toolInput: JSON.stringify(input),
  toolResponse: response,
  cwd: '/repo',
  promptNumber: 1,
  platform: 'claude-code',
});

class ScriptedBackend implements ModelBackend {
  readonly name = 'anthropic';
  readonly model = 'test-model';
  calls: ModelRequest[] = [];
  missing: Unavailable | undefined;
  constructor(private readonly answer: (req: ModelRequest) => ModelReply | Promise<ModelReply>) {}
  unavailable() {
    return this.missing;
  }
  async complete(req: ModelRequest): Promise<ModelReply> {
    this.calls.push(req);
    return this.answer(req);
  }
}

function compressor(backend: ModelBackend, o: { budget?: number; vscodeWaitMs?: number; now?: () => number } = {}) {
  const gate = new ProviderGate({ quotaPauseMs: 60_000, now: o.now });
  const budget = new TokenBudget({ dailyTokens: o.budget ?? 0, spentSince: () => 0, now: o.now });
  const c = new ModelCompressor({
    backend,
    gate,
    budget,
    policy: { batchMaxUses: 10, batchMaxAgeMs: 1000, concurrency: 2, maxAttempts: 3, retryBaseMs: 10, retryMaxMs: 100 },
    fieldChars: 4000,
    maxOutputTokens: 1024,
    vscodeWaitMs: o.vscodeWaitMs ?? 60_000,
    log: quiet,
    now: o.now,
    // Every tool use to the model: these cases test how a model's answers are used, not which uses
    // are worth a call (test/unit/triage.test.ts, test/integration/agent-worth.test.ts).
    scope: 'every',
  });
  return { c, gate, budget };
}

const batchOf = (jobs: ObservationJob[], oldestCreatedAt = Date.now()): ObserveBatch => ({ project: 'p', jobs, oldestCreatedAt });
const reply = (text: string, inputTokens = 100, outputTokens = 20): ModelReply => ({ text, inputTokens, outputTokens, model: 'test-model' });

describe('taxonomy', () => {
  it('is the one list of types the protocol also names', () => {
    assert.deepEqual([...TYPE_NAMES].sort(), [...OBSERVATION_TYPES].sort());
  });
});

describe('evidence for files_modified', () => {
  it('comes from edit/write inputs and saved paths, relative to cwd', () => {
    assert.deepEqual(evidenceOf(job('Edit', { file_path: '/repo/src/a.ts', old_string: 'a', new_string: 'b' })), { read: [], modified: ['src/a.ts'] });
    assert.deepEqual(evidenceOf(job('FileSave', { file: '/repo/b.ts', added: 1, removed: 0 })), { read: [], modified: ['b.ts'] });
    assert.deepEqual(evidenceOf(job('Read', { file_path: '/repo/c.ts' })), { read: ['c.ts'], modified: [] });
    assert.deepEqual(evidenceOf(job('Bash', { command: 'rm -rf x' })), { read: [], modified: [] });
    assert.deepEqual(evidenceOf(job('Grep', { pattern: 'x', path: '/repo/src' })), { read: [], modified: [] });
  });

  it('ignores files the model claims were modified when no tool use modified them', () => {
    const batch = [evidenceOf(job('Read', { file_path: '/repo/a.ts' })), evidenceOf(job('Edit', { file_path: '/repo/src/b.ts' }))];
    // Cited: only the read. The model claims a.ts (never edited) and b.ts (edited by tool use 2).
    assert.deepEqual(confirmedModified([batch[0]], batch, ['a.ts', '/repo/src/b.ts', 'b.ts'], '/repo'), ['src/b.ts']);
    assert.deepEqual(confirmedModified([batch[0]], batch, ['README.md'], '/repo'), []);
  });

  it('keeps what the model drops when its cited tool use modified it', async () => {
    const backend = new ScriptedBackend(() => reply('<observation><type>change</type><title>Edited b</title><files_modified><file>invented.ts</file></files_modified><tool_uses>2</tool_uses></observation>'));
    const { c } = compressor(backend);
    const r = await c.observe(batchOf([job('Read', { file_path: '/repo/a.ts' }), job('Edit', { file_path: '/repo/src/b.ts' })]));
    assert.equal(r.observations.length, 1);
    assert.deepEqual(r.observations[0].draft.filesModified, ['src/b.ts']);
    assert.equal(r.observations[0].job, 1);
  });
});

describe('prompts', () => {
  it('cap every tool field, keeping head and tail with the original size', () => {
    const huge = `HEAD${'x'.repeat(100_000)}TAIL`;
    const p = observerPrompt({ project: 'p', uses: [{ toolName: 'Read', toolInput: '{}', toolResponse: huge }], fieldChars: 2000 });
    assert.ok(p.length < 3000, `prompt is ${p.length} chars`);
    assert.match(p, /HEAD/);
    assert.match(p, /TAIL/);
    assert.match(p, /of 100008 characters elided/);
  });

  it('drop what is redundant in a tool use: Edit\'s original file and patch, Write\'s echo, Read\'s metadata', () => {
    const file = 'line 1\nline 2\n'.repeat(500);
    const edit = compactToolUse({
      toolName: 'Edit',
      toolInput: JSON.stringify({ file_path: '/r/a.ts', old_string: 'line 1', new_string: 'line one' }),
      toolResponse: JSON.stringify({ filePath: '/r/a.ts', oldString: 'line 1', newString: 'line one', originalFile: file, structuredPatch: [{ lines: ['-a', '+b'] }], userModified: false }),
    });
    assert.equal(edit.output, '');
    assert.match(edit.input, /"old_string":"line 1"/);
    const write = compactToolUse({ toolName: 'Write', toolInput: JSON.stringify({ file_path: '/r/b.ts', content: file }), toolResponse: JSON.stringify({ type: 'create', filePath: '/r/b.ts', content: file }) });
    assert.equal(write.output, '{"type":"create"}');
    assert.ok(write.input.includes('[content]\nline 1\nline 2'), 'text shown unescaped');
    const read = compactToolUse({ toolName: 'Read', toolInput: '{"file_path":"/r/c.ts"}', toolResponse: JSON.stringify({ type: 'text', file: { filePath: '/r/c.ts', content: 'x\ny', numLines: 2, startLine: 1, totalLines: 90 } }) });
    assert.equal(read.output, 'x\ny (lines 1-2 of 90)');
    const bash = compactToolUse({ toolName: 'Bash', toolInput: '{"command":"ls"}', toolResponse: JSON.stringify({ stdout: 'a\nb', stderr: '', interrupted: false }) });
    assert.equal(bash.output, '[stdout]\na\nb');
    const cut = compactToolUse({ toolName: 'Bash', toolInput: '{"command":"ls"', toolResponse: 'plain text' });
    assert.deepEqual(cut, { input: '{"command":"ls"', output: 'plain text' }, 'capped JSON is shown as it is');
  });

  it('list the taxonomy in the observer prompt', () => {
    for (const t of TYPE_NAMES) assert.match(OBSERVER_SYSTEM, new RegExp(`- ${t}:`));
    assert.match(OBSERVER_SYSTEM, /- gotcha:/);
  });
});

describe('model compressor', () => {
  it('spreads a call\'s tokens over its observations exactly', async () => {
    assert.deepEqual(shares(10, 3), [4, 3, 3]);
    const backend = new ScriptedBackend(() => reply('<observation><title>a</title><tool_uses>1</tool_uses></observation><observation><title>b</title><tool_uses>2</tool_uses></observation>', 101, 21));
    const { c } = compressor(backend);
    const r = await c.observe(batchOf([job('Read', { file_path: 'a' }), job('Read', { file_path: 'b' })]));
    assert.equal(r.source, 'anthropic');
    assert.equal(r.observations.reduce((n, o) => n + o.inputTokens, 0), 101);
    assert.equal(r.observations.reduce((n, o) => n + o.outputTokens, 0), 21);
    assert.deepEqual(r.observations.map((o) => o.job), [0, 1]);
  });

  it('pauses on an auth error and sends the batch to local instead of retrying', async () => {
    const backend = new ScriptedBackend(() => {
      throw new ProviderError('401 authentication_error invalid x-api-key', 'pause', { pause: 'auth' });
    });
    const { c } = compressor(backend);
    const r = await c.observe(batchOf([job('Read', { file_path: '/repo/a.ts' })]));
    assert.equal(r.source, 'local');
    assert.equal(c.state().state, 'paused');
    assert.match(c.state().lastError ?? '', /401/);
    await c.observe(batchOf([job('Read', { file_path: '/repo/b.ts' })]));
    assert.equal(backend.calls.length, 1, 'no call while paused');
    c.resume();
    assert.equal(c.state().state, 'ready');
  });

  it('pauses on quota prose in a 200 reply', async () => {
    const backend = new ScriptedBackend(() => reply('Credit balance is too low to access the API.'));
    const { c } = compressor(backend);
    const r = await c.observe(batchOf([job('Read', { file_path: '/repo/a.ts' })]));
    assert.equal(r.source, 'local');
    assert.equal(r.inputTokens, 100, 'the failed call\'s tokens are still counted');
    assert.deepEqual([c.state().state, c.state().pausedReason], ['paused', 'quota']);
  });

  it('rethrows transient errors for the queue to back off', async () => {
    const backend = new ScriptedBackend(() => {
      throw new ProviderError('429 rate_limit_error', 'retry', { retryAfterMs: 2000 });
    });
    const { c } = compressor(backend);
    await assert.rejects(c.observe(batchOf([job('Read', {})])), (e: unknown) => e instanceof ProviderError && e.kind === 'retry');
    c.cooldown(5000, '429');
    await assert.rejects(c.observe(batchOf([job('Read', {})])), (e: unknown) => e instanceof NotNow);
    assert.equal(backend.calls.length, 1);
    assert.equal(c.state().state, 'backoff');
  });

  it('stops calling the model once the daily budget is spent', async () => {
    const backend = new ScriptedBackend(() => reply('<observation><title>x</title></observation>', 900, 100));
    const { c, budget } = compressor(backend, { budget: 1500 });
    assert.equal((await c.observe(batchOf([job('Read', {})]))).source, 'anthropic');
    assert.equal(budget.usedToday().used, 1000);
    const r = await c.observe(batchOf([job('Read', { file_path: 'q' })]));
    assert.equal(r.source, 'local', 'the next call would pass the budget');
    assert.equal(backend.calls.length, 1);
    assert.equal(c.state().state, 'ready', 'small calls may still fit');
    budget.add(600);
    assert.equal(c.state().state, 'budget_exhausted');
  });

  it('makes vscode work wait for a window, then go local', async () => {
    let now = 1_000_000;
    const backend = new ScriptedBackend(() => reply('<skip/>'));
    backend.missing = { reason: 'no_window', message: 'no window' };
    const { c } = compressor(backend, { vscodeWaitMs: 5000, now: () => now });
    await assert.rejects(c.observe(batchOf([job('Read', {})], now)), (e: unknown) => e instanceof NotNow && e.until === now + 5000);
    assert.equal(c.state().state, 'waiting_for_window');
    now += 5000;
    assert.equal((await c.observe(batchOf([job('Read', {})], now - 5000))).source, 'local');
    assert.equal(backend.calls.length, 0);
  });

  it('falls back to local for prose, empty and malformed replies, and stores nothing for a skip', async () => {
    for (const text of ['', 'I reviewed the batch; it reads files and runs tests, mostly.', '<observation><type>change</type></observation>']) {
      const { c } = compressor(new ScriptedBackend(() => reply(text)));
      const r = await c.observe(batchOf([job('Read', { file_path: '/repo/a.ts' })]));
      assert.equal(r.source, 'local', JSON.stringify(text));
      assert.equal(r.observations.length, 1);
      assert.equal(r.observations[0].inputTokens, 100);
    }
    const { c } = compressor(new ScriptedBackend(() => reply('<skip reason="routine"/>')));
    const r = await c.observe(batchOf([job('Read', {})]));
    assert.deepEqual([r.source, r.observations.length], ['anthropic', 0]);
  });

  it('summarises; <skip_summary/> gives no summary', async () => {
    const { c } = compressor(new ScriptedBackend(() => reply('<summary><request>r</request><completed>done</completed></summary>')));
    const s = await c.summarize({ request: 'r', lastAssistantMessage: undefined, observations: [], project: 'p' });
    assert.equal(s.summary?.completed, 'done');
    const { c: c2 } = compressor(new ScriptedBackend(() => reply('<skip_summary reason="nothing"/>')));
    assert.equal((await c2.summarize({ request: 'r', lastAssistantMessage: undefined, observations: [], project: 'p' })).summary, null);
  });
});

describe('provider choice', () => {
  it('env, then settings, then a key, then local', () => {
    assert.equal(chooseProvider({ CLAUDE_MEM_PROVIDER: 'vscode' }, { provider: 'local' }, true).provider, 'vscode');
    assert.deepEqual(chooseProvider({}, { provider: 'local' }, true).chosenBy, 'settings');
    assert.deepEqual(chooseProvider({}, { provider: '' }, true), { provider: 'anthropic', chosenBy: 'api-key', problems: [] });
    assert.deepEqual(chooseProvider({}, { provider: '' }, false).provider, 'local');
    const bad = chooseProvider({ CLAUDE_MEM_PROVIDER: 'openai' }, { provider: '' }, false);
    assert.equal(bad.provider, 'local');
    assert.match(bad.problems[0], /openai/);
  });
});

describe('token budget', () => {
  it('is seeded from the store, counts, and rolls over at midnight', () => {
    let now = new Date(2026, 0, 10, 23, 0).getTime();
    const b = new TokenBudget({ dailyTokens: 1000, spentSince: () => 400, now: () => now });
    assert.equal(b.usedToday().used, 400);
    assert.equal(b.exhausted(500), false);
    assert.equal(b.exhausted(601), true);
    b.add(600);
    assert.equal(b.exhausted(), true);
    now = new Date(2026, 0, 11, 0, 1).getTime();
    assert.equal(b.exhausted(), false, 'a new day');
    assert.equal(new TokenBudget({ dailyTokens: 0, spentSince: () => 1e12 }).exhausted(1e12), false, '0 = no limit');
  });
});

describe('retry backoff', () => {
  it('grows exponentially, is capped, jittered, and honours retry-after', () => {
    const p = { retryBaseMs: 1000, retryMaxMs: 10_000 };
    assert.equal(backoffMs(1, p, 0, () => 1), 1000);
    assert.equal(backoffMs(3, p, 0, () => 1), 4000);
    assert.equal(backoffMs(3, p, 0, () => 0), 2000);
    assert.equal(backoffMs(20, p, 0, () => 1), 10_000);
    assert.equal(backoffMs(1, p, 30_000, () => 1), 30_000);
  });
});

describe('batch planning', () => {
  const m = (id: number, session: number, kind: 'observation' | 'summary', created: number, next = 0): JobMeta => ({ id, session_id: session, kind, attempts: 0, next_attempt_at: next, created_at: created });
  const base = { inFlight: new Set<number>(), deferred: new Map<number, number>(), maxUses: 3, maxAgeMs: 1000, now: 10_000 };

  it('batches by count, holds a young partial batch, and wakes when it comes of age', () => {
    const pending = [1, 2, 3, 4].map((i) => m(i, 1, 'observation', 9_500 + i));
    const p = plan({ ...base, pending });
    assert.deepEqual(p.units.map((u) => (u.kind === 'observe' ? u.jobs.map((j) => j.id) : [])), [[1, 2, 3]]);
    assert.equal(p.wakeAt, 9_504 + 1000);
  });

  it('sends an old partial batch, keeps sessions apart', () => {
    const p = plan({ ...base, pending: [m(1, 1, 'observation', 8_000), m(2, 2, 'observation', 9_999)] });
    assert.deepEqual(p.units.map((u) => u.sessionId), [1]);
  });

  it('flushes a partial batch when a summary is queued, and runs the summary after it', () => {
    const pending = [m(1, 1, 'observation', 9_999), m(2, 1, 'summary', 9_999)];
    const p = plan({ ...base, pending });
    assert.deepEqual(p.units.map((u) => u.kind), ['observe']);
    const after = plan({ ...base, pending: [m(2, 1, 'summary', 9_999)] });
    assert.deepEqual(after.units.map((u) => u.kind), ['summary']);
    const inFlight = plan({ ...base, inFlight: new Set([1]), pending });
    assert.deepEqual(inFlight.units, [], 'summary waits while the batch is in flight');
  });

  it('skips in-flight, backing-off and deferred jobs, waking for them', () => {
    const pending = [m(1, 1, 'observation', 0), m(2, 1, 'observation', 0, 12_000), m(3, 1, 'observation', 0)];
    const p = plan({ ...base, inFlight: new Set([1]), deferred: new Map([[3, 11_000]]), pending });
    assert.deepEqual(p.units, []);
    assert.equal(p.wakeAt, 11_000);
  });
});

describe('vscode bridge', () => {
  const req: ModelRequest = { purpose: 'observe', system: 'sys', prompt: 'prompt', maxOutputTokens: 100 };

  it('hands a call to a polling window and resolves with its result', async () => {
    const b = new VscodeBridge({ timeoutMs: 5000 });
    assert.equal(b.unavailable()?.reason, 'no_window');
    const poll = b.poll('w1', { waitMs: 5000, max: 1 });
    assert.equal(b.unavailable(), undefined, 'a window with an open poll is connected');
    const call = b.complete(req);
    const [j] = await poll;
    assert.deepEqual([j.system, j.prompt, j.purpose], ['sys', 'prompt', 'observe']);
    assert.equal(b.result({ windowId: 'w2', id: j.id, text: 'x' }), false, 'only the window that took it may answer');
    assert.equal(b.result({ windowId: 'w1', id: j.id, text: '<skip/>', outputTokens: 3 }), true);
    const r = await call;
    assert.equal(r.text, '<skip/>');
    assert.ok(r.inputTokens > 0, 'estimated when the window does not count');
    assert.equal(b.result({ windowId: 'w1', id: j.id, text: 'again' }), false);
  });

  it('maps window errors onto pause and retry', async () => {
    const b = new VscodeBridge({ timeoutMs: 5000 });
    for (const [kind, expect] of [['auth', 'pause'], ['quota', 'pause'], ['not_found', 'pause'], ['rate_limit', 'retry'], ['other', 'retry']] as const) {
      const call = b.complete(req);
      const [j] = await b.poll('w', { waitMs: 0, max: 1 });
      b.result({ windowId: 'w', id: j.id, error: { kind, message: 'm' } });
      await assert.rejects(call, (e: unknown) => e instanceof ProviderError && e.kind === expect);
    }
  });

  it('gives back the work of a window that leaves', async () => {
    const b = new VscodeBridge({ timeoutMs: 5000 });
    const call = b.complete(req);
    const [j] = await b.poll('w1', { waitMs: 0, max: 1 });
    const other = b.poll('w2', { waitMs: 5000, max: 1 });
    assert.equal(b.leave('w1'), 1);
    const [again] = await other;
    assert.equal(again.id, j.id, 'offered to the remaining window');
    assert.equal(b.leave('w2'), 1);
    await assert.rejects(call, (e: unknown) => e instanceof NotNow, 'no window left: the queue waits, uncounted');
  });

  it('times out a call nobody answers', async () => {
    const b = new VscodeBridge({ timeoutMs: 50 });
    const untaken = b.complete(req);
    await assert.rejects(untaken, (e: unknown) => e instanceof NotNow);
    const taken = b.complete(req);
    await b.poll('w', { waitMs: 0, max: 1 });
    await assert.rejects(taken, (e: unknown) => e instanceof ProviderError && e.kind === 'retry');
  });

  it('ends a poll on abort and when the wait runs out', async () => {
    const b = new VscodeBridge({ timeoutMs: 5000 });
    const ac = new AbortController();
    const p = b.poll('w', { waitMs: 60_000, max: 1, signal: ac.signal });
    ac.abort();
    assert.deepEqual(await p, []);
    assert.deepEqual(await b.poll('w', { waitMs: 10, max: 1 }), []);
  });
});

describe('agent wire validation', () => {
  it('accepts a text or an error, never both or neither', () => {
    assert.deepEqual(parseAgentResult({ windowId: 'w', id: 'j', text: 'hi', inputTokens: 5 }), { windowId: 'w', id: 'j', text: 'hi', error: undefined, inputTokens: 5, outputTokens: undefined, model: undefined });
    assert.throws(() => parseAgentResult({ windowId: 'w', id: 'j' }), /exactly one/);
    assert.throws(() => parseAgentResult({ windowId: 'w', id: 'j', text: 'a', error: { kind: 'auth', message: '' } }), /exactly one/);
    assert.throws(() => parseAgentResult({ windowId: 'w', id: 'j', error: { kind: 'boom', message: '' } }), /error.kind/);
    assert.throws(() => parseAgentResult({ windowId: 'w', id: 'j', text: 'a', inputTokens: -1 }), /non-negative/);
  });
});
