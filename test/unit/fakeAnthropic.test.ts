// Proves the fake Anthropic server speaks the wire format the official SDK
// expects, so tests built on it exercise real client code paths.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { delay, httpError, raw, sequence, startFakeAnthropic, text, toolUse, type FakeAnthropic, type FakeOptions, type Script } from '../helpers/fakeAnthropic';

const MODEL = 'claude-haiku-4-5';
const ask = (content: string) => ({ model: MODEL, max_tokens: 256, messages: [{ role: 'user' as const, content }] });

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(script?: Script, opts?: FakeOptions, client: ConstructorParameters<typeof Anthropic>[0] = {}) {
  fake = await startFakeAnthropic(script, opts);
  return { fake, client: new Anthropic({ apiKey: 'sk-test', baseURL: fake.url, ...client }) };
}

test('non-streaming create returns the scripted text with usage', async () => {
  const { fake, client } = await setup(() => text('hello there'));
  const msg = await client.messages.create({ ...ask('hi'), system: 'be brief' });
  assert.equal(msg.role, 'assistant');
  assert.equal(msg.stop_reason, 'end_turn');
  assert.deepEqual(msg.content.map((b) => (b.type === 'text' ? b.text : b.type)), ['hello there']);
  assert.ok(msg.usage.input_tokens > 0);
  assert.equal(msg.usage.input_tokens, fake.requests[0].inputTokens);
  assert.equal(fake.inputTokens, msg.usage.input_tokens);
  assert.equal(fake.requests[0].path, '/v1/messages');
  // SDK 1.x sends the API key as a bearer token; Claude Code uses x-api-key.
  assert.equal(fake.requests[0].headers.authorization, 'Bearer sk-test');
});

test('messages.stream accumulates text deltas', async () => {
  const { client } = await setup(() => text('streamed answer in pieces'));
  const seen: string[] = [];
  const stream = client.messages.stream(ask('hi')).on('text', (t) => seen.push(t));
  const msg = await stream.finalMessage();
  assert.ok(seen.length > 1, 'text arrived in several deltas');
  assert.equal(seen.join(''), 'streamed answer in pieces');
  assert.equal(msg.stop_reason, 'end_turn');
  assert.ok(msg.usage.input_tokens > 0 && msg.usage.output_tokens > 0);
});

test('streamed tool_use arrives with parsed input via input_json_delta', async () => {
  const input = { file_path: '/tmp/x.ts', offset: 3 };
  const { fake, client } = await setup(() => toolUse('Read', input, 'toolu_1'));
  const msg = await client.messages.stream({ ...ask('read it'), tools: [{ name: 'Read', input_schema: { type: 'object' } }] }).finalMessage();
  assert.equal(msg.stop_reason, 'tool_use');
  assert.deepEqual(msg.content, [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input }]);
  assert.equal((fake.requests[0].body as { stream?: boolean }).stream, true);
});

test('?beta=true (as Claude Code sends it) is answered the same', async () => {
  const { fake, client } = await setup(() => text('beta ok'));
  const msg = await client.messages.stream(ask('hi'), { query: { beta: 'true' } }).finalMessage();
  assert.equal(msg.content[0].type === 'text' && msg.content[0].text, 'beta ok');
  assert.equal(fake.requests[0].url, '/v1/messages?beta=true');
  assert.equal(fake.requests[0].path, '/v1/messages');
});

test('429 then success: the SDK retries and succeeds', async () => {
  // retry-after-ms keeps the SDK's backoff short.
  const script = sequence(httpError(429, { message: 'slow down', headers: { 'retry-after-ms': '10' } }), text('after retry'));
  const { fake, client } = await setup(script, {}, { maxRetries: 2 });
  const msg = await client.messages.create(ask('hi'));
  assert.equal(msg.content[0].type === 'text' && msg.content[0].text, 'after retry');
  assert.equal(fake.requests.length, 2);
  assert.equal(fake.requests[1].headers['x-stainless-retry-count'], '1');
});

test('429 with retry-after header surfaces as RateLimitError once retries run out', async () => {
  const { fake, client } = await setup(() => httpError(429, { message: 'slow down', retryAfter: 0 }), {}, { maxRetries: 0 });
  await assert.rejects(client.messages.create(ask('hi')), (e: unknown) => {
    assert.ok(e instanceof Anthropic.RateLimitError);
    assert.equal(e.headers?.get('retry-after'), '0');
    return true;
  });
  assert.equal(fake.requests.length, 1);
});

test('wrong API key gets a 401 AuthenticationError, not retried', async () => {
  const { fake, client } = await setup(() => text('never'), { apiKey: 'sk-right' });
  await assert.rejects(client.messages.create(ask('hi')), (e: unknown) => {
    assert.ok(e instanceof Anthropic.AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.type, 'authentication_error');
    return true;
  });
  assert.equal(fake.requests.length, 1);
});

test('x-api-key is accepted as auth, and checked', async () => {
  const { fake } = await setup(() => text('key ok'), { apiKey: 'tok' });
  const post = (key: string) =>
    fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': key }, body: JSON.stringify(ask('hi')) });
  const ok = await post('tok');
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as { content: Array<{ text: string }> }).content[0].text, 'key ok');
  assert.equal((await post('nope')).status, 401);
  assert.equal(fake.requests[0].headers['x-api-key'], 'tok');
});

test('a delayed reply trips the client timeout', async () => {
  const { client } = await setup(() => delay(5_000, text('too late')), {}, { timeout: 200, maxRetries: 0 });
  await assert.rejects(client.messages.create(ask('hi')), Anthropic.APIConnectionTimeoutError);
});

test('raw bodies pass through untouched', async () => {
  const { client } = await setup(() => raw('{"type":"error","error":{"type":"overloaded_error","message":"busy"}}', 529), {}, { maxRetries: 0 });
  await assert.rejects(client.messages.create(ask('hi')), (e: unknown) => e instanceof Anthropic.APIError && e.status === 529 && e.type === 'overloaded_error');
});

test('count_tokens, setScript, input token totals and bad requests', async () => {
  const { fake, client } = await setup();
  const counted = await client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'count me' }] });
  assert.ok(counted.input_tokens > 0);
  fake.setScript(({ index }) => text(`reply ${index}`));
  const a = await client.messages.create(ask('one'));
  const b = await client.messages.create(ask('two'));
  assert.equal(a.content[0].type === 'text' && a.content[0].text, 'reply 0');
  assert.equal(fake.inputTokens, a.usage.input_tokens + b.usage.input_tokens, 'count_tokens is not billed');
  const res = await fetch(`${fake.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{}' });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), { type: 'error', error: { type: 'invalid_request_error', message: 'model and messages are required' } });
});

test('startup probes get harmless answers; unknown routes a recorded 404', async () => {
  const { fake, client } = await setup();
  const models = await client.models.list();
  assert.ok(models.data.length > 0);
  assert.equal((await fetch(`${fake.url}/api/hello`)).status, 200);
  const missing = await fetch(`${fake.url}/v1/nope`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: { type: string } }).error.type, 'not_found_error');
  assert.deepEqual(fake.requests.map((r) => r.path), ['/v1/models', '/api/hello', '/v1/nope']);
});
