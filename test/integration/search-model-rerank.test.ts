// The worker's model rerank of search results (GET /api/search?rerank=model, what MCP search_memory
// asks for): with the anthropic provider (the fake server on loopback) the best rows are reordered
// as the model answers, in one small call with capped output; with the model down, or no model (the
// local provider), the plain order comes back with no error. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { allText, httpError, startFakeAnthropic, text, type FakeAnthropic, type MessagesBody, type Reply } from '../helpers/fakeAnthropic';
import { startWorker, tempDir, type RunningWorker } from '../helpers/worker';

const cleanup: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

async function worker(provider: 'anthropic' | 'local', fake?: FakeAnthropic): Promise<RunningWorker> {
  const dataDir = tempDir('cmem-rerank-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 1, agentTimeoutMs: 5000, dailyTokenBudget: 0 }));
  const w = await startWorker({ dataDir, env: { ANTHROPIC_API_KEY: provider === 'anthropic' ? 'test-key' : '', ...(fake ? { ANTHROPIC_BASE_URL: fake.url } : {}), CLAUDE_MEM_PROVIDER: provider, CLAUDE_MEM_EMBEDDINGS: 'off' } });
  cleanup.push(() => w.kill());
  return w;
}

const NOTES = [
  ['checkout retries', 'The checkout client retries a declined card twice before giving up on the checkout.'],
  ['checkout flaky test', 'The checkout test was flaky because the fixture clock assumed UTC in checkout.'],
  ['checkout pagination', 'The checkout history page uses keyset pagination since offset paging was slow for checkout.'],
];

async function seed(w: RunningWorker): Promise<void> {
  for (const [title, body] of NOTES) {
    const r = await w.req('POST', '/api/memory/save', { project: 'rr', title, text: body });
    assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
  }
}

interface Row {
  id: number;
  title: string;
}
const search = async (w: RunningWorker, extra = '') => (await w.req('GET', `/api/search?project=rr&mode=keyword&query=checkout&limit=3${extra}`)) as { status: number; body: { items: Row[]; rerank?: string; error?: string; hasMore: boolean } };
const isRerank = (body: MessagesBody) => /Rank stored memories/.test(allText(body));

/** The model's answer: the ids it was shown, last first. */
function reversed({ body }: { body: MessagesBody }): Reply {
  const ids = [...allText(body).matchAll(/^(#\d+) \[/gm)].map((m) => m[1]);
  return text(ids.reverse().join(' '));
}

describe('search rerank by the worker\'s model', () => {
  it("reorders the best rows as the model answers, in one small call; without rerank=model the plain order", async () => {
    const fake = await startFakeAnthropic(reversed);
    cleanup.push(() => fake.close());
    const w = await worker('anthropic', fake);
    await seed(w);
    const plain = await search(w);
    assert.equal(plain.status, 200);
    assert.equal(plain.body.items.length, 3);
    assert.equal(plain.body.rerank, undefined);
    assert.equal(fake.requests.filter((r) => r.path === '/v1/messages' && isRerank(r.body as MessagesBody)).length, 0, 'no call without rerank=model');

    const r = await search(w, '&rerank=model');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.rerank, 'model');
    assert.deepEqual(r.body.items.map((x) => x.id), plain.body.items.map((x) => x.id).reverse(), 'the model\'s order');
    const calls = fake.requests.filter((x) => x.path === '/v1/messages' && isRerank(x.body as MessagesBody));
    assert.equal(calls.length, 1);
    const body = calls[0].body as MessagesBody & { max_tokens?: number };
    assert.ok((body.max_tokens ?? Infinity) <= 200, `output capped: ${body.max_tokens}`);
    assert.match(allText(body), /Question: checkout/);

    const bad = await search(w, '&rerank=maybe');
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.error), /rerank/);
  });

  it('model down: the plain order, no error', async () => {
    const fake = await startFakeAnthropic(() => httpError(500, { message: 'overloaded' }));
    cleanup.push(() => fake.close());
    const w = await worker('anthropic', fake);
    await seed(w);
    const r = await search(w, '&rerank=model');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.items.length, 3);
    assert.notEqual(r.body.rerank, 'model');
    assert.ok(fake.requests.some((x) => x.path === '/v1/messages'), 'the model was asked');
    const plain = await search(w);
    assert.deepEqual(r.body.items.map((x) => x.id), plain.body.items.map((x) => x.id));
  });

  it('no model (the local provider): the plain order, no call', async () => {
    const w = await worker('local');
    await seed(w);
    const r = await search(w, '&rerank=model');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.items.length, 3);
    assert.notEqual(r.body.rerank, 'model');
    assert.deepEqual(r.body.items.map((x) => x.id), (await search(w)).body.items.map((x) => x.id));
  });
});
