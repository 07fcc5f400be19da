// Remote (OpenAI-compatible) embedder against a loopback fake server, and the LRU cache wrapper.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cachedEmbedder } from '../../worker/search/embed/cache';
import { createRemoteEmbedder, embeddingsEndpoint } from '../../worker/search/embed/remote';
import type { Embedder } from '../../worker/search/embed/types';

interface Seen {
  url: string;
  auth?: string;
  body: { model?: string; input: string[] };
}

const seen: Seen[] = [];
let mode: 'ok' | 'error' | 'short' = 'ok';
let base = '';
const server = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c: Buffer) => (raw += c.toString()));
  req.on('end', () => {
    const body = JSON.parse(raw) as Seen['body'];
    seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
    if (mode === 'error') {
      res.writeHead(429, { 'content-type': 'application/json' });
      return res.end('{"error":{"message":"rate limited"}}');
    }
    // Rows come back in reverse index order: the client must sort by `index`.
    const rows = body.input.map((t, index) => ({ object: 'embedding', index, embedding: [t.length, index, 0.5] }));
    if (mode === 'short') rows.pop();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: rows.reverse(), model: body.model ?? 'x' }));
  });
});

before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('endpoint: base URL, /v1 or the full path', () => {
  assert.equal(embeddingsEndpoint('http://h:1'), 'http://h:1/v1/embeddings');
  assert.equal(embeddingsEndpoint('http://h:1/'), 'http://h:1/v1/embeddings');
  assert.equal(embeddingsEndpoint('http://h:1/v1/'), 'http://h:1/v1/embeddings');
  assert.equal(embeddingsEndpoint('http://h:1/api/v1/embeddings'), 'http://h:1/api/v1/embeddings');
});

test('posts batches with model and key, keeps input order', async () => {
  seen.length = 0;
  mode = 'ok';
  const e = createRemoteEmbedder({ url: base, apiKey: 'sk-test-123', model: 'nomic-embed-text', batchSize: 2 });
  const out = await e.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee']);
  assert.deepEqual(
    out.map((v) => [...v]),
    [
      [1, 0, 0.5],
      [2, 1, 0.5],
      [3, 0, 0.5],
      [4, 1, 0.5],
      [5, 0, 0.5],
    ],
  );
  assert.equal(seen.length, 3);
  assert.deepEqual(
    seen.map((s) => s.body.input),
    [['a', 'bb'], ['ccc', 'dddd'], ['eeeee']],
  );
  assert.ok(seen.every((s) => s.url === '/v1/embeddings' && s.auth === 'Bearer sk-test-123' && s.body.model === 'nomic-embed-text'));
  assert.match(e.name, /^remote:nomic-embed-text@127\.0\.0\.1:\d+$/);
  assert.deepEqual(await e.embed([]), []);
});

test('no key, no model: neither is sent', async () => {
  seen.length = 0;
  mode = 'ok';
  await createRemoteEmbedder({ url: `${base}/v1` }).embed(['x']);
  assert.equal(seen[0].auth, undefined);
  assert.equal('model' in seen[0].body, false);
});

test('HTTP errors carry status and body but never the key', async () => {
  mode = 'error';
  const e = createRemoteEmbedder({ url: base, apiKey: 'sk-secret-999' });
  await assert.rejects(e.embed(['x']), (err: Error) => {
    assert.match(err.message, /answered 429: .*rate limited/);
    assert.doesNotMatch(err.message, /sk-secret-999/);
    return true;
  });
});

test('wrong count, wrong dims and unreachable servers are errors', async () => {
  mode = 'short';
  await assert.rejects(createRemoteEmbedder({ url: base }).embed(['x', 'y']), /expected 2 embeddings, got 1/);
  mode = 'ok';
  await assert.rejects(createRemoteEmbedder({ url: base, dims: 768 }).embed(['x']), /got 3 dimensions, expected 768/);
  await assert.rejects(createRemoteEmbedder({ url: 'http://127.0.0.1:9', timeoutMs: 2000 }).embed(['x']), /unreachable/);
});

/** Vectors [n] for text `n`, counting what reaches it. */
function countingEmbedder(): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'fake',
    calls,
    async embed(texts) {
      calls.push(texts);
      return texts.map((t) => Float32Array.of(Number(t)));
    },
    async close() {},
  };
}

test('cache: hits skip the embedder, duplicates are embedded once, least recently used goes first', async () => {
  const inner = countingEmbedder();
  const c = cachedEmbedder(inner, 2);
  assert.deepEqual(
    (await c.embed(['1', '2', '1'])).map((v) => v[0]),
    [1, 2, 1],
  );
  assert.deepEqual(inner.calls, [['1', '2']]);
  await c.embed(['1']); // 1 is now the most recent
  await c.embed(['3']); // evicts 2
  inner.calls.length = 0;
  await c.embed(['1', '3']);
  assert.deepEqual(inner.calls, []);
  await c.embed(['2']);
  assert.deepEqual(inner.calls, [['2']]);
  assert.equal(c.name, 'fake');
});

test('cache: callers get copies, the cached vector stays intact', async () => {
  const c = cachedEmbedder(countingEmbedder(), 4);
  const [a] = await c.embed(['5']);
  a[0] = 99;
  assert.equal((await c.embed(['5']))[0][0], 5);
});

test('cache: more distinct texts in one call than the cache holds', async () => {
  const c = cachedEmbedder(countingEmbedder(), 2);
  await c.embed(['1', '2']);
  assert.deepEqual(
    (await c.embed(['1', '2', '3', '4', '1'])).map((v) => v[0]),
    [1, 2, 3, 4, 1],
  );
});
