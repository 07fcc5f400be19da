// Keyword search is exact about what exists: a record is found by each of its words from the
// moment its write is acknowledged, whatever was searched before (a word counted in no record, a
// word whose ranked list is kept), and a deleted record is not found any more. Over real HTTP
// against the bundled worker, keyword mode, embeddings off. The records come in three ways: a saved
// memory, an import (the path records pulled from elsewhere take) and a delete.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
before(async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
});
after(async () => {
  await w.stop();
});

const save = async (text: string, project = 'acme'): Promise<number> => {
  const r = await w.req('POST', '/api/memory/save', { text, project });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id as number;
};
const keyword = async (query: string, extra = ''): Promise<number[]> => {
  const r = await w.req('GET', `/api/search?mode=keyword&limit=50&query=${encodeURIComponent(query)}${extra}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items.map((i: { id: number }) => i.id);
};

describe('keyword search finds new records at once', () => {
  it('a word searched before any record had it finds the record saved next (15 saves, search, save, search)', async () => {
    for (let i = 0; i < 15; i++) await save(`note ${i} about the build cache and the retry policy`);
    assert.deepEqual(await keyword('giraffe309203558', '&project=acme'), []);
    assert.deepEqual(await keyword('giraffe309203558'), []);
    const id = await save('the giraffe309203558 fixture lives under test/fixtures');
    assert.deepEqual(await keyword('giraffe309203558', '&project=acme'), [id]);
    assert.deepEqual(await keyword('giraffe309203558'), [id]);
    // A second record with the word, after the count of one was cached.
    const id2 = await save('renamed giraffe309203558 to something shorter', 'other');
    assert.deepEqual((await keyword('giraffe309203558')).sort((a, b) => a - b), [id, id2]);
    assert.deepEqual(await keyword('giraffe309203558', '&project=other'), [id2]);
  });

  it('a word in a second query word position is found too (multi-word OR)', async () => {
    assert.deepEqual(await keyword('okapi5521 cache', '&project=acme&limit=50').then((ids) => ids.length), 15);
    const id = await save('okapi5521 alone');
    assert.ok((await keyword('okapi5521 cache', '&project=acme')).includes(id));
  });

  it('a word whose ranked list is kept finds records added after the list was made, and not deleted ones', async () => {
    // 300 records (more than a list that is kept at least), then the list is made by a search.
    for (let i = 0; i < 30; i++) {
      await w.req('POST', '/api/memory/save', { text: `walrus${i} entry ${i}`, project: 'zoo' });
    }
    const texts = Array.from({ length: 270 }, (_, i) => `pelican colony note ${i} with extra words ${'filler '.repeat(i % 7)}`);
    for (const t of texts) await save(t, 'zoo');
    const first = await keyword('pelican', '&project=zoo');
    assert.equal(first.length, 50);
    // A short record with the word in its title ranks first: it must be there now.
    const fresh = await save('pelican pelican pelican', 'zoo');
    const second = await keyword('pelican', '&project=zoo');
    assert.equal(second[0], fresh, `new record ${fresh} not first: ${second.slice(0, 5).join(',')}`);
    const d = await w.req('DELETE', `/api/observation/${fresh}`);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const third = await keyword('pelican', '&project=zoo');
    assert.ok(!third.includes(fresh), 'a deleted record is not found');
    assert.equal(third.length, 50);
  });

  it('a deleted record that was the only match vanishes; a word counted before is found in an imported record', async () => {
    const id = await save('the quokka77104 migration note');
    assert.deepEqual(await keyword('quokka77104'), [id]);
    assert.equal((await w.req('DELETE', `/api/observation/${id}`)).status, 200);
    assert.deepEqual(await keyword('quokka77104'), []);

    assert.deepEqual(await keyword('narwhal66120'), []);
    assert.deepEqual(await keyword('narwhal66120', '&project=teammate'), []);
    const now = Date.now();
    const doc = {
      format: 'claude-mem-vscode/export',
      version: 1,
      sessions: [
        {
          platform: 'claude-code',
          contentSessionId: 'pulled-1',
          project: 'teammate',
          cwd: null,
          status: 'completed',
          promptCounter: 1,
          startedAt: now - 60_000,
          updatedAt: now - 60_000,
          completedAt: now - 60_000,
          completionReason: null,
          prompts: [{ promptNumber: 1, text: 'where is narwhal66120 configured', createdAt: now - 60_000 }],
          observations: [
            {
              type: 'discovery', title: 'narwhal66120 lives in config/zoo.yaml', subtitle: null, facts: [], narrative: 'the narwhal66120 flag', concepts: [],
              filesRead: [], filesModified: [], toolName: null, promptNumber: 1, contentHash: 'pulled-narwhal', source: 'local',
              inputTokens: 0, outputTokens: 0, discoveryTokens: 0, createdAt: now - 60_000,
            },
          ],
          summaries: [],
        },
      ],
    };
    const r = await w.req('POST', '/api/import', doc);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.imported.observations, 1);
    const obs = await w.req('GET', `/api/search?mode=keyword&query=narwhal66120&kind=observation`);
    assert.equal(obs.body.items.length, 1);
    assert.equal(obs.body.items[0].project, 'teammate');
    const scoped = await w.req('GET', `/api/search?mode=keyword&query=narwhal66120&project=teammate`);
    assert.deepEqual(scoped.body.items.map((i: { kind: string }) => i.kind).sort(), ['observation', 'prompt']);
  });
});
