// int8 quantisation and a brute-force top k over a flat matrix (the scan's reference and the benches' measure).

export interface MatrixHit {
  /** Row in the matrix. */
  index: number;
  /** Cosine similarity when inputs are L2-normalised (approximate for int8). */
  score: number;
}

export interface Int8Matrix {
  /** count * dims values. */
  data: Int8Array;
  /** Per row: value = data * scale. */
  scales: Float32Array;
  dims: number;
  count: number;
}

/** L2-normalises in place (a zero vector stays zero) and returns it. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}

/** Symmetric per-vector int8: each value maps to round(v / max|v| * 127); scale = max|v| / 127. */
export function quantizeInt8(v: Float32Array, out: Int8Array = new Int8Array(v.length)): { q: Int8Array; scale: number } {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const scale = max > 0 ? max / 127 : 1;
  const inv = 1 / scale;
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i] * inv);
  return { q: out, scale };
}

export function dequantizeInt8(q: Int8Array, scale: number): Float32Array {
  const out = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) out[i] = q[i] * scale;
  return out;
}

/** Quantises rows (an array of vectors, or one flat array of count * dims). */
export function quantizeMatrix(rows: Float32Array[] | Float32Array, dims: number): Int8Matrix {
  const count = Array.isArray(rows) ? rows.length : rows.length / dims;
  if (!Number.isInteger(count)) throw new Error(`quantizeMatrix: length ${rows.length} is not a multiple of ${dims}`);
  const data = new Int8Array(count * dims);
  const scales = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    const row = Array.isArray(rows) ? rows[r] : rows.subarray(r * dims, (r + 1) * dims);
    if (row.length !== dims) throw new Error(`quantizeMatrix: row ${r} has ${row.length} dimensions, expected ${dims}`);
    scales[r] = quantizeInt8(row, data.subarray(r * dims, (r + 1) * dims)).scale;
  }
  return { data, scales, dims, count };
}

/**
 * Brute-force top k by dot product over a flat row-major matrix, best first.
 * Float32Array: exact. Int8Array: the query is quantised too and the dot product is summed in
 * integers, then scaled by `scales` (per row; all-ones when omitted, which keeps only the order).
 */
export function scanTopK(query: Float32Array, matrix: Int8Array | Float32Array, dims: number, k: number, scales?: Float32Array): MatrixHit[] {
  if (query.length !== dims) throw new Error(`scanTopK: query has ${query.length} dimensions, expected ${dims}`);
  const count = Math.floor(matrix.length / dims);
  const top = new TopK(Math.min(k, count));
  if (top.k === 0) return [];
  if (matrix instanceof Float32Array) {
    for (let r = 0; r < count; r++) top.offer(r, dotF32(query, matrix, r * dims, dims));
  } else {
    const { q, scale } = quantizeInt8(query);
    for (let r = 0; r < count; r++) top.offer(r, dotI8(q, matrix, r * dims, dims) * scale * (scales ? scales[r] : 1));
  }
  return top.sorted();
}

function dotF32(q: Float32Array, m: Float32Array, off: number, n: number): number {
  let a = 0;
  let b = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a += q[i] * m[off + i] + q[i + 2] * m[off + i + 2];
    b += q[i + 1] * m[off + i + 1] + q[i + 3] * m[off + i + 3];
  }
  for (; i < n; i++) a += q[i] * m[off + i];
  return a + b;
}

function dotI8(q: Int8Array, m: Int8Array, off: number, n: number): number {
  // |sum| <= 512 * 127 * 127 fits easily in int32; `| 0` keeps V8 on integer arithmetic.
  let a = 0;
  let b = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a = (a + q[i] * m[off + i] + q[i + 2] * m[off + i + 2]) | 0;
    b = (b + q[i + 1] * m[off + i + 1] + q[i + 3] * m[off + i + 3]) | 0;
  }
  for (; i < n; i++) a = (a + q[i] * m[off + i]) | 0;
  return a + b;
}

/** Keeps the k best seen so far, sorted descending; k is small, so insertion beats a heap. */
class TopK {
  private readonly idx: Int32Array;
  private readonly val: Float64Array;
  private n = 0;
  constructor(readonly k: number) {
    this.idx = new Int32Array(k);
    this.val = new Float64Array(k);
  }
  offer(index: number, score: number): void {
    if (this.n === this.k && !(score > this.val[this.k - 1])) return;
    let i = this.n < this.k ? this.n++ : this.k - 1;
    while (i > 0 && this.val[i - 1] < score) {
      this.val[i] = this.val[i - 1];
      this.idx[i] = this.idx[i - 1];
      i--;
    }
    this.val[i] = score;
    this.idx[i] = index;
  }
  sorted(): MatrixHit[] {
    const out: MatrixHit[] = [];
    for (let i = 0; i < this.n; i++) out.push({ index: this.idx[i], score: this.val[i] });
    return out;
  }
}
