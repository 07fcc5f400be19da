// Vectors out of the database, through the real search service on a real store:
// the indexer appends vectors to their files and SQLite keeps only where they are; a damaged or
// missing file is embedded again, never served; vectors older stores kept as blobs are embedded
// again; a deleted record's vector leaves the files; reembed starts fresh files; the scan is
// dropped when idle.
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
import { SemanticIndex } from '../../worker/search/semantic';
import { SearchService } from '../../worker/search/service';
import { DEFAULT_CONTEXT_SETTINGS } from '../../worker/context/settings';
import { DEFAULT_SEARCH_SETTINGS, type SearchSettings } from '../../worker/search/settings';
import { encodeVector } from '../../worker/search/vectors/blob';
import { entrySize, VectorFiles, type WantedEntry } from '../../worker/search/vectors/files';
import { compactAndSweep } from '../../worker/search/vectors/upkeep';
import { deleteObservation } from '../../worker/store/repos/observations';
import { currentVersion, migrate, SCHEMA_VERSION } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { readEntry } from '../helpers/vectorFiles';
import { tempDir, until } from '../helpers/worker';

/** Background indexing as soon as a record is written (the idle-time gate has its own test: search-idle-indexing). */
const AT_ONCE = { indexStartDelayMs: 0, indexQuietMs: 0 };

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
  return { name: 'word-hash-64', texts, embed: async (t) => (texts.push(...t), t.map(one)), close: async () => undefined };
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
    { embedders: { query: embedder, index: embedder }, settings: { search: { ...DEFAULT_SEARCH_SETTINGS, ...AT_ONCE, ...search }, context: DEFAULT_CONTEXT_SETTINGS, problems: [] } },
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

  it('schema 13 drops the vectors an older store kept in the database; they are embedded again into the files', async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    // What schema 12 has of a store from before 8: each vector as a blob, no file offset, no files;
    // one record (ids[0]) already moved out to a file.
    let s = await open(dataDir);
    let kept: { ref_id: number; file_gen: number | null; file_offset: number | null }[];
    try {
      const vectors = await s.embedder.embed(MEMORIES.map((m) => `Discovery ${m}`));
      // Two in the int8 form, the third as raw float32 (both forms were once stored).
      const blob = (i: number) => (i < 2 ? encodeVector(vectors[i]) : new Uint8Array(Float32Array.from(vectors[i]).buffer));
      await s.store.write((tx) => {
        ids.forEach((id, i) => i > 0 && tx.run('UPDATE vectors SET data = ?, file_gen = NULL, file_offset = NULL WHERE ref_id = ?', [blob(i), id]));
        tx.run('DELETE FROM schema_version WHERE version > 12');
        // Schema 12 had no running totals (14: schema.ts TOTALS_TABLE); the triggers that write them go first.
        for (const t of tx.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'totals%'")) tx.run(`DROP TRIGGER ${t.name}`);
        tx.run('DROP TABLE totals');
      });
      kept = rows(s.store).filter((x) => x.ref_id === ids[0]);
    } finally {
      await s.close();
    }
    // The migration alone, then the store opened again from its journal without a clean stop (as after a kill).
    const dbDir = path.join(dataDir, 'db');
    const st = await Store.open({ dir: dbDir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    assert.equal(currentVersion(st), 12);
    assert.equal(rows(st).length, 3);
    assert.equal(await migrate(st), SCHEMA_VERSION);
    const replayed = await Store.open({ dir: dbDir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    for (const x of [st, replayed]) {
      assert.equal(currentVersion(x), SCHEMA_VERSION);
      assert.deepEqual(rows(x), kept.map((r) => ({ ...r, bytes: 0 })), 'only the row with a file offset is left');
    }
    await replayed.close(false);
    await st.close(false);
    s = await open(dataDir);
    try {
      await s.idle();
      assert.deepEqual(s.embedder.texts.map((t) => MEMORIES.findIndex((m) => t.includes(m))).sort(), [1, 2], 'the two dropped records embedded again');
      const r = rows(s.store);
      assert.equal(r.length, 3);
      assert.ok(r.every((x) => x.bytes === 0 && x.file_offset !== null), JSON.stringify(r));
      assert.equal((await s.find('postgres schema'))[0], ids[1]);
      assert.equal((await s.find('deploy rollback'))[0], ids[2]);
      assert.equal((await s.find('keystroke typing'))[0], ids[0]);
    } finally {
      await s.close();
    }
  });

  it("wipes a deleted record's vector out of its file at once, and reembed starts fresh files", async () => {
    const dataDir = tempDir('vec-svc-');
    const ids = await seeded(dataDir);
    // The idle-time gate closed for the whole test: a delete's wipe does not wait for it.
    const s = await open(dataDir, { indexStartDelayMs: 600_000, indexQuietMs: 600_000 });
    try {
      await s.idle();
      const file = path.join(vectorDir(dataDir), vecFiles(dataDir)[0]);
      const before = rows(s.store);
      const at = before.find((x) => x.ref_id === ids[1])?.file_offset as number;
      const vectorBytes = fs.readFileSync(file).subarray(at + 12, at + entrySize(DIMS));
      await s.store.write((tx) => deleteObservation(tx, ids[1]));
      s.events.emit('observation_deleted', { id: ids[1], project: 'p' });
      await until(() => fs.readFileSync(file).subarray(at + 12, at + entrySize(DIMS)).every((b) => b === 0), 10_000, 'the entry wiped');
      await s.idle();
      // Only that entry: in place, same file, the others untouched.
      const bytes = fs.readFileSync(file);
      assert.equal(bytes.length, 3 * entrySize(DIMS));
      assert.equal(bytes.indexOf(Buffer.from(vectorBytes)), -1, 'the vector is nowhere in the file');
      assert.equal(bytes.readUInt32LE(at + 8), 0, 'nor its record id');
      assert.deepEqual(rows(s.store), before.filter((x) => x.ref_id !== ids[1]));
      assert.equal((await s.find('keystroke typing'))[0], ids[0]);
      assert.ok(!(await s.find('postgres schema migration')).includes(ids[1]), 'the deleted record is not found');
      const res = await s.service.reindex({ reembed: true });
      assert.equal(res.dropped, 2);
      await s.idle();
      assert.deepEqual(vecFiles(dataDir).map((f) => f.split('.').at(-2)), ['2'], 'the old generation is gone');
      assert.deepEqual(rows(s.store).map((x) => x.file_gen), [2, 2]);
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

describe('vector file upkeep', () => {
  const BIG = 1024;
  const blobOf = (i: number) => encodeVector(Float32Array.from({ length: BIG }, (_, k) => Math.sin(i * 13 + k)));

  /** A store whose `vectors` rows name n entries of one file (no records needed: upkeep reads only `vectors`). */
  async function withEntries(n: number) {
    const dataDir = tempDir('vec-upkeep-');
    const store = await Store.open({ dir: path.join(dataDir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await migrate(store);
    const files = new VectorFiles(vectorDir(dataDir));
    const locs = await files.append('m', 'p', Array.from({ length: n }, (_, i) => ({ kind: 'observation' as const, id: i + 1, blob: blobOf(i + 1) })));
    await store.write((tx) =>
      locs.forEach((l, i) =>
        tx.run(`INSERT INTO vectors (kind, ref_id, project, model, dims, data, created_at, file_gen, file_offset) VALUES ('observation', ?, 'p', 'm', ?, x'', 0, ?, ?)`, [i + 1, BIG, l.gen, l.offset]),
      ),
    );
    const located = () => store.all<{ id: number; gen: number; offset: number }>('SELECT ref_id AS id, file_gen AS gen, file_offset AS offset FROM vectors ORDER BY ref_id');
    return { dataDir, store, files, located };
  }

  it('rewrites a file once more than half of it is dead, then deletes the old one', async () => {
    const { dataDir, store, files, located } = await withEntries(1100);
    try {
      await store.write((tx) => tx.run('DELETE FROM vectors WHERE ref_id <= 600'));
      const r = await compactAndSweep(store, files, nullLogger, () => false);
      assert.deepEqual(r, { compacted: 1, wiped: 0, swept: 1 });
      assert.deepEqual(vecFiles(dataDir), [files.fileName('m', 'p', 2)]);
      const rows = located();
      assert.equal(rows.length, 500);
      assert.equal(files.size('m', 'p', 2), 500 * entrySize(BIG));
      for (const x of rows) {
        assert.equal(x.gen, 2);
        assert.deepEqual(await readEntry(files, 'm', 'p', 2, { kind: 'observation', id: x.id, dims: BIG, offset: x.offset }), blobOf(x.id));
      }
      // Below half dead and no delete to erase: nothing to do.
      assert.deepEqual(await compactAndSweep(store, files, nullLogger, () => false), { compacted: 0, wiped: 0, swept: 0 });
    } finally {
      await store.close(false);
    }
  });

  it('a scan load reads the vectors whose file was rewritten under it from their new place, and drops none', async () => {
    const { dataDir, store, located } = await withEntries(1100);
    /** Vector files that compact the store's file just before the first read: the rows the load selected then name the old, deleted one. */
    class CompactedUnder extends VectorFiles {
      first = true;
      override async readMany(model: string, project: string, gen: number, wanted: WantedEntry[], each: (w: WantedEntry, blob: Uint8Array | undefined) => void): Promise<void> {
        if (this.first) {
          this.first = false;
          assert.equal((await compactAndSweep(store, this, nullLogger, () => false)).compacted, 1);
        }
        return super.readMany(model, project, gen, wanted, each);
      }
    }
    try {
      await store.write((tx) => tx.run('DELETE FROM vectors WHERE ref_id <= 600'));
      let broken = 0;
      const semantic = new SemanticIndex({ store, model: 'm', log: nullLogger, files: new CompactedUnder(vectorDir(dataDir)), onBroken: () => broken++ });
      const hits = await semantic.query(Float32Array.from({ length: BIG }, (_, k) => Math.sin(700 * 13 + k)), 3, { project: 'p' });
      assert.equal(hits[0].id, 700);
      assert.deepEqual(semantic.scanStats().items, 500);
      assert.equal(broken, 0, 'no vector taken for damaged');
      assert.equal(located().length, 500);
      assert.ok(located().every((x) => x.gen === 2));
    } finally {
      await store.close(false);
    }
  });

  it('wipes dead entries and torn bytes in place after a delete, once each', async () => {
    const { dataDir, store, files, located } = await withEntries(4);
    try {
      const file = path.join(vectorDir(dataDir), files.fileName('m', 'p', 1));
      await store.write((tx) => tx.run('DELETE FROM vectors WHERE ref_id = 2'));
      assert.deepEqual(await compactAndSweep(store, files, nullLogger, () => false, new Set(['other'])), { compacted: 0, wiped: 0, swept: 0 }, 'only the projects that lost records');
      assert.deepEqual(await compactAndSweep(store, files, nullLogger, () => false, new Set(['p'])), { compacted: 0, wiped: entrySize(BIG), swept: 0 });
      assert.ok(fs.readFileSync(file).subarray(entrySize(BIG), 2 * entrySize(BIG)).every((b) => b === 0), 'the whole entry is zeros');
      assert.deepEqual(located().map((x) => x.id), [1, 3, 4]);
      for (const x of located()) assert.deepEqual(await readEntry(files, 'm', 'p', 1, { kind: 'observation', id: x.id, dims: BIG, offset: x.offset }), blobOf(x.id));
      // Torn bytes from a crash before a later append, then another delete: both wiped, the first gap not again.
      fs.appendFileSync(file, Buffer.from([9, 9, 9]));
      const [late] = await files.append('m', 'p', [{ kind: 'observation', id: 5, blob: blobOf(5) }]);
      await store.write((tx) => tx.run(`INSERT INTO vectors (kind, ref_id, project, model, dims, data, created_at, file_gen, file_offset) VALUES ('observation', 5, 'p', 'm', ?, x'', 0, 1, ?)`, [BIG, late.offset]));
      await store.write((tx) => tx.run('DELETE FROM vectors WHERE ref_id = 4'));
      assert.deepEqual(await compactAndSweep(store, files, nullLogger, () => false, new Set(['p'])), { compacted: 0, wiped: entrySize(BIG) + 3, swept: 0 });
      assert.equal(fs.readFileSync(file).indexOf(Buffer.from([9, 9, 9])), -1);
      assert.deepEqual(located().map((x) => x.id), [1, 3, 5]);
      for (const x of located()) assert.deepEqual(await readEntry(files, 'm', 'p', 1, { kind: 'observation', id: x.id, dims: BIG, offset: x.offset }), blobOf(x.id));
    } finally {
      await store.close(false);
    }
  });
});
