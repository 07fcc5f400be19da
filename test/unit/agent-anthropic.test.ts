// The Anthropic backend through the real SDK against the loopback fake: replies, usage, and how
// each kind of failure is classified (retry, pause, fail).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnthropicBackend, DEFAULT_MODEL } from '../../worker/compression/anthropic';
import { ProviderError } from '../../worker/compression/model';
import { delay, httpError, raw, startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';

describe('anthropic backend', () => {
  let fake: FakeAnthropic;
  let key: string | undefined = 'k';
  const backend = () => new AnthropicBackend({ apiKey: () => key, baseURL: fake.url, model: DEFAULT_MODEL, timeoutMs: 1500 });
  const req = { purpose: 'observe' as const, system: 'sys', prompt: 'hello', maxOutputTokens: 100 };
  const failure = async (b: AnthropicBackend): Promise<ProviderError> => {
    try {
      await b.complete(req);
    } catch (e) {
      assert.ok(e instanceof ProviderError, String(e));
      return e;
    }
    throw new Error('expected a failure');
  };

  before(async () => {
    fake = await startFakeAnthropic();
  });
  after(async () => {
    await fake.close();
  });

  it('sends system, prompt and model with a bearer key; returns text and usage', async () => {
    fake.setScript(() => text('<skip/>'));
    const r = await backend().complete(req);
    assert.equal(r.text, '<skip/>');
    assert.ok(r.inputTokens > 0 && r.outputTokens > 0);
    const last = fake.requests[fake.requests.length - 1];
    assert.equal(last.headers.authorization, 'Bearer k');
    const body = last.body as { model: string; system: string; max_tokens: number; messages: { content: string }[] };
    assert.deepEqual([body.model, body.system, body.max_tokens, body.messages[0].content], [DEFAULT_MODEL, 'sys', 100, 'hello']);
  });

  it('classifies failures: 429/5xx/timeout retry (with retry-after), 401/403/402/404 pause, 400 fails', async () => {
    const cases: [ReturnType<typeof httpError>, string, string | undefined][] = [
      [httpError(429, { retryAfter: 7 }), 'retry', undefined],
      [httpError(500), 'retry', undefined],
      [httpError(529), 'retry', undefined],
      [httpError(401), 'pause', 'auth'],
      [httpError(403), 'pause', 'auth'],
      [httpError(402, { type: 'billing_error', message: 'credit balance too low' }), 'pause', 'quota'],
      [httpError(400, { message: 'Your credit balance is too low to access the Anthropic API.' }), 'pause', 'quota'],
      [httpError(404, { message: 'model: nope' }), 'pause', 'config'],
      [httpError(400, { message: 'messages: bad' }), 'fail', undefined],
    ];
    for (const [reply, kind, pause] of cases) {
      fake.setScript(() => reply);
      const e = await failure(backend());
      assert.equal(e.kind, kind, `${JSON.stringify(reply)}: ${e.message}`);
      assert.equal(e.opts.pause, pause);
    }
    fake.setScript(() => httpError(429, { retryAfter: 7 }));
    assert.equal((await failure(backend())).opts.retryAfterMs, 7000);
    fake.setScript(() => delay(5000, text('late')));
    const slow = await failure(backend());
    assert.equal(slow.kind, 'retry');
    assert.match(slow.message, /timeout/);
    fake.setScript(() => raw('not json at all', 200, { 'content-type': 'application/json' }));
    assert.equal((await failure(backend())).kind, 'retry');
  });

  it('needs a key', async () => {
    key = undefined;
    const b = backend();
    assert.equal(b.unavailable()?.reason, 'no_key');
    assert.equal((await failure(b)).kind, 'pause');
    key = 'k';
    assert.equal(b.unavailable(), undefined);
  });

  it('reports a network error as retryable', async () => {
    const b = new AnthropicBackend({ apiKey: () => 'k', baseURL: 'http://127.0.0.1:9', model: DEFAULT_MODEL, timeoutMs: 2000 });
    const e = await failure(b);
    assert.equal(e.kind, 'retry');
    assert.match(e.message, /network|connect/i);
  });
});
