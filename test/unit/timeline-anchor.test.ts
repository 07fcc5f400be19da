// A timeline centred on a search hit is centred on that record, whatever its kind: a prompt or a
// summary found by `@memory /timeline <words>` or get_memory_timeline's `query` anchors on P<id> or
// S<id>, never on the observation that happens to share its number.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { handleChat } from '../../extension/chat/handler';
import type { MemoryApi, SearchHit } from '../../extension/core/memoryApi';
import { timelineTool } from '../../extension/tools/timeline';

const never = { isCancellationRequested: false };

function api(top: SearchHit, anchors: string[]): MemoryApi {
  return {
    search: async () => ({ hits: [top], hasMore: false }),
    timeline: async (anchor: string) => {
      anchors.push(anchor);
      return { hits: [top] };
    },
  } as unknown as MemoryApi;
}

const hits: [string, SearchHit, string][] = [
  ['prompt', { id: 7, kind: 'prompt', type: 'prompt', title: 'move the cache' }, 'P7'],
  ['summary', { id: 7, kind: 'summary', type: 'summary', title: 'moved the cache' }, 'S7'],
  ['observation', { id: 7, kind: 'observation', type: 'change', title: 'Moved the cache' }, '7'],
];

describe('a timeline anchored on a search hit', () => {
  for (const [kind, top, want] of hits) {
    it(`get_memory_timeline with a query whose best hit is a ${kind} anchors on ${want}`, async () => {
      const anchors: string[] = [];
      const deps = { api: api(top, anchors), project: () => 'p', context: async () => '' };
      await timelineTool.run(timelineTool.parse({ query: 'the cache' }), deps);
      assert.deepEqual(anchors, [want]);
    });

    it(`@memory /timeline <words> whose best hit is a ${kind} anchors on ${want}`, async () => {
      const anchors: string[] = [];
      const deps = { api: api(top, anchors), project: () => 'p', session: { prompt: () => undefined, chatTurn: () => undefined }, context: async () => '', maxResults: 5 };
      await handleChat({ prompt: 'the cache', command: 'timeline', history: [] }, undefined, { markdown: () => undefined, progress: () => undefined }, deps, never);
      assert.deepEqual(anchors, [want]);
    });
  }

  it('@memory /timeline P7 is an anchor as it is, not words to search for', async () => {
    const anchors: string[] = [];
    const deps = { api: api(hits[2][1], anchors), project: () => 'p', session: { prompt: () => undefined, chatTurn: () => undefined }, context: async () => '', maxResults: 5 };
    await handleChat({ prompt: 'P7', command: 'timeline', history: [] }, undefined, { markdown: () => undefined, progress: () => undefined }, deps, never);
    assert.deepEqual(anchors, ['P7']);
  });
});
