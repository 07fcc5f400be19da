// The chat model's rerank of the best search hits (extension/chat/modelRerank.ts), in @memory and in
// memory_search, with scripted models: reorders, never loses a hit, keeps the search order on
// failure or an answer without ids, and sends only the top 20.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handleChat, type ChatModelPort, type ChatMsg } from '../../extension/chat/handler';
import { RERANK_TOP, rerankHits } from '../../extension/chat/modelRerank';
import type { MemoryApi, SearchHit } from '../../extension/core/memoryApi';
import { searchTool } from '../../extension/tools/search';

const hit = (id: number, kind = 'observation'): SearchHit => ({ id, kind, type: 'change', title: `memory ${id}` });
const never = { isCancellationRequested: false };

function model(answer: string | Error, seen: ChatMsg[][] = []): ChatModelPort {
  return {
    name: 'scripted',
    async send(messages) {
      seen.push(messages);
      if (answer instanceof Error) throw answer;
      return (async function* () {
        yield answer.slice(0, 3);
        yield answer.slice(3);
      })();
    },
  };
}

describe('rerank by the chat model', () => {
  it('puts the ids the model names first, in its order, and keeps every other hit after them', async () => {
    const hits = [hit(1), hit(2), hit(3, 'summary'), hit(4)];
    const r = await rerankHits('q', hits, model('#4, summary:3 and #99 (unknown) #4 again'), never);
    assert.deepEqual(r.map((h) => `${h.kind}:${h.id}`), ['observation:4', 'summary:3', 'observation:1', 'observation:2']);
  });

  it('keeps the search order when the model fails or names nothing', async () => {
    const hits = [hit(1), hit(2), hit(3)];
    assert.equal(await rerankHits('q', hits, model(new Error('no consent')), never), hits);
    assert.equal(await rerankHits('q', hits, model('I cannot tell.'), never), hits);
    assert.equal(await rerankHits('q', [hit(1)], model('#1'), never).then((r) => r.length), 1);
  });

  it('sends only the top 20 rows; the rest follow unchanged', async () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(i + 1));
    const seen: ChatMsg[][] = [];
    const r = await rerankHits('why is the page slow', hits, model('#20 #2', seen), never);
    const prompt = seen[0][0].text;
    assert.match(prompt, /Question: why is the page slow/);
    assert.ok(prompt.includes('#20 [change] memory 20') && !prompt.includes('#21 '), 'top 20 only');
    assert.deepEqual(r.slice(0, 3).map((h) => h.id), [20, 2, 1]);
    assert.deepEqual(r.slice(RERANK_TOP).map((h) => h.id), hits.slice(RERANK_TOP).map((h) => h.id));
    assert.equal(r.length, 30);
  });

  it('@memory asks for 20 hits, reranks them and answers over the best maxResults', async () => {
    const limits: number[] = [];
    const api = {
      search: async (_q: string, o: { limit?: number }) => {
        limits.push(o.limit ?? 0);
        return { hits: Array.from({ length: o.limit ?? 0 }, (_, i) => hit(i + 1)), hasMore: false };
      },
      get: async (ids: number[]) => ids.map((id) => ({ id, title: `memory ${id}`, type: 'change', narrative: '', facts: [], concepts: [], filesRead: [], filesModified: [], createdAt: 0 })),
    } as unknown as MemoryApi;
    const seen: ChatMsg[][] = [];
    const m = model('#17 #3', seen);
    const deps = { api, project: () => 'p', session: { prompt: () => undefined, chatTurn: () => undefined }, context: async () => '', maxResults: 5, rerank: true };
    const out = { markdown: () => undefined, progress: () => undefined };
    const r = await handleChat({ prompt: 'why is the list slow', history: [] }, m, out, deps, never);
    assert.deepEqual(limits, [20]);
    assert.match(seen[0][0].text, /^Rank stored memories/);
    assert.ok(r.metadata.ids.length > 0);
    // Without rerank: one model request, maxResults asked.
    seen.length = 0;
    limits.length = 0;
    await handleChat({ prompt: 'why is the list slow', history: [] }, m, out, { ...deps, rerank: false }, never);
    assert.deepEqual(limits, [5]);
    assert.equal(seen.length, 1);
  });

  it('memory_search uses the rerank it is given and returns its limit', async () => {
    const api = { search: async (_q: string, o: { limit?: number }) => ({ hits: Array.from({ length: o.limit ?? 0 }, (_, i) => hit(i + 1)), hasMore: false }) } as unknown as MemoryApi;
    const text = await searchTool.run(searchTool.parse({ query: 'slow list', limit: 3 }), {
      api,
      project: () => 'p',
      context: async () => '',
      rerank: async (_q, hits) => [...hits].reverse(),
    });
    assert.match(text, /^3 result\(s\)/);
    assert.ok(text.indexOf('#20') >= 0 && text.indexOf('#20') < text.indexOf('#19'), text);
  });
});
