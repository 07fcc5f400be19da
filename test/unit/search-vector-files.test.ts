// Vectors out of the database (issue 19, item 3), through the real search service on a real store:
// the indexer appends vectors to their files and SQLite keeps only where they are; a damaged or
// missing file is embedded again, never served; vectors from older stores move out; a deleted
// record's vector leaves the files; reembed starts fresh files; the scan is dropped when idle.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import type { Logger } from '../../common/node/log';
import { nullLogger } from '../../common/node/log';
import { EventBus } from '../../worker/events';
import { Lifecycle } from '../../worker/lifecycle';
import type { Embedder } from '../../worker/search/embed/types';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS, DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { encodeVector } from '../../worker/search/vectorBlob';
import { entrySize } from '../../worker/search/vectors/files';
import { deleteObservation } from '../../worker/store/repos/observations';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir, until } from '../helpers/worker';

const DIMS = 64;

/** Bag of hashed words: texts that share words point alike. Counts what it embedded. */
function wordHashEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  const one = (text: string) => {
    const v = new Float32Array(DIMS);
    for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      let h = 7;
      for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[h % DIMS] += 1;
    }
    if (v.every((x) => x === 0)) v[0] = 1;
    return v;
  };
  return { name: 'word-hash-64', dims: DIMS, texts, embed: async (t) => (texts.push(...t), t.map(one)), close: async () => undefined };
}

const MEMORIES = ['slow typing in the editor on every keystroke', 'postgres migration of the database schema', 'deploy rollback after a bad release'];

async function open(dataDir: string, search: Partial<SearchSettings> = {}) {
  const store = await Store.open({ dir: path.join(dataDir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  const events = new EventBus();
  const embedder = wordHashEmbedder();
  const warnings: string[] = [];
  const log: Logger = { ...nullLogger, warn: (msg: string) => void warnings.push(msg) };
  const service = new SearchService(
    { config: { dataDir }, store, events, log },
    { embedders: { query: embedder, index: embedder }, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, vectorBackend: 'scan', ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
  );
  const lifecycle = new Lifecycle(store, DEFAULT_SETTINGS, events, () => undefined);
  service.start();
  const save = async (text: string) => (await lifecycle.saveMemory({ text, project: 'p' })).id as number;
  /** Nothing left to embed, and the pass that found that (with its tidying) is over. */
  const idle = async () => {
    await until(() => service.status().pending === 0 && service.indexer?.state === 'idle', 10_000, 'indexing');
    await service.indexer?.drain();
  };
  const find = async (query: string) =>
    (await service.searcher.search({ query, mode: 'semantic', filters: { project: 'p', kinds: ['observation'] }, limit: 3, offset: 0 })).items.map((i) => i.id);
  const close = async () => {
    await service.stop();
    await store.close(false);
  };
  return { store, service, events, embedder, warnings, save, idle, find, close };
}

const vectorDir = (dataDir: string) => path.join(dataDir, 'vector-data');
const vecFiles = (dataDir: string) => (fs.existsSync(vectorDir(dataDir)) ? fs.readdirSync(vectorDir(dataDir)).filter((f) => f.endsWith('.vec')) : []);
const rows = (store: Store) => store.all<{ ref_id: number; bytes: number; file_gen: number | null; file_offset: number | null }>('SELECT ref_id, length(data) AS bytes, file_gen, file_offset FROM vectors ORDER BY ref_id');

/** A store with the three memories embedded; resolves with their ids. */
async function seeded(dataDir: string): Promise<number[]> {
  const s = await open(dataDir);
  try {
    const ids: number[] = [];
    for (const m of MEMORIES) ids.push(await s.save(m));
    await s.idle();
    return ids;
  } finally {
    await s.close();
  }
}

describe('vectors in their own files', () => {
  it('keeps the vectors in a file and only where they are in SQLite; a restart searches them from the file', async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    const s = await open(dataDir);
    try {
      const r = rows(s.store);
      assert.equal(r.length, 3);
      for (const x of r) {
        assert.equal(x.bytes, 0, 'no vector bytes in the database');
        assert.equal(x.file_gen, 1);
      }
      assert.deepEqual(r.map((x) => x.file_offset).sort((a, b) => (a ?? 0) - (b ?? 0)), [0, 1, 2].map((i) => i * entrySize(DIMS)));
      assert.equal(vecFiles(dataDir).length, 1);
      assert.equal(fs.statSync(path.join(vectorDir(dataDir), vecFiles(dataDir)[0])).size, 3 * entrySize(DIMS));
      assert.equal((await s.find('keystroke typing'))[0], ids[0]);
      assert.equal((await s.find('postgres schema'))[0], ids[1]);
      assert.equal(s.embedder.texts.length, 2, 'only the two queries were embedded after the restart');
    } finally {
      await s.close();
    }
  });

  it('embeds again what a damaged or missing file no longer holds, and never serves it', async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    let s = await open(dataDir);
    const at = rows(s.store).find((x) => x.ref_id === ids[1])?.file_offset as number;
    await s.close();
    const file = path.join(vectorDir(dataDir), vecFiles(dataDir)[0]);
    const bytes = fs.readFileSync(file);
    bytes[at + 20] ^= 0x55; // inside the second memory's vector
    fs.writeFileSync(file, bytes);
    s = await open(dataDir);
    try {
      await until(() => s.warnings.some((w) => /failed their check/.test(w)), 10_000, 'the damage reported');
      await s.idle();
      assert.equal(s.embedder.texts.length, 1, `only the damaged record was embedded again: ${s.embedder.texts.join(' | ')}`);
      assert.match(s.embedder.texts[0], /postgres migration/);
      assert.equal((await s.find('postgres schema'))[0], ids[1]);
      assert.equal(rows(s.store).length, 3);
    } finally {
      await s.close();
    }
    fs.rmSync(vectorDir(dataDir), { recursive: true });
    s = await open(dataDir);
    try {
      await until(() => s.warnings.some((w) => /failed their check/.test(w)), 10_000, 'the loss reported');
      await s.idle();
      assert.equal(s.embedder.texts.length, 3, 'all three embedded again');
      assert.equal((await s.find('deploy rollback'))[0], ids[2]);
    } finally {
      await s.close();
    }
  });

  it('moves vectors an older store kept in the database out to the files', async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    // What schema 8 leaves of an older store: each vector as a blob, no file offset, no files.
    let s = await open(dataDir);
    try {
      const [vectors] = [await s.embedder.embed(MEMORIES.map((m) => `Discovery ${m}`))];
      s.embedder.texts.length = 0;
      await s.idle();
      // Two in the int8 form, the third as raw float32 (both forms were once stored).
      const blob = (i: number) => (i < 2 ? encodeVector(vectors[i]) : new Uint8Array(Float32Array.from(vectors[i]).buffer));
      await s.store.write((tx) => ids.forEach((id, i) => tx.run('UPDATE vectors SET data = ?, file_gen = NULL, file_offset = NULL WHERE ref_id = ?', [blob(i), id])));
    } finally {
      await s.close();
    }
    fs.rmSync(vectorDir(dataDir), { recursive: true });
    s = await open(dataDir);
    try {
      assert.equal((await s.find('keystroke typing'))[0], ids[0], 'blobs are searched before they move');
      await s.idle();
      const r = rows(s.store);
      assert.ok(r.every((x) => x.bytes === 0 && x.file_offset !== null), JSON.stringify(r));
      assert.equal(vecFiles(dataDir).length, 1);
      assert.equal(s.embedder.texts.length, 1, 'moved, not embedded again');
    } finally {
      await s.close();
    }
    s = await open(dataDir);
    try {
      assert.equal((await s.find('deploy rollback'))[0], ids[2]);
    } finally {
      await s.close();
    }
  });

  it("takes a deleted record's vector out of the files, and reembed starts fresh files", async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    const s = await open(dataDir);
    try {
      await s.idle();
      await s.store.write((tx) => deleteObservation(tx, ids[1]));
      s.events.emit('observation_deleted', { id: ids[1], project: 'p' });
      await until(() => vecFiles(dataDir).length === 1 && fs.statSync(path.join(vectorDir(dataDir), vecFiles(dataDir)[0])).size === 2 * entrySize(DIMS), 10_000, 'the file rewritten');
      await s.idle();
      assert.match(vecFiles(dataDir)[0], /\.2\.vec$/);
      assert.deepEqual(rows(s.store).map((x) => [x.ref_id, x.file_gen]), [
        [ids[0], 2],
        [ids[2], 2],
      ]);
      assert.deepEqual(rows(s.store).map((x) => x.file_offset).sort((a, b) => (a ?? 0) - (b ?? 0)), [0, entrySize(DIMS)]);
      assert.equal((await s.find('keystroke typing'))[0], ids[0]);
      const res = await s.service.reindex({ reembed: true });
      assert.equal(res.dropped, 2);
      await s.idle();
      assert.deepEqual(vecFiles(dataDir).map((f) => f.split('.').at(-2)), ['3'], 'the old generation is gone');
      assert.deepEqual(rows(s.store).map((x) => x.file_gen), [3, 3]);
      assert.equal((await s.find('deploy rollback'))[0], ids[2]);
    } finally {
      await s.close();
    }
  });

  it('drops the loaded scan after the idle time and loads it again for the next query', async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    const s = await open(dataDir, { embedderIdleMs: 300 });
    try {
      assert.equal((await s.find('keystroke typing'))[0], ids[0]);
      assert.equal(s.service.semantic?.scanStats().loaded, true);
      await until(() => s.service.semantic?.scanStats().loaded === false, 5_000, 'the scan dropped');
      assert.equal((await s.find('postgres schema'))[0], ids[1]);
      assert.equal(s.service.semantic?.scanStats().loaded, true);
    } finally {
      await s.close();
    }
  });
});
