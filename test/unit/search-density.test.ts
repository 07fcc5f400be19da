// The vector side's hubness correction (density.ts): a hit among look-alikes pays for their
// closeness, so a record unlike its neighbours can outrank a cluster of near-copies that sit a
// little closer to the question.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { EventBus } from '../../worker/events';
import { nullLogger } from '../../common/node/log';
import { neighbourDensity } from '../../worker/search/density';
import type { Embedder } from '../../worker/search/embed/types';
import { ScanIndex } from '../../worker/search/scan';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { quantizeInt8 } from '../../worker/search/vectors/blob';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { importSessions, parseImport } from '../../worker/transfer';
import { tempDir } from '../helpers/worker';

const DIMS = 16;

function unit(parts: Record<number, number>): Float32Array {
  const v = new Float32Array(DIMS);
  for (const [i, x] of Object.entries(parts)) v[Number(i)] = x;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

// The question is axis 0. Five look-alike notes lean on axis 1 and sit at cosine ~0.8 to it, ~1 to
// each other; the answer leans on axis 15 instead, at cosine ~0.75, unlike all of them.
const QUESTION = unit({ 0: 1 });
const LOOKALIKES = [2, 3, 4, 5, 6].map((i) => unit({ 0: 0.8, 1: 0.6, [i]: 0.03 }));
const ANSWER = unit({ 0: 0.75, 15: 0.66 });

test('neighbourDensity: the mean cosine to the k nearest others, from int8 rows', () => {
  const vs = [...LOOKALIKES, ANSWER];
  const d = neighbourDensity([...vs.map((v) => quantizeInt8(v)), undefined], 3);
  assert.equal(d.length, vs.length + 1);
  vs.forEach((v, a) => {
    const exact = vs
      .filter((_, b) => b !== a)
      .map((w) => cos(v, w))
      .sort((x, y) => y - x)
      .slice(0, 3);
    const want = exact.reduce((s, x) => s + x, 0) / 3;
    assert.ok(Math.abs(d[a] - want) < 0.02, `row ${a}: ${d[a]} vs ${want}`);
  });
  assert.ok(d[0] > 0.99 && d[5] < 0.65, `${d[0]} ${d[5]}`);
  assert.equal(d[6], 0, 'an absent vector gets 0');
  assert.deepEqual([...neighbourDensity([quantizeInt8(ANSWER)], 3)], [0], 'alone: no neighbours');
  // k larger than the pool: the mean over every other row.
  const all = neighbourDensity(vs.map((v) => quantizeInt8(v)), 50);
  const wantAll = LOOKALIKES.reduce((s, w) => s + cos(ANSWER, w), 0) / 5;
  assert.ok(Math.abs(all[5] - wantAll) < 0.02);
});

test('ScanIndex.query hands out copies of the stored rows for the first hits asked for', () => {
  const scan = new ScanIndex(DIMS);
  [...LOOKALIKES, ANSWER].forEach((v, i) => {
    const { q, scale } = quantizeInt8(v);
    scan.put('p', 'observation', i + 1, 0, q, scale);
  });
  const hits = scan.query(QUESTION, 6, {}, 2);
  assert.equal(hits.filter((h) => h.unit).length, 2);
  assert.ok(hits[0].unit && hits[1].unit && !hits[2].unit);
  const stored = quantizeInt8([...LOOKALIKES, ANSWER][hits[0].id - 1]);
  assert.deepEqual([...hits[0].unit.q], [...stored.q]);
  assert.ok(Math.abs(hits[0].unit.scale - stored.scale) < 1e-9);
  hits[0].unit.q[0] = 99;
  assert.notEqual(scan.query(QUESTION, 1, {}, 1)[0].unit?.q[0], 99, 'a copy, not a view of the index');
  assert.equal(scan.query(QUESTION, 6).filter((h) => h.unit).length, 0, 'none unless asked');
});

const stores: Store[] = [];
const services: SearchService[] = [];
after(async () => {
  for (const s of services) await s.stop();
  for (const s of stores) await s.close(false);
});

/** A store of the five look-alikes and the answer, embedded by a table from title to vector. */
async function service(search: Partial<SearchSettings>): Promise<SearchService> {
  const titles = ['Looked into PDF export', 'Checked PDF export after the change', 'Read src/export/pdf.ts', 'Looked into PDF export again', 'Updated notes on PDF export', 'Fonts embedded once per document, not per page'];
  const table = new Map<string, Float32Array>([...LOOKALIKES, ANSWER].map((v, i) => [titles[i], v]));
  const embedder: Embedder = {
    name: 'table-16',
    async embed(texts) {
      return texts.map((t) => [...table].find(([title]) => t.includes(title))?.[1] ?? QUESTION);
    },
    async close() {},
  };
  const dir = tempDir('search-density-');
  const store = await Store.open({ dir: path.join(dir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  stores.push(store);
  await migrate(store);
  const t0 = Date.UTC(2026, 10, 2);
  const doc = {
    format: 'claude-mem-vscode/export',
    version: 1,
    exportedAt: new Date(t0 + 3_600_000).toISOString(),
    project: null,
    sessions: [
      {
        platform: 'claude-code', contentSessionId: 'density-1', project: 'p', cwd: '/src/p', status: 'completed', promptCounter: 1,
        startedAt: t0, updatedAt: t0 + 60_000, completedAt: t0 + 60_000, completionReason: 'exit',
        prompts: [{ id: 1, promptNumber: 1, text: 'export', createdAt: t0 }],
        observations: titles.map((title, i) => ({
          id: i + 1, type: 'change', title, subtitle: null, narrative: `${title}.`, facts: [], concepts: [], filesRead: [], filesModified: [],
          source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 10, toolName: 'Edit', promptNumber: 1, contentHash: `h-${i}`, createdAt: t0 + i * 1000,
        })),
        summaries: [],
      },
    ],
  };
  await store.write((tx) => importSessions(tx, parseImport(doc)));
  const svc = new SearchService(
    { config: { dataDir: dir }, store, events: new EventBus(), log: nullLogger },
    // Priors and duplicate demotion off: only the cosine and its correction order these hits.
    { embedders: { query: embedder, index: embedder }, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, vectorPriorWeight: 0, demoteDuplicates: false, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
  );
  services.push(svc);
  svc.start();
  await svc.indexer?.drain();
  return svc;
}

test('semantic search: the record unlike its neighbours outranks the cluster of look-alikes', async () => {
  const on = await service({});
  const r = await on.searcher.search({ query: 'why is the exported file so big', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 6, offset: 0 }, Date.now());
  assert.equal(r.modeUsed, 'semantic');
  assert.equal(r.items[0]?.title, 'Fonts embedded once per document, not per page');
  // Without the correction the cosine alone puts the look-alikes first.
  const off = await service({ densityPenalty: 0 });
  const plain = await off.searcher.search({ query: 'why is the exported file so big', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 6, offset: 0 }, Date.now());
  assert.notEqual(plain.items[0]?.title, 'Fonts embedded once per document, not per page');
  assert.equal(plain.items.length, 6);
});
