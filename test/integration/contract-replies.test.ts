// The worker's real replies pass the contract's strict parsers (common/contract/replies.ts), which
// every client uses: a field renamed or retyped on the worker side fails here, not in a client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ContractError,
  parseContextInject,
  parseObservation,
  parseObservationList,
  parseObservationsBatch,
  parseSaveMemoryResponse,
  parseSearchResponse,
  parseSessionList,
  parseTimelineResponse,
} from '../../common/contract';
import { readHistory } from '../fixtures/search/load';
import { startWorker, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
let ids: number[] = [];
const ok = async (method: string, p: string, body?: unknown) => {
  const r = await w.req(method, p, body);
  assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as unknown;
};

before(async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
  await ok('POST', '/api/import', readHistory());
  const saved = parseSaveMemoryResponse(await ok('POST', '/api/memory/save', { text: 'The contract test saves one memory by hand', project: 'contract' }));
  ids = parseObservationList(await ok('GET', '/api/observations?limit=5')).items.map((o) => o.id);
  assert.ok(ids.includes(saved.id));
});
after(async () => {
  await w.stop();
});

describe('contract: the worker replies as declared', () => {
  it('observations: list, one, batch', async () => {
    const list = parseObservationList(await ok('GET', '/api/observations?limit=50'));
    assert.ok(list.items.length > 0);
    assert.equal(parseObservation(await ok('GET', `/api/observation/${ids[0]}`)).id, ids[0]);
    const batch = parseObservationsBatch(await ok('POST', '/api/observations/batch', { ids: [ids[0], 999999] }));
    assert.deepEqual([batch.items.map((o) => o.id), batch.missing], [[ids[0]], [999999]]);
  });

  it('sessions', async () => {
    assert.ok(parseSessionList(await ok('GET', '/api/sessions')).items.length > 0);
  });

  it('search (with snippets, browsing, every kind) and timeline', async () => {
    const s = parseSearchResponse(await ok('GET', '/api/search?query=fixed&mode=keyword&limit=30'));
    assert.ok(s.items.length > 0 && s.items[0].snippet);
    const browse = parseSearchResponse(await ok('GET', '/api/search?kind=observation,summary,prompt&limit=50'));
    assert.equal(browse.modeUsed, 'browse');
    assert.deepEqual(new Set(browse.items.map((i) => i.kind)).size > 1, true);
    const t = parseTimelineResponse(await ok('GET', `/api/timeline?anchor=${s.items[0].id}&depth_before=3&depth_after=3`));
    assert.ok(t.items.some((i) => i.anchor === true));
  });

  it('context injection, markdown and JSON', async () => {
    assert.equal(typeof parseContextInject(await ok('GET', '/api/context/inject?project=contract')), 'string');
    const json = parseContextInject(await ok('GET', '/api/context/inject?project=contract&format=json'));
    assert.ok(typeof json === 'object' && json.markdown.length > 0);
  });

  it('a reply that does not match fails loudly, naming the route and the field', () => {
    assert.throws(
      () => parseSearchResponse({ query: 'x', mode: 'keyword', modeUsed: 'keyword', items: [{ id: '5' }], limit: 1, offset: 0, hasMore: false, tookMs: 1 }),
      (e: unknown) => e instanceof ContractError && /GET \/api\/search.*items\[0\]/.test(e.message),
    );
    assert.throws(() => parseObservationList({ results: [] }), ContractError);
  });
});
