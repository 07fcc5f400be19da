// int8 quantisation and the brute-force scan over a flat matrix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dequantizeInt8, normalize, quantizeInt8, quantizeMatrix, scanTopK } from '../../worker/search/vectors/quantize';

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

/** Clustered unit vectors, like sentence embeddings of related notes. */
function dataset(count: number, dims: number, clusters: number, seed: number): Float32Array[] {
  const r = rng(seed);
  const centers = Array.from({ length: clusters }, () => normalize(Float32Array.from({ length: dims }, () => gauss(r))));
  return Array.from({ length: count }, () => {
    const c = centers[Math.floor(r() * clusters)];
    return normalize(Float32Array.from(c, (x) => x + 0.08 * gauss(r)));
  });
}

function flat(rows: Float32Array[], dims: number): Float32Array {
  const m = new Float32Array(rows.length * dims);
  rows.forEach((v, i) => m.set(v, i * dims));
  return m;
}

test('quantize then dequantize stays close; zero vectors survive', () => {
  const v = normalize(Float32Array.from({ length: 512 }, (_, i) => Math.sin(i * 0.37)));
  const { q, scale } = quantizeInt8(v);
  const back = dequantizeInt8(q, scale);
  let maxErr = 0;
  for (let i = 0; i < v.length; i++) maxErr = Math.max(maxErr, Math.abs(v[i] - back[i]));
  assert.ok(maxErr <= scale / 2 + 1e-7, `max error ${maxErr}, half step ${scale / 2}`);
  assert.ok(Math.max(...q.map(Math.abs)) === 127);
  const z = quantizeInt8(new Float32Array(8));
  assert.deepEqual([...z.q], new Array(8).fill(0));
  assert.deepEqual([...normalize(new Float32Array(3))], [0, 0, 0]);
});

test('float scan is exact: same order and scores as a full sort', () => {
  const dims = 64;
  const rows = dataset(500, dims, 10, 1);
  const query = dataset(1, dims, 10, 99)[0];
  const got = scanTopK(query, flat(rows, dims), dims, 7);
  const expected = rows
    .map((v, index) => ({ index, score: v.reduce((s, x, i) => s + x * query[i], 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 7);
  assert.deepEqual(
    got.map((h) => h.index),
    expected.map((h) => h.index),
  );
  got.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i].score) < 1e-5));
});

test('int8 scan: recall@10 against the float scan is at least 0.95, scores near cosine', () => {
  const dims = 512;
  const rows = dataset(3000, dims, 60, 2);
  const queries = dataset(30, dims, 60, 3);
  const f32 = flat(rows, dims);
  const q8 = quantizeMatrix(rows, dims);
  assert.equal(q8.count, 3000);
  let found = 0;
  let maxScoreErr = 0;
  for (const q of queries) {
    const exact = scanTopK(q, f32, dims, 10);
    const approx = scanTopK(q, q8.data, dims, 10, q8.scales);
    const want = new Set(exact.map((h) => h.index));
    found += approx.filter((h) => want.has(h.index)).length;
    maxScoreErr = Math.max(maxScoreErr, Math.abs(exact[0].score - approx[0].score));
  }
  const recall = found / (queries.length * 10);
  assert.ok(recall >= 0.95, `recall@10 ${recall}`);
  assert.ok(maxScoreErr < 0.02, `top score error ${maxScoreErr}`);
});

test('edges: k above count, k = 0, flat input to quantizeMatrix, wrong dims', () => {
  const dims = 4;
  const m = Float32Array.of(1, 0, 0, 0, 0, 1, 0, 0);
  assert.deepEqual(
    scanTopK(Float32Array.of(0, 1, 0, 0), m, dims, 10).map((h) => h.index),
    [1, 0],
  );
  assert.deepEqual(scanTopK(Float32Array.of(0, 1, 0, 0), m, dims, 0), []);
  const q = quantizeMatrix(m, dims);
  assert.equal(q.count, 2);
  assert.equal(scanTopK(Float32Array.of(0, 1, 0, 0), q.data, dims, 1, q.scales)[0].index, 1);
  assert.throws(() => scanTopK(new Float32Array(3), m, dims, 1), /3 dimensions/);
  assert.throws(() => quantizeMatrix(new Float32Array(5), dims), /not a multiple/);
});
