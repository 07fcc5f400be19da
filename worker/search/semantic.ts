// Vector search over the stored vectors: SQLite says which records have one and where it is, the
// bytes are in vector files (vectors/files.ts). Queries are answered by the int8 scan (scan.ts), built from the stored
// vectors on first use; the stored vectors are the source of truth and the scan can be thrown away
// and rebuilt from them. It is dropped after `idleMs` without a vector query, so an idle worker
// does not hold it.
import type { Logger } from '../../common/node/log';
import { collectGarbage } from '../memory';
import type { Store } from '../store/store';
import type { SearchHit } from './hit';
import { ScanIndex, type ScanFilter } from './scan';
import { int8View } from './vectors/blob';
import type { VectorFiles, WantedEntry } from './vectors/files';

export interface StoredVector {
  kind: 'observation' | 'summary';
  id: number;
  project: string;
  epoch: number;
  blob: Uint8Array;
}

export interface SemanticOptions {
  store: Store;
  /** Model name vectors are stored under; only vectors of this model are searched. */
  model: string;
  log: Logger;
  /** Where the vector bytes are. */
  files: VectorFiles;
  /** The scan is dropped after this long without a vector query; absent: kept. */
  idleMs?: number;
  /** Stored vectors failed their check and their rows were dropped: they need embedding again. */
  onBroken?: () => void;
}

/** A row of `vectors`, with where its bytes are. */
interface VectorRow {
  kind: 'observation' | 'summary';
  ref_id: number;
  project: string;
  dims: number;
  created_at: number;
  file_gen: number;
  file_offset: number;
}

const ROW_COLUMNS = 'kind, ref_id, project, dims, created_at, file_gen, file_offset';

export interface SemanticQuery extends ScanFilter {
  /** Attach the stored vector (int8) to this many of the best hits (density.ts needs them). */
  withVectors?: number;
}

const LOAD_CHUNK = 2000;

export class SemanticIndex {
  private scan: ScanIndex | undefined;
  private loading: Promise<ScanIndex | undefined> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Bumped whenever the scan is dropped, so a load that started before does not install a stale copy. */
  private epoch = 0;

  constructor(private readonly o: SemanticOptions) {}

  get files(): VectorFiles {
    return this.o.files;
  }

  scanStats(): { loaded: boolean; items: number; bytes: number } {
    return { loaded: this.scan !== undefined, items: this.scan?.count() ?? 0, bytes: this.scan?.bytes ?? 0 };
  }

  /** Loads the scan index from the stored vectors in chunks, yielding between them so requests keep flowing. */
  loadScan(): Promise<ScanIndex | undefined> {
    if (this.scan) return Promise.resolve(this.scan);
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<ScanIndex | undefined> {
    const t0 = performance.now();
    const epoch = this.epoch;
    let scan: ScanIndex | undefined;
    let after = 0;
    for (;;) {
      const rows = this.o.store.all<VectorRow & { rid: number }>(
        `SELECT rowid AS rid, ${ROW_COLUMNS} FROM vectors WHERE rowid > ? AND model = ? ORDER BY rowid LIMIT ?`,
        [after, this.o.model, LOAD_CHUNK],
      );
      await this.read(rows, (r, blob) => put((scan ??= new ScanIndex(r.dims)), r.project, r.kind, r.ref_id, r.created_at, blob));
      if (rows.length < LOAD_CHUNK) break;
      after = rows[rows.length - 1].rid;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Vectors stored meanwhile behind the cursor reach the index through added(), which waits for this load.
    if (scan && epoch === this.epoch) {
      this.scan = scan;
      this.touch();
    }
    this.o.log.info('vector scan index loaded', { items: scan?.count() ?? 0, ms: Math.round(performance.now() - t0) });
    return scan;
  }

  /**
   * Hands each row's vector bytes to `each` (valid during the call only): the entry its file offset
   * names. Entries that fail their check lose their rows, so the indexer embeds those records again.
   */
  private async read(rows: VectorRow[], each: (r: VectorRow, blob: Uint8Array) => void): Promise<void> {
    const missed = await this.readFiles(rows, each);
    // A row may have moved meanwhile (a file rewritten, its old one deleted): read it where it is now.
    const moved: VectorRow[] = [];
    const broken: VectorRow[] = [];
    for (const row of missed) {
      const now = this.o.store.get<VectorRow>(`SELECT ${ROW_COLUMNS} FROM vectors WHERE kind = ? AND ref_id = ? AND model = ?`, [row.kind, row.ref_id, this.o.model]);
      if (now) (now.file_gen !== row.file_gen || now.file_offset !== row.file_offset ? moved : broken).push(now);
    }
    broken.push(...(await this.readFiles(moved, each)));
    if (broken.length > 0) await this.dropBroken(broken);
  }

  /** read()'s one pass over the files, each file's entries in one readMany; resolves with the rows whose entry missed. */
  private async readFiles(rows: VectorRow[], each: (r: VectorRow, blob: Uint8Array) => void): Promise<VectorRow[]> {
    const inFiles = new Map<string, { project: string; gen: number; wanted: (WantedEntry & { row: VectorRow })[] }>();
    for (const r of rows) {
      const key = `${r.file_gen}\u0000${r.project}`;
      let g = inFiles.get(key);
      if (!g) inFiles.set(key, (g = { project: r.project, gen: r.file_gen, wanted: [] }));
      g.wanted.push({ kind: r.kind, id: r.ref_id, dims: r.dims, offset: r.file_offset, row: r });
    }
    const missed: VectorRow[] = [];
    for (const g of inFiles.values()) {
      await this.o.files.readMany(this.o.model, g.project, g.gen, g.wanted, (w, blob) => {
        const row = (w as WantedEntry & { row: VectorRow }).row;
        if (blob) each(row, blob);
        else missed.push(row);
      });
    }
    return missed;
  }

  private async dropBroken(rows: VectorRow[]): Promise<void> {
    this.o.log.warn('stored vectors failed their check (a damaged or missing vector file); embedding those records again', { count: rows.length, files: [...new Set(rows.map((r) => this.o.files.fileName(this.o.model, r.project, r.file_gen)))].slice(0, 5) });
    try {
      await this.o.store.write((tx) => {
        for (const r of rows) tx.run('DELETE FROM vectors WHERE kind = ? AND ref_id = ? AND model = ? AND file_gen = ? AND file_offset = ?', [r.kind, r.ref_id, this.o.model, r.file_gen, r.file_offset]);
      });
    } catch (e) {
      this.o.log.warn('could not drop the damaged vectors\' rows', { error: (e as Error).message });
      return;
    }
    this.o.onBroken?.();
  }

  /** A vector query used the scan: it stays loaded for another idleMs. */
  private touch(): void {
    if (this.o.idleMs === undefined) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (!this.scan) return;
      const items = this.scan.count();
      this.scan = undefined;
      this.epoch++;
      collectGarbage();
      this.o.log.info('vector scan index dropped after idle time', { items, idleMs: this.o.idleMs });
    }, this.o.idleMs);
    this.idleTimer.unref();
  }

  /** Stops the idle timer (worker stop). */
  close(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Called after the indexer stored vectors. */
  async added(rows: StoredVector[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.loading) await this.loading;
    const scan = this.scan;
    if (scan) for (const r of rows) put(scan, r.project, r.kind, r.id, r.epoch, r.blob);
  }

  removed(kind: 'observation' | 'summary', id: number, project: string): void {
    this.scan?.remove(kind, id, project);
  }

  /** A project lost many records at once (forgotten session or project): reload its part. */
  async projectChanged(project: string): Promise<void> {
    if (this.scan) {
      this.scan.dropProject(project);
      const scan = this.scan;
      const rows = this.o.store.all<VectorRow>(`SELECT ${ROW_COLUMNS} FROM vectors WHERE project = ? AND model = ?`, [project, this.o.model]);
      await this.read(rows, (r, blob) => put(scan, project, r.kind, r.ref_id, r.created_at, blob));
    }
  }

  /** Drops every loaded copy; the next query reloads from the stored vectors. */
  reset(): void {
    this.scan = undefined;
    this.epoch++;
  }

  /** Projects that have vectors of the current model. */
  projects(): string[] {
    return this.o.store.all<{ project: string }>('SELECT DISTINCT project FROM vectors WHERE model = ?', [this.o.model]).map((r) => r.project);
  }

  /** Top k vector hits, best first. Filters other than project, kind and time are the caller's job. */
  async query(vector: Float32Array, k: number, f: SemanticQuery): Promise<SearchHit[]> {
    const kinds = (f.kinds ?? ['observation', 'summary']).filter((x): x is 'observation' | 'summary' => x === 'observation' || x === 'summary');
    if (kinds.length === 0 || k <= 0) return [];
    const scan = await this.loadScan();
    if (!scan) return [];
    this.touch();
    return scan.query(vector, k, { ...f, kinds }, f.withVectors ?? 0);
  }
}

/** Puts a stored vector in the scan; one of another length (another model's size) is left out. */
function put(scan: ScanIndex, project: string, kind: 'observation' | 'summary', id: number, epoch: number, blob: Uint8Array): void {
  const v = int8View(blob, scan.dims);
  if (v) scan.put(project, kind, id, epoch, v.q, v.scale);
}
