// Where a search's time goes (CLAUDE_MEM_SEARCH_STAGES=1): the search route sends each stage's
// milliseconds (and, after the priors' rows, how many of the keyword pool's hits had their priors
// taken), the GC pauses inside the request and the page cache's chunk reads as a Server-Timing
// header, with the same JSON body as without it; off by default (no header).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type RunningWorker } from '../helpers/worker';

const STAGES = ['params', 'parse', 'rank', 'priorRows', 'pool', 'priors', 'pageRows', 'snippets', 'freshness', 'labels', 'json', 'gc', 'gcs', 'chunkReads'];

let on: RunningWorker;
let off: RunningWorker;
before(async () => {
  [on, off] = await Promise.all([
    startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_SEARCH_STAGES: '1' } }),
    startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_SEARCH_STAGES: '' } }),
  ]);
  for (const w of [on, off]) {
    for (const text of ['the retry wrapper around the build cache', 'a flaky test in the build cache']) {
      const r = await w.req('POST', '/api/memory/save', { text, project: 'acme' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
  }
});
after(async () => {
  await Promise.all([on?.stop(), off?.stop()]);
});

async function search(w: RunningWorker, query: string): Promise<{ timing: string | null; body: { items: { id: number; snippet?: string; score: number }[]; tookMs: number } }> {
  const r = await fetch(`${w.url}/api/search?mode=keyword&project=acme&query=${encodeURIComponent(query)}`, { headers: { authorization: `Bearer ${w.token}` } });
  assert.equal(r.status, 200);
  return { timing: r.headers.get('server-timing'), body: await r.json() };
}

describe('search stages', () => {
  it('CLAUDE_MEM_SEARCH_STAGES=1 sends every stage as Server-Timing, in order, with the same results', async () => {
    const a = await search(on, 'build cache');
    assert.ok(a.timing, 'a Server-Timing header');
    const marks = a.timing.split(', ').map((m) => /^(\w+);dur=(\d+\.\d\d)$/.exec(m));
    assert.ok(marks.every((m) => m !== null), a.timing);
    assert.deepEqual(marks.map((m) => m?.[1]), STAGES);
    const b = await search(off, 'build cache');
    assert.equal(a.body.items.length, 2);
    assert.deepEqual(a.body.items.map((i) => [i.snippet, i.score]), b.body.items.map((i) => [i.snippet, i.score]));
  });

  it('is off by default: no Server-Timing header', async () => {
    assert.equal((await search(off, 'retry')).timing, null);
  });
});
