// A record is named one way to a reader (`#123`, `S12`, `P7`) and one way on the wire (`123`,
// `S12`, `P7`): common/contract/refs.ts, used by the context, the tools, the CLI and the panel.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordRef, refFromRoute, routeRef } from '../../common/contract';
import { rerankHits, rerankPrompt } from '../../extension/chat/modelRerank';
import { ref } from '../../extension/core/format';
import { idOf } from '../../cli/format';
import type { SearchHit } from '../../extension/core/memoryApi';

describe('record references', () => {
  it('a reader sees #id for an observation, S and P for a summary and a prompt', () => {
    assert.deepEqual([recordRef('observation', 123), recordRef('summary', 12), recordRef('prompt', '7')], ['#123', 'S12', 'P7']);
    assert.equal(recordRef('something-else', 4), '#4');
  });

  it('a route spells an observation without the #, and its ref reads back as a reader sees it', () => {
    assert.deepEqual([routeRef('observation', 123), routeRef('summary', 12), routeRef('prompt', 7)], ['123', 'S12', 'P7']);
    for (const kind of ['observation', 'summary', 'prompt'] as const) assert.equal(refFromRoute(routeRef(kind, 9)), recordRef(kind, 9));
  });

  it('the extension and the CLI format through it', () => {
    assert.deepEqual(['observation', 'summary', 'prompt'].map((kind) => ref({ kind, id: 5 })), ['#5', 'S5', 'P5']);
    assert.deepEqual(['5', 'S5', 'P5'].map((r) => idOf({ ref: r })), ['#5', 'S5', 'P5']);
  });

  it("the chat model's rerank shows and reads the same references", async () => {
    const hit = (kind: string, id: number): SearchHit => ({ kind, id, type: kind, title: `${kind} ${id}`, time: '', score: 1 }) as SearchHit;
    const hits = [hit('observation', 1), hit('summary', 3), hit('prompt', 4)];
    const prompt = rerankPrompt('q', hits);
    assert.ok(prompt.includes('#1 [observation]') && prompt.includes('S3 [summary]') && prompt.includes('P4 [prompt]'), prompt);
    const model = (answer: string) => ({ send: async () => (async function* () { yield answer; })() });
    const never = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
    const r = await rerankHits('q', hits, model('P4 S3') as never, never as never);
    assert.deepEqual(r.map((h) => recordRef(h.kind, h.id)), ['P4', 'S3', '#1']);
  });
});
