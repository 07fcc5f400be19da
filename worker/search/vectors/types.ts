// Shapes shared by the vector index and its callers (the search layer, SQLite rebuilds).

export type VectorKind = 'observation' | 'summary';

export interface VectorMeta {
  kind: VectorKind;
  /** Row id of the observation or summary in SQLite. */
  refId: number;
  /** Epoch ms. */
  createdAt: number;
}

export interface VectorItem {
  /** Unique within a project, e.g. `o:123` / `s:45`. */
  id: string;
  vector: Float32Array;
  metadata: VectorMeta;
}

export interface VectorHit {
  id: string;
  /** Cosine similarity, -1..1. */
  score: number;
  metadata: VectorMeta;
  /** The item's vector as the index holds it. */
  vector?: readonly number[];
}
