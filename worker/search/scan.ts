// The compact vector index: every current-model vector as int8 rows, grouped per project, scanned
// brute force with a WebAssembly SIMD dot product (int8dot.ts). At 100k x 512 that is 52 MB and a
// few milliseconds per query, against vectra's 1.6 GB and 166 ms. Built from the
// stored vectors, so it is never the only copy.
import type { SearchKind } from '../../common/contract';
import { CHUNK_ROWS, createArena, type Int8Arena } from './int8dot';
import { quantizeInt8, type Int8Unit } from './vectors/blob';
import type { SearchHit } from './hit';

export interface ScanFilter {
  project?: string;
  kinds?: readonly SearchKind[];
  /** Epoch ms, inclusive / exclusive. */
  from?: number;
  to?: number;
}

const KIND_CODE = { observation: 0, summary: 1 } as const;
const KIND_OF = ['observation', 'summary'] as const;

function grown<T extends Float32Array | Int32Array | Uint8Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

/** One project's rows: vector bytes in arena chunks, metadata in typed arrays. */
class Block {
  chunks: number[] = [];
  scales = new Float32Array(64);
  ids = new Int32Array(64);
  kinds = new Uint8Array(64);
  epochs = new Float64Array(64);
  count = 0;
  /** key (kind * 2^32 + id) -> row */
  rows = new Map<number, number>();

  constructor(
    readonly project: string,
    private readonly arena: Int8Arena,
    private readonly dims: number,
  ) {}

  offsetOf(row: number): number {
    return this.chunks[Math.floor(row / CHUNK_ROWS)] + (row % CHUNK_ROWS) * this.arena.stride;
  }

  put(kind: 0 | 1, id: number, epoch: number, q: Int8Array, scale: number): void {
    const key = kind * 2 ** 32 + id;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = this.count++;
      if (row >= this.chunks.length * CHUNK_ROWS) this.chunks.push(this.arena.allocChunk());
      if (row >= this.scales.length) {
        const cap = this.scales.length * 2;
        this.scales = grown(this.scales, cap);
        this.ids = grown(this.ids, cap);
        this.kinds = grown(this.kinds, cap);
        this.epochs = grown(this.epochs, cap);
      }
      this.rows.set(key, row);
    }
    this.arena.bytes().set(q, this.offsetOf(row));
    this.scales[row] = scale;
    this.ids[row] = id;
    this.kinds[row] = kind;
    this.epochs[row] = epoch;
  }

  /** A copy of one row's vector (dims bytes, not the padding) and its scale. */
  unit(row: number): Int8Unit {
    const at = this.offsetOf(row);
    return { q: this.arena.bytes().slice(at, at + this.dims), scale: this.scales[row] };
  }

  /** Swap-removes the row; a chunk left empty goes back to the arena. */
  remove(kind: 0 | 1, id: number): void {
    const key = kind * 2 ** 32 + id;
    const row = this.rows.get(key);
    if (row === undefined) return;
    this.rows.delete(key);
    const last = --this.count;
    if (row !== last) {
      const from = this.offsetOf(last);
      this.arena.bytes().copyWithin(this.offsetOf(row), from, from + this.arena.stride);
      this.scales[row] = this.scales[last];
      this.ids[row] = this.ids[last];
      this.kinds[row] = this.kinds[last];
      this.epochs[row] = this.epochs[last];
      this.rows.set(this.kinds[row] * 2 ** 32 + this.ids[row], row);
    }
    this.arena.bytes().fill(0, this.offsetOf(last), this.offsetOf(last) + this.arena.stride);
    if (this.count <= (this.chunks.length - 1) * CHUNK_ROWS) this.arena.freeChunk(this.chunks.pop() as number);
  }

  release(): void {
    for (const c of this.chunks) this.arena.freeChunk(c);
    this.chunks = [];
    this.count = 0;
    this.rows.clear();
  }

  get bytes(): number {
    return this.chunks.length * CHUNK_ROWS * this.arena.stride + this.scales.byteLength + this.ids.byteLength + this.kinds.byteLength + this.epochs.byteLength;
  }
}

export class ScanIndex {
  private readonly blocks = new Map<string, Block>();
  private readonly arena: Int8Arena;

  constructor(readonly dims: number) {
    this.arena = createArena(dims);
  }

  /** Adds or replaces one vector (already int8 with its scale, as stored in SQLite). */
  put(project: string, kind: 'observation' | 'summary', id: number, epoch: number, q: Int8Array, scale: number): void {
    if (q.length !== this.dims) throw new Error(`scan index: vector has ${q.length} dimensions, expected ${this.dims}`);
    let b = this.blocks.get(project);
    if (!b) {
      b = new Block(project, this.arena, this.dims);
      this.blocks.set(project, b);
    }
    b.put(KIND_CODE[kind], id, epoch, q, scale);
  }

  remove(kind: 'observation' | 'summary', id: number, project: string): void {
    this.blocks.get(project)?.remove(KIND_CODE[kind], id);
  }

  dropProject(project: string): void {
    this.blocks.get(project)?.release();
    this.blocks.delete(project);
  }

  count(project?: string): number {
    if (project !== undefined) return this.blocks.get(project)?.count ?? 0;
    let n = 0;
    for (const b of this.blocks.values()) n += b.count;
    return n;
  }

  get bytes(): number {
    let n = 0;
    for (const b of this.blocks.values()) n += b.bytes;
    return n;
  }

  /** Top k by cosine similarity, best first. */
  query(vector: Float32Array, k: number, f: ScanFilter = {}, withVectors = 0): SearchHit[] {
    if (vector.length !== this.dims) throw new Error(`scan index: query has ${vector.length} dimensions, index has ${this.dims}`);
    if (k <= 0) return [];
    const wantObs = !f.kinds || f.kinds.includes('observation');
    const wantSum = !f.kinds || f.kinds.includes('summary');
    if (!wantObs && !wantSum) return [];
    const { q, scale } = quantizeInt8(vector);
    const bytes = this.arena.bytes();
    bytes.fill(0, this.arena.queryOffset, this.arena.queryOffset + this.arena.stride);
    bytes.set(q, this.arena.queryOffset);
    const top = new TopK(k);
    const blocks = f.project !== undefined ? [this.blocks.get(f.project)].filter((b): b is Block => !!b) : [...this.blocks.values()];
    const from = f.from ?? -Infinity;
    const to = f.to ?? Infinity;
    const outBase = this.arena.outOffset >> 2;
    for (const b of blocks) {
      const { scales, kinds, epochs } = b;
      for (let c = 0; c < b.chunks.length; c++) {
        const first = c * CHUNK_ROWS;
        const n = Math.min(CHUNK_ROWS, b.count - first);
        if (n <= 0) break;
        this.arena.dots(b.chunks[c], n);
        const out = this.arena.ints();
        for (let i = 0; i < n; i++) {
          const r = first + i;
          const kind = kinds[r];
          if ((kind === 0 && !wantObs) || (kind === 1 && !wantSum)) continue;
          const t = epochs[r];
          if (t < from || t >= to) continue;
          top.offer(b, r, out[outBase + i] * scales[r]);
        }
      }
    }
    return top.sorted().map(({ block, row, score }, i) => ({
      kind: KIND_OF[block.kinds[row]],
      id: block.ids[row],
      epoch: block.epochs[row],
      score: score * scale,
      ...(i < withVectors ? { unit: block.unit(row) } : {}),
    }));
  }
}

/** The k best so far, kept sorted; k is small, so insertion beats a heap. */
class TopK {
  private items: { block: Block; row: number; score: number }[] = [];
  private min = -Infinity;
  constructor(private readonly k: number) {}
  offer(block: Block, row: number, score: number): void {
    if (this.items.length === this.k && score <= this.min) return;
    let i = this.items.length;
    while (i > 0 && this.items[i - 1].score < score) i--;
    this.items.splice(i, 0, { block, row, score });
    if (this.items.length > this.k) this.items.pop();
    if (this.items.length === this.k) this.min = this.items[this.k - 1].score;
  }
  sorted(): { block: Block; row: number; score: number }[] {
    return this.items;
  }
}
