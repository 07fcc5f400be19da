// The vector side over real HTTP: the bundled worker embeds in the background with the local
// model thread (dist/embedder.js), semantic and hybrid search use it, filters apply to vector
// hits, deletes take effect at once, vectors survive a restart, and reindex rebuilds.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
const ids: Record<string, number> = {};
const qs = (o: Record<string, string | number>) => '?' + new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();

const MEMORIES: [string, string, string][] = [
  ['logout', 'sem', 'Users were being signed out unexpectedly because two browser tabs refreshed the session token at the same time.'],
  ['cake', 'sem', 'Baked a chocolate cake for the team birthday party with extra frosting.'],
  ['dns', 'sem', 'Kubernetes pods resolved external hostnames slowly; lowering ndots in the pod DNS config fixed it.'],
  ['money', 'sem', 'Currency totals drifted by a cent because floating point numbers were used for money amounts.'],
  ['css', 'sem', 'The dark theme flashed white on first paint until an inline script set the theme before rendering.'],
  ['other', 'elsewhere', 'Users kept getting logged out of the dashboard after switching browser tabs.'],
];

async function indexed(): Promise<void> {
  await until(async () => {
    const st = (await w.req('GET', '/api/search/status')).body;
    return st.pending === 0 && st.embeddings.state !== 'indexing';
  }, 180_000, 'the background indexer');
}

before(async () => {
  // Embedding as soon as the saves are in (the idle-time gate has its own test: search-idle-indexing).
  const dataDir = tempDir();
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { indexStartDelayMs: 0, indexQuietMs: 0 } }));
  w = await startWorker({ dataDir });
  for (const [key, project, text] of MEMORIES) {
    const r = await w.req('POST', '/api/memory/save', { text, project });
    assert.equal(r.status, 201);
    ids[key] = r.body.id;
  }
  await indexed();
});
after(async () => {
  await w.stop();
});

describe('semantic and hybrid search', () => {
  it('the saves were answered at once; embedding happened in the background', async () => {
    const st = (await w.req('GET', '/api/search/status')).body;
    assert.equal(st.embeddings.provider, 'local');
    assert.equal(st.indexed.observations, MEMORIES.length);
    assert.match(st.embeddings.model, /^local:universal-sentence-encoder/);
  });

  it('semantic search finds a memory by meaning, without shared words', async () => {
    const r = await w.req('GET', '/api/search' + qs({ query: 'why did people lose their login', mode: 'semantic', project: 'sem' }));
    assert.equal(r.status, 200);
    assert.equal(r.body.modeUsed, 'semantic');
    assert.equal(r.body.notice, undefined);
    assert.equal(r.body.items[0].id, ids.logout);
    assert.ok(r.body.items.every((i: { project: string }) => i.project === 'sem'));
    assert.ok(r.body.items[0].score > r.body.items[r.body.items.length - 1].score);
  });

  it('hybrid fuses both sides', async () => {
    const r = await w.req('GET', '/api/search' + qs({ query: 'slow DNS lookups in the cluster', project: 'sem' }));
    assert.equal(r.body.mode, 'hybrid');
    assert.equal(r.body.modeUsed, 'hybrid');
    assert.equal(r.body.items[0].id, ids.dns);
    const across = await w.req('GET', '/api/search' + qs({ query: 'signed out when switching tabs', mode: 'semantic' }));
    const top2 = across.body.items.slice(0, 2).map((i: { id: number }) => i.id).sort();
    assert.deepEqual(top2, [ids.logout, ids.other].sort(), 'without a project, every project is searched');
  });

  it('filters apply to vector hits: type, kind, dates', async () => {
    const none = await w.req('GET', '/api/search' + qs({ query: 'login problems', mode: 'semantic', type: 'bugfix' }));
    assert.deepEqual(none.body.items, [], 'saved memories are discoveries');
    const some = await w.req('GET', '/api/search' + qs({ query: 'login problems', mode: 'semantic', type: 'discovery', limit: 3 }));
    assert.equal(some.body.items.length, 3);
    const future = await w.req('GET', '/api/search' + qs({ query: 'login problems', mode: 'semantic', dateStart: '2099-01-01' }));
    assert.deepEqual(future.body.items, []);
    const prompts = await w.req('GET', '/api/search' + qs({ query: 'login problems', mode: 'semantic', kind: 'prompt' }));
    assert.deepEqual(prompts.body.items, [], 'prompts have no vectors');
  });

  it('a deleted observation leaves semantic results at once', async () => {
    const del = await w.req('DELETE', `/api/observation/${ids.cake}`);
    assert.equal(del.status, 200);
    const r = await w.req('GET', '/api/search' + qs({ query: 'chocolate birthday cake', mode: 'semantic', project: 'sem' }));
    assert.ok(r.body.items.every((i: { id: number }) => i.id !== ids.cake));
    const st = (await w.req('GET', '/api/search/status')).body;
    assert.equal(st.indexed.observations, MEMORIES.length - 1, 'its vector went with it');
  });
});

describe('reindex and restart', () => {
  it('reindex with reembed drops a project’s vectors and the indexer embeds them again', async () => {
    const r = await w.req('POST', '/api/search/reindex', { project: 'elsewhere', reembed: true });
    assert.equal(r.status, 202);
    assert.equal(r.body.dropped, 1);
    assert.deepEqual(r.body.rebuilt, ['elsewhere']);
    await indexed();
    const found = await w.req('GET', '/api/search' + qs({ query: 'logged out of the dashboard', mode: 'semantic', project: 'elsewhere' }));
    assert.equal(found.body.items[0].id, ids.other);
  });

  it('vectors survive a restart: nothing is embedded again', async () => {
    await w.stop();
    w = await startWorker({ dataDir: w.dataDir });
    const st = (await w.req('GET', '/api/search/status')).body;
    assert.equal(st.pending, 0);
    assert.equal(st.indexed.observations, MEMORIES.length - 1);
    const r = await w.req('GET', '/api/search' + qs({ query: 'money rounding errors', mode: 'semantic', project: 'sem' }));
    assert.equal(r.body.items[0].id, ids.money);
  });
});

describe('a floor on the vector side (search.vectorMinScore)', () => {
  it('off by default: a word that matches nothing lists the small store’s nearest records; with the floor, none, and a near record still comes first', async () => {
    const pool = qs({ query: 'pool', project: 'sem' });
    // Default (0, off): every record is some query's nearest, and the relative window keeps them.
    const before = await w.req('GET', '/api/search' + pool);
    assert.equal(before.body.modeUsed, 'hybrid');
    assert.ok(before.body.items.length > 0, 'without a floor the weak neighbours are listed');
    await w.stop();
    fs.writeFileSync(path.join(w.dataDir, 'settings.json'), JSON.stringify({ search: { vectorMinScore: 0.2 } }));
    w = await startWorker({ dataDir: w.dataDir });
    const after = await w.req('GET', '/api/search' + pool);
    assert.equal(after.body.modeUsed, 'hybrid');
    assert.deepEqual(after.body.items.map((i: { title: string }) => i.title), []);
    const near = await w.req('GET', '/api/search' + qs({ query: 'people kept being logged out', project: 'sem' }));
    assert.equal(near.body.items[0]?.id, ids.logout, 'a record near in meaning still comes first');
  });
});
