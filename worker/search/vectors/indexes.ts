// One vectra index per project, opened on first use and dropped from memory after idleMs.
// vectra keeps a whole index in memory and rewrites the whole file on every save, which is fine
// for a few thousand items per project and poor past tens of thousands; SQLite
// holds every vector too, so an index can always be rebuilt from there with rebuild().
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../../common/node/log';
import { projectFolder } from './projectDir';
import type { VectorHit, VectorItem, VectorKind, VectorMeta } from './types';
import { loadVectra, type IndexCodec, type LocalIndex } from './vectra';

export interface VectorIndexesOptions {
  /** Root folder; each project gets a subfolder. */
  dir: string;
  /** Forget a project's index (memory only; files stay) after this long unused. Default 10 minutes. */
  idleMs?: number;
  log?: Logger;
}

export interface QueryFilter {
  kind?: VectorKind;
}

type Meta = Record<keyof VectorMeta, string | number>;
type OpenMode = 'write' | 'read' | 'raw';

interface Slot {
  project: string;
  folder: string;
  index?: LocalIndex<Meta>;
  codec?: IndexCodec;
  /** Vector length of what is stored; undefined while empty. */
  dims?: number;
  /** Serialises operations: vectra allows one update at a time and saves whole files. */
  chain: Promise<unknown>;
  busy: number;
  timer?: NodeJS.Timeout;
}

export class VectorIndexes {
  private readonly slots = new Map<string, Slot>();
  private readonly idleMs: number;
  private closed = false;

  constructor(private readonly opts: VectorIndexesOptions) {
    this.idleMs = opts.idleMs ?? 10 * 60_000;
  }

  /** Inserts or replaces items; one file write for the whole batch. */
  upsert(project: string, items: VectorItem[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return this.run(project, async (slot, index) => {
      const dims = checkDims(slot.dims, items);
      await index.beginUpdate();
      try {
        for (const it of items) await index.upsertItem({ id: it.id, vector: Array.from(it.vector), metadata: toMeta(it.metadata) });
        await index.endUpdate();
      } catch (e) {
        index.cancelUpdate();
        throw e;
      }
      slot.dims = dims;
    });
  }

  delete(project: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.run(project, async (slot, index) => (slot.index ? index.deleteItems(ids) : undefined), 'read');
  }

  /** Top k by cosine similarity, best first. */
  query(project: string, vector: Float32Array, k: number, filter: QueryFilter = {}): Promise<VectorHit[]> {
    return this.run(project, async (slot, index) => {
      if (slot.dims === undefined || k <= 0) return [];
      if (vector.length !== slot.dims) throw new Error(`vector index: query has ${vector.length} dimensions, index has ${slot.dims}`);
      const where = filter.kind ? { kind: { $eq: filter.kind } } : undefined;
      const results = await index.queryItems(Array.from(vector), '', k, where);
      return results.map((r) => ({ id: r.item.id, score: r.score, metadata: fromMeta(r.item.metadata), vector: r.item.vector }));
    }, 'read');
  }

  /** Items stored; compare with SQLite's count to decide on a rebuild (also 0 after a corrupt file). */
  count(project: string): Promise<number> {
    return this.run(project, async (slot, index) => (slot.index ? (await index.getIndexStats()).items : 0), 'read');
  }

  /**
   * Replaces the project's index with exactly `items` (later duplicates win). Writes the file
   * through vectra's codec in one pass: inserting through LocalIndex is O(n^2) (a linear id
   * check per item).
   */
  rebuild(project: string, items: VectorItem[]): Promise<void> {
    return this.run(
      project,
      async (slot, index) => {
        const byId = new Map(items.map((it) => [it.id, it] as const));
        const dims = checkDims(undefined, [...byId.values()]);
        const data = {
          version: 1,
          metadata_config: {},
          items: [...byId.values()].map((it) => {
            const vector = Array.from(it.vector);
            return { id: it.id, metadata: toMeta(it.metadata), vector, norm: Math.hypot(...vector) };
          }),
        };
        const file = path.join(slot.folder, index.indexName);
        await fs.mkdir(slot.folder, { recursive: true, mode: 0o700 });
        await fs.writeFile(`${file}.tmp`, (slot.codec as IndexCodec).serializeIndex(data), { mode: 0o600 });
        await fs.rename(`${file}.tmp`, file);
        // A fresh LocalIndex reads the new file on next use; the old one holds stale data.
        slot.index = undefined;
        slot.dims = dims;
      },
      'raw',
    );
  }

  /** Deletes the project's index from memory and disk. */
  dropProject(project: string): Promise<void> {
    return this.run(
      project,
      async (slot) => {
        slot.index = undefined;
        slot.dims = undefined;
        await fs.rm(slot.folder, { recursive: true, force: true });
      },
      'raw',
    );
  }

  /** Projects whose index is in memory now. */
  loaded(): string[] {
    return [...this.slots.values()].filter((s) => s.index).map((s) => s.project);
  }

  /** Waits for pending operations, then forgets every index. Files stay. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((s) => s.chain));
    for (const s of this.slots.values()) clearTimeout(s.timer);
    this.slots.clear();
  }

  /**
   * Queues fn behind the project's other operations. Modes: 'write' creates a missing index;
   * 'read' leaves it missing (slot.index stays unset, so nothing is created on disk by a
   * lookup); 'raw' hands over an unopened LocalIndex for file-level work.
   */
  private run<T>(project: string, fn: (slot: Slot, index: LocalIndex<Meta>) => Promise<T>, mode: OpenMode = 'write'): Promise<T> {
    if (this.closed) return Promise.reject(new Error('vector indexes are closed'));
    const slot = this.slot(project);
    slot.busy++;
    clearTimeout(slot.timer);
    const p = slot.chain.then(async () => fn(slot, await this.open(slot, mode)));
    slot.chain = p.then(
      () => this.release(slot),
      () => this.release(slot),
    );
    return p;
  }

  private slot(project: string): Slot {
    let slot = this.slots.get(project);
    if (!slot) {
      slot = { project, folder: projectFolder(this.opts.dir, project), chain: Promise.resolve(), busy: 0 };
      this.slots.set(project, slot);
    }
    return slot;
  }

  private release(slot: Slot): void {
    if (--slot.busy > 0) return;
    slot.timer = setTimeout(() => {
      if (slot.busy === 0 && this.slots.get(slot.project) === slot) {
        this.slots.delete(slot.project);
        this.opts.log?.debug('vector index unloaded after idle', { project: slot.project });
      }
    }, this.idleMs);
    slot.timer.unref();
  }

  /** Loads the index into slot.index; an unreadable file is replaced by an empty index. */
  private async open(slot: Slot, mode: OpenMode): Promise<LocalIndex<Meta>> {
    if (slot.index) return slot.index;
    const v = loadVectra();
    slot.codec ??= v.newCodec();
    const index = new v.LocalIndex<Meta>(slot.folder, undefined, v.newStorage(), slot.codec);
    if (mode === 'raw') return index;
    if (await index.isIndexCreated()) {
      try {
        const first = (await index.listItems())[0];
        slot.dims = first?.vector.length;
        slot.index = index;
        return index;
      } catch (e) {
        this.opts.log?.warn('vector index unreadable, starting empty (rebuilt from the stored vectors)', { project: slot.project, error: String(e) });
      }
    } else if (mode === 'read') {
      slot.dims = undefined;
      return index;
    }
    await index.createIndex({ version: 1, deleteIfExists: true });
    slot.dims = undefined;
    slot.index = index;
    return index;
  }
}

function checkDims(current: number | undefined, items: VectorItem[]): number | undefined {
  let dims = current;
  for (const it of items) {
    dims ??= it.vector.length;
    if (it.vector.length !== dims || dims === 0) throw new Error(`vector index: item ${it.id} has ${it.vector.length} dimensions, expected ${dims}`);
  }
  return dims;
}

function toMeta(m: VectorMeta): Meta {
  return { kind: m.kind, refId: m.refId, createdAt: m.createdAt };
}

function fromMeta(m: Meta): VectorMeta {
  return { kind: m.kind === 'summary' ? 'summary' : 'observation', refId: Number(m.refId), createdAt: Number(m.createdAt) };
}
