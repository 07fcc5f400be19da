// A model folder the user points at (search.localModelDir): a tiny word-vector model this test
// writes itself. The service embeds with it, semantic search answers from it, the stored vectors
// carry its name, and switching folders plus reindex --reembed moves the index to the new model.
// A broken folder is reported and the bundled model stays in use.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { EventBus } from '../../worker/events';
import { Lifecycle } from '../../worker/lifecycle';
import { nullLogger } from '../../common/node/log';
import { createFolderEmbedders, createWordVectorEmbedder, readFolderManifest, wordsOf } from '../../worker/search/embed/folder';
import { LOCAL_MODEL_NAME } from '../../worker/search/embed/protocol';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

/** Background indexing as soon as a record is written (the idle-time gate has its own test: search-idle-indexing). */
const AT_ONCE = { indexStartDelayMs: 0, indexQuietMs: 0 };

/** Three topics on three axes (plus a little noise axis): words of one topic point the same way. */
const WORDS: Record<string, number[]> = {
  database: [1, 0, 0, 0.1], postgres: [0.9, 0.1, 0, 0.1], sql: [0.95, 0, 0.05, 0], migration: [0.8, 0, 0, 0.2],
  editor: [0, 1, 0, 0.1], typing: [0.1, 0.9, 0, 0], keystroke: [0, 0.95, 0.05, 0.1], lag: [0, 0.8, 0, 0.3],
  deploy: [0, 0, 1, 0.1], release: [0, 0.1, 0.9, 0], rollback: [0.05, 0, 0.95, 0], upload: [0, 0, 0.8, 0.2],
};

function writeModel(name: string, words = WORDS, manifest: Record<string, unknown> = {}): string {
  const dir = path.join(tempDir('model-folder-'), name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'embedder.json'), JSON.stringify({ format: 'word-vectors', name, file: 'vectors.txt', ...manifest }));
  // fastText's .vec layout: a "count dims" header, then one word per line.
  const lines = [`${Object.keys(words).length} 4`, ...Object.entries(words).map(([w, v]) => `${w} ${v.join(' ')}`)];
  fs.writeFileSync(path.join(dir, 'vectors.txt'), lines.join('\n') + '\n');
  return dir;
}

async function open(dataDir: string, search: Partial<SearchSettings>) {
  const store = await Store.open({ dir: path.join(dataDir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  const events = new EventBus();
  const service = new SearchService({ config: { dataDir }, store, events, log: nullLogger }, { settings: { search: { ...DEFAULT_SEARCH_SETTINGS, ...AT_ONCE, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } });
  const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
  service.start();
  const save = async (text: string) => (await lifecycle.saveMemory({ text, project: 'p' })).id as number;
  const idle = () => until(() => service.status().pending === 0 && service.indexer?.state === 'idle', 10_000, 'indexing');
  const close = async () => {
    await service.stop();
    await store.close(false);
  };
  return { store, service, save, idle, close };
}

describe('model folder embedder', () => {
  it('reads the manifest and says what is wrong with a bad folder', () => {
    const ok = writeModel('tiny');
    assert.deepEqual(readFolderManifest(ok), { format: 'word-vectors', name: 'tiny', file: 'vectors.txt', lowercase: true });
    assert.throws(() => readFolderManifest(tempDir('empty-model-')), /cannot read embedder\.json/);
    const bad = writeModel('bad', WORDS, { format: 'onnx' });
    assert.throws(() => readFolderManifest(bad), /"format" must be one of word-vectors, use-tfjs/);
    fs.rmSync(path.join(ok, 'vectors.txt'));
    assert.throws(() => readFolderManifest(ok), /vectors\.txt is missing/);
  });

  it('a use-tfjs folder: both handles on its model process store vectors under the folder name', async () => {
    const dir = writeModel('use-custom', WORDS, { format: 'use-tfjs' });
    fs.writeFileSync(path.join(dir, 'model.json'), '{}');
    // No text is embedded, so no model process starts: the script is never run.
    const { query, index } = createFolderEmbedders(dir, { threadScript: path.join(dir, 'embedder.js'), idleMs: 1000, batchSize: 8, log: nullLogger });
    try {
      assert.deepEqual([query.name, index.name], ['folder:use-custom', 'folder:use-custom']);
      assert.notEqual(query.name, LOCAL_MODEL_NAME);
    } finally {
      await index.close();
      await query.close();
    }
  });

  it('embeds a text as the normalised mean of its known words; identifiers are split', async () => {
    assert.deepEqual(wordsOf('slowTyping in the_editor', true), ['slow', 'typing', 'in', 'the', 'editor']);
    const e = createWordVectorEmbedder(path.join(writeModel('tiny'), 'vectors.txt'), 'folder:tiny', true);
    const [a, b, none] = await e.embed(['Postgres migration', 'keystrokeLag in the editor', 'nothing known here']);
    assert.equal(a.length, 4);
    assert.ok(Math.abs(Math.hypot(...a) - 1) < 1e-6);
    assert.ok(a[0] > 0.9 && b[1] > 0.9, `${a} / ${b}`);
    assert.deepEqual([...none], [0, 0, 0, 0]);
  });

  it('indexes with the folder model, answers semantic queries, and reindex --reembed moves to another folder', async () => {
    const dataDir = tempDir('search-folder-');
    const first = writeModel('tiny-a');
    let s = await open(dataDir, { localModelDir: first });
    let ids: number[];
    try {
      ids = [await s.save('slow typing in the editor on every keystroke'), await s.save('postgres migration of the database'), await s.save('deploy rollback after a bad release')];
      await s.idle();
      const st = s.service.status();
      assert.match(st.embeddings.model ?? '', /^folder:tiny-a#t\d+$/);
      assert.equal(st.indexed.observations, 3);
      // No shared word with the record: the answer comes from the word vectors.
      const r = await s.service.searcher.search({ query: 'sql', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 3, offset: 0 });
      assert.equal(r.modeUsed, 'semantic');
      assert.equal(r.items[0].id, ids[1]);
    } finally {
      await s.close();
    }
    // Same store, another folder: the new model's name differs, so every record is embedded anew
    // and its vector replaces the old one. A folder whose files changed under the same name needs
    // reindex --reembed: it drops the stored vectors and the indexer embeds everything again.
    const second = writeModel('tiny-b');
    s = await open(dataDir, { localModelDir: second });
    try {
      await s.idle();
      const moved = s.store.all<{ model: string; n: number }>('SELECT model, count(*) AS n FROM vectors GROUP BY model ORDER BY model');
      assert.deepEqual(moved.map((r) => [r.model.split('#')[0], r.n]), [['folder:tiny-b', 3]]);
      const res = await s.service.reindex({ reembed: true });
      assert.equal(res.dropped, 3);
      await s.idle();
      const after = s.store.all<{ model: string; n: number }>('SELECT model, count(*) AS n FROM vectors GROUP BY model');
      assert.equal(after.length, 1);
      assert.match(after[0].model, /^folder:tiny-b#/);
      assert.equal(after[0].n, 3);
      const r = await s.service.searcher.search({ query: 'release', mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 3, offset: 0 });
      assert.equal(r.items[0].id, ids[2]);
    } finally {
      await s.close();
    }
  });

  it('a broken folder is reported in the status and the bundled model is used', async () => {
    const s = await open(tempDir('search-folder-bad-'), { localModelDir: tempDir('no-manifest-') });
    try {
      const st = s.service.status();
      assert.ok(st.problems.some((p) => /^search\.localModelDir: model folder .* cannot read embedder\.json .*; using the bundled model$/.test(p)), st.problems.join('\n'));
      assert.match(st.embeddings.model ?? '', new RegExp(`^${LOCAL_MODEL_NAME}#`));
    } finally {
      await s.close();
    }
  });
});
