// The search routes over real HTTP against the bundled worker, loaded with the synthetic history
// through POST /api/import. Embeddings are off here (keyword only, and the fallback notice);
// search-semantic.test.ts covers the vector side. Every route: its filters and its bad inputs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allObservations, readHistory, type FixtureHistory } from '../fixtures/search/load';
import { startWorker, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
let h: FixtureHistory;
const obs = (key: string) => {
  const o = allObservations(h).find((x) => x.key === key);
  if (!o) throw new Error(`no fixture observation ${key}`);
  return o;
};
const get = (p: string) => w.req('GET', p);
const qs = (o: Record<string, string | number | undefined>) =>
  '?' + new URLSearchParams(Object.entries(o).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString();

before(async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
  h = readHistory();
  const r = await w.req('POST', '/api/import', h);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.imported.observations, allObservations(h).length);
  // Ids are assigned in import order, as the fixture says.
  const one = await get(`/api/observation/${obs('A1').id}`);
  assert.equal(one.body.title, obs('A1').title);
});
after(async () => {
  await w.stop();
});

describe('GET /api/search', () => {
  it('keyword: compact rows with snippets, best first', async () => {
    const r = await get('/api/search' + qs({ query: 'ECONNRESET payment', mode: 'keyword', project: 'atlas-api' }));
    assert.equal(r.status, 200);
    assert.equal(r.body.modeUsed, 'keyword');
    const top = r.body.items[0];
    assert.equal(top.id, obs('A5').id);
    assert.deepEqual(Object.keys(top).sort(), ['epoch', 'id', 'kind', 'platform', 'project', 'readTokens', 'ref', 'score', 'sessionId', 'snippet', 'time', 'title', 'type'].sort());
    assert.equal(typeof r.body.tookMs, 'number');
  });

  it('hybrid without embeddings answers keyword results with a notice', async () => {
    const r = await get('/api/search' + qs({ query: 'ECONNRESET' }));
    assert.equal(r.status, 200);
    assert.equal(r.body.mode, 'hybrid');
    assert.equal(r.body.modeUsed, 'keyword');
    assert.match(r.body.notice, /semantic search unavailable \(embeddings are off in settings\); showing keyword results/);
    assert.equal(r.body.items[0].id, obs('A5').id);
  });

  it('filters: project, type, kind, concepts, file, dateStart/dateEnd, limit/offset', async () => {
    const base = { query: 'fixed', mode: 'keyword', limit: 100 };
    const proj = await get('/api/search' + qs({ ...base, project: 'ledger-cli' }));
    assert.ok(proj.body.items.length > 0 && proj.body.items.every((i: { project: string }) => i.project === 'ledger-cli'));

    const typed = await get('/api/search' + qs({ ...base, type: 'bugfix,security_alert' }));
    assert.ok(typed.body.items.length > 0 && typed.body.items.every((i: { type: string; kind: string }) => ['bugfix', 'security_alert'].includes(i.type) && i.kind === 'observation'));

    const sums = await get('/api/search' + qs({ query: 'logged out', mode: 'keyword', type: 'sessions' }));
    assert.ok(sums.body.items.length > 0 && sums.body.items.every((i: { kind: string }) => i.kind === 'summary'));
    const prompts = await get('/api/search' + qs({ query: 'logged out', mode: 'keyword', kind: 'prompt' }));
    assert.ok(prompts.body.items.length > 0 && prompts.body.items.every((i: { kind: string; ref: string }) => i.kind === 'prompt' && i.ref.startsWith('P')));

    const gotchaIds = new Set(allObservations(h).filter((o) => o.concepts.includes('gotcha')).map((o) => o.id));
    const conc = await get('/api/search' + qs({ ...base, concepts: 'gotcha' }));
    assert.ok(conc.body.items.length > 0 && conc.body.items.every((i: { id: number }) => gotchaIds.has(i.id)));

    const file = await get('/api/search' + qs({ query: 'csv', mode: 'keyword', file: 'src/import/csv.rs' }));
    assert.ok(file.body.items.some((i: { id: number }) => i.id === obs('L3').id));
    assert.ok(file.body.items.every((i: { id: number }) => allObservations(h).find((o) => o.id === i.id)?.filesModified.concat(allObservations(h).find((o) => o.id === i.id)?.filesRead ?? []).some((f) => f.includes('src/import/csv.rs'))));

    const t = obs('A1').createdAt;
    const dated = await get('/api/search' + qs({ query: 'refresh', mode: 'keyword', kind: 'observation', dateStart: new Date(t).toISOString(), dateEnd: new Date(t).toISOString() }));
    assert.deepEqual(dated.body.items.map((i: { id: number }) => i.id), [obs('A1').id]);
    const byEpoch = await get('/api/search' + qs({ query: 'refresh', mode: 'keyword', kind: 'observation', dateEnd: String(t - 1) }));
    assert.ok(byEpoch.body.items.every((i: { epoch: number }) => i.epoch < t));

    const p1 = await get('/api/search' + qs({ query: 'src', mode: 'keyword', limit: 3 }));
    const p2 = await get('/api/search' + qs({ query: 'src', mode: 'keyword', limit: 3, offset: 3 }));
    const p12 = await get('/api/search' + qs({ query: 'src', mode: 'keyword', limit: 6 }));
    assert.equal(p1.body.hasMore, true);
    assert.deepEqual([...p1.body.items, ...p2.body.items].map((i: { ref: string; kind: string }) => i.kind + i.ref), p12.body.items.map((i: { ref: string; kind: string }) => i.kind + i.ref));
  });

  it('no query browses the filters newest first', async () => {
    const r = await get('/api/search' + qs({ project: 'infra-ops', type: 'decision' }));
    assert.equal(r.status, 200);
    assert.equal(r.body.modeUsed, 'browse');
    assert.ok(r.body.items.some((i: { id: number }) => i.id === obs('I2').id));
  });

  it('any query text is fine; malformed parameters are a 400 naming them', async () => {
    for (const q of ['"', 'NEAR(', 'title:x', 'a OR', '*', '-', '(((', "'; DROP TABLE observations; --", '\u0000', '🔥']) {
      const r = await get('/api/search' + qs({ query: q }));
      assert.equal(r.status, 200, `query ${JSON.stringify(q)}: ${JSON.stringify(r.body)}`);
      assert.ok(Array.isArray(r.body.items));
    }
    const bad: [Record<string, string>, RegExp][] = [
      [{ mode: 'fuzzy' }, /'mode'/],
      [{ limit: '0' }, /'limit'/],
      [{ limit: '501' }, /'limit'/],
      [{ limit: 'ten' }, /'limit'/],
      [{ offset: '-1' }, /'offset'/],
      [{ dateStart: 'yesterday' }, /'dateStart'/],
      [{ dateEnd: '2026-02-30' }, /'dateEnd'/],
      [{ dateStart: '2026-02-01', dateEnd: '2026-01-01' }, /before/],
      [{ type: 'Bug Fix!' }, /'type'/],
      [{ kind: 'files' }, /'kind'/],
      [{ kind: 'summary', type: 'bugfix' }, /observations only/],
      [{ project: 'x'.repeat(300) }, /'project'/],
      [{ query: 'x'.repeat(2001) }, /'query'/],
    ];
    for (const [params, msg] of bad) {
      const r = await get('/api/search' + qs({ query: 'refresh', ...params }));
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.match(r.body.error, msg);
    }
  });
});

describe('GET /api/timeline', () => {
  it('anchored on an observation id: before, the anchor, after, within its project', async () => {
    const a = obs('A12');
    const r = await get('/api/timeline' + qs({ anchor: a.id, depth_before: 3, depth_after: 2 }));
    assert.equal(r.status, 200);
    assert.equal(r.body.project, 'atlas-api');
    assert.deepEqual(r.body.anchor, { kind: 'observation', ref: String(a.id), time: new Date(a.createdAt).toISOString(), epoch: a.createdAt });
    const items = r.body.items as { ref: string; anchor?: boolean; epoch: number; project: string; kind: string }[];
    const at = items.findIndex((i) => i.anchor);
    assert.equal(items[at].ref, String(a.id));
    assert.equal(at, 3);
    assert.equal(items.length, 6);
    assert.ok(items.every((i, n) => n === 0 || i.epoch >= items[n - 1].epoch), 'oldest first');
    assert.ok(items.every((i) => i.project === 'atlas-api'));
  });

  it('anchored on S<summaryId>, includes prompts, observations and summaries', async () => {
    const s = h.sessions[10];
    const sid = s.summaries[0].id;
    const r = await get('/api/timeline' + qs({ anchor: `S${sid}`, depth_before: 5, depth_after: 5 }));
    assert.equal(r.status, 200);
    assert.equal(r.body.anchor.kind, 'summary');
    const anchor = r.body.items.find((i: { anchor?: boolean }) => i.anchor);
    assert.equal(anchor.ref, `S${sid}`);
    const before = r.body.items.slice(0, r.body.items.indexOf(anchor));
    assert.ok(before.some((i: { kind: string }) => i.kind === 'observation'));
    const lower = await get('/api/timeline' + qs({ anchor: `s${sid}`, depth_before: 1, depth_after: 0 }));
    assert.equal(lower.status, 200);
  });

  it('anchored on an ISO time, optionally in one project, no anchor row', async () => {
    const t = obs('P2').createdAt;
    const r = await get('/api/timeline' + qs({ anchor: new Date(t).toISOString(), depth_before: 2, depth_after: 2, project: 'pixel-ui' }));
    assert.equal(r.status, 200);
    assert.equal(r.body.anchor.kind, 'time');
    assert.equal(r.body.items.length, 4);
    assert.ok(r.body.items.every((i: { project: string; anchor?: boolean }) => i.project === 'pixel-ui' && !i.anchor));
    assert.equal(r.body.items[1].id, obs('P2').id, 'a record at exactly the anchor time counts as before');
    const all = await get('/api/timeline' + qs({ anchor: new Date(t).toISOString().slice(0, 10), depth_before: 0, depth_after: 3 }));
    assert.equal(all.status, 200);
    assert.equal(all.body.project, null);
  });

  it('unknown anchors are 404; malformed ones and bad depths are 400', async () => {
    for (const anchor of ['999999', 'S999999', 'P999999']) {
      const r = await get('/api/timeline' + qs({ anchor }));
      assert.equal(r.status, 404, anchor);
      assert.match(r.body.error, /no (observation|summary|prompt)/);
    }
    for (const p of [{}, { anchor: '' }, { anchor: 'yesterday' }, { anchor: 'X12' }, { anchor: '12abc' }, { anchor: '1', depth_before: '101' }, { anchor: '1', depth_after: '-1' }, { anchor: '1', depth_before: 'many' }]) {
      const r = await get('/api/timeline' + qs(p));
      assert.equal(r.status, 400, JSON.stringify(p));
      assert.ok(typeof r.body.error === 'string');
    }
  });
});

describe('POST /api/observations/batch', () => {
  it('full records in the order asked; ids as an array, "1,2" or "[1,2]"', async () => {
    const ids = [obs('L1').id, obs('A1').id, obs('I3').id];
    for (const form of [ids, ids.join(','), JSON.stringify(ids), ` ${ids.join(' , ')} `]) {
      const r = await w.req('POST', '/api/observations/batch', { ids: form });
      assert.equal(r.status, 200, JSON.stringify(form));
      assert.deepEqual(r.body.items.map((o: { id: number }) => o.id), ids);
      assert.equal(r.body.items[0].narrative.length > 50, true);
      assert.deepEqual(r.body.missing, []);
    }
  });

  it('reports missing ids and honours a project filter', async () => {
    const r = await w.req('POST', '/api/observations/batch', { ids: [obs('A1').id, 999999, obs('P1').id], project: 'atlas-api' });
    assert.deepEqual(r.body.items.map((o: { id: number }) => o.id), [obs('A1').id]);
    assert.deepEqual(r.body.missing, [999999, obs('P1').id]);
  });

  it('anything else is a 400', async () => {
    for (const body of [{}, { ids: 'abc' }, { ids: '1,x' }, { ids: [1.5] }, { ids: [-1] }, { ids: [0] }, { ids: '[1,' }, { ids: { a: 1 } }, { ids: 7 }, { ids: Array.from({ length: 501 }, (_, i) => i + 1) }, [1, 2], 'ids']) {
      const r = await w.req('POST', '/api/observations/batch', body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
      assert.ok(typeof r.body.error === 'string');
    }
    const raw = await w.req('POST', '/api/observations/batch', '{not json', { 'content-type': 'application/json' });
    assert.equal(raw.status, 400);
  });
});

describe('GET /api/search/by-file', () => {
  it('history of one file, newest first, for a relative or an absolute path', async () => {
    const rel = await get('/api/search/by-file' + qs({ path: 'src/import/csv.rs', project: 'ledger-cli' }));
    assert.equal(rel.status, 200);
    const expected = allObservations(h)
      .filter((o) => o.project === 'ledger-cli' && [...o.filesRead, ...o.filesModified].includes('src/import/csv.rs'))
      .map((o) => o.id)
      .sort((a, b) => b - a);
    assert.deepEqual(rel.body.items.map((i: { id: number }) => i.id), expected.slice(0, 50));
    assert.ok(rel.body.items.some((i: { id: number; action: string }) => i.id === obs('L3').id && i.action === 'modified'));
    const abs = await get('/api/search/by-file' + qs({ path: '/home/dev/code/ledger-cli/src/import/csv.rs', project: 'ledger-cli' }));
    assert.deepEqual(abs.body.items.map((i: { id: number }) => i.id), rel.body.items.map((i: { id: number }) => i.id));
    const paged = await get('/api/search/by-file' + qs({ path: 'src/import/csv.rs', project: 'ledger-cli', limit: 2, offset: 1 }));
    assert.deepEqual(paged.body.items.map((i: { id: number }) => i.id), expected.slice(1, 3));
  });

  it('a file read but not modified is reported as read; other projects are excluded', async () => {
    const r = await get('/api/search/by-file' + qs({ path: 'webpack.config.js' }));
    assert.ok(r.body.items.some((i: { id: number; action: string }) => i.id === obs('P2').id && i.action === 'read'));
    const other = await get('/api/search/by-file' + qs({ path: 'webpack.config.js', project: 'atlas-api' }));
    assert.deepEqual(other.body.items, []);
    const none = await get('/api/search/by-file' + qs({ path: 'no/such/file.xyz' }));
    assert.deepEqual(none.body.items, []);
  });

  it('a missing or malformed path is a 400', async () => {
    for (const p of [{}, { path: '' }, { path: 'a\u0001b' }, { path: 'x', limit: '0' }]) {
      const r = await get('/api/search/by-file' + qs(p));
      assert.equal(r.status, 400, JSON.stringify(p));
    }
  });
});

describe('GET /api/search/status and POST /api/search/reindex', () => {
  it('report embeddings off, and refuse bad bodies', async () => {
    const st = await get('/api/search/status');
    assert.equal(st.status, 200);
    assert.equal(st.body.embeddings.provider, 'off');
    assert.equal(st.body.embeddings.state, 'off');
    const ok = await w.req('POST', '/api/search/reindex', {});
    assert.equal(ok.status, 202);
    for (const body of ['{bad', JSON.stringify({ reembed: 'yes' }), JSON.stringify({ project: 5 }), JSON.stringify([1])]) {
      const r = await w.req('POST', '/api/search/reindex', body, { 'content-type': 'application/json' });
      assert.equal(r.status, 400, body);
    }
  });

  it('require the token like every route', async () => {
    const r = await fetch(`${w.url}/api/search?query=x`);
    assert.equal(r.status, 401);
  });
});
