// The int8 vector scan: the WebAssembly SIMD kernel against plain arithmetic, and the index's bookkeeping across chunk boundaries (replace, remove,
// drop a project) and filters; plus the blob format vectors are stored in.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CHUNK_ROWS, createArena } from '../../worker/search/int8dot';
import { ScanIndex } from '../../worker/search/scan';
import { encodeVector, int8View, normalize, type Int8Unit } from '../../worker/search/vectors/blob';

let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const DIMS = 100; // not a multiple of 16: rows are padded
const vec = () => normalize(Float32Array.from({ length: DIMS }, () => rand() - 0.5));
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('int8 dot kernel', () => {
  it('the WebAssembly SIMD kernel gives exact integer dot products', () => {
    const a = createArena(DIMS);
    assert.equal(a.stride, 112);
    const q = Int8Array.from({ length: DIMS }, () => Math.floor(rand() * 255) - 127);
    a.bytes().set(q, a.queryOffset);
    const chunk = a.allocChunk();
    const rows = Array.from({ length: 300 }, () => Int8Array.from({ length: DIMS }, () => Math.floor(rand() * 256) - 128));
    rows.forEach((r, i) => a.bytes().set(r, chunk + i * a.stride));
    a.dots(chunk, rows.length);
    const out = a.ints().subarray(a.outOffset / 4, a.outOffset / 4 + rows.length);
    rows.forEach((r, i) => assert.equal(out[i], r.reduce((s, x, j) => s + x * q[j], 0), `row ${i}`));
  });

  it('memory grows for more chunks and freed chunks are reused', () => {
    const a = createArena(512);
    const offsets = Array.from({ length: 40 }, () => a.allocChunk());
    assert.equal(new Set(offsets).size, 40);
    const size = a.size;
    a.freeChunk(offsets[3]);
    assert.equal(a.allocChunk(), offsets[3]);
    assert.equal(a.size, size);
  });
});

describe('scan index', () => {
  const build = (n: number) => {
    const idx = new ScanIndex(DIMS);
    const vs = new Map<string, { v: Float32Array; project: string; epoch: number }>();
    for (let i = 0; i < n; i++) {
      const v = vec();
      const project = i % 3 === 0 ? 'a' : 'b';
      const kind = i % 7 === 0 ? 'summary' : 'observation';
      const blob = encodeVector(v);
      const view = int8View(blob, DIMS);
      assert.ok(view);
      idx.put(project, kind, i, 1000 + i, view.q, view.scale);
      vs.set(`${kind}:${i}`, { v, project, epoch: 1000 + i });
    }
    return { idx, vs };
  };

  it('finds the same top hits as exact cosine over float vectors, across chunks', () => {
    const { idx, vs } = build(CHUNK_ROWS * 2 + 300);
    const q = vec();
    const exact = [...vs.entries()].map(([key, x]) => ({ key, s: cos(q, x.v) })).sort((a, b) => b.s - a.s);
    const hits = idx.query(q, 10);
    assert.equal(hits.length, 10);
    const top10 = new Set(exact.slice(0, 10).map((e) => e.key));
    const overlap = hits.filter((h) => top10.has(`${h.kind}:${h.id}`)).length;
    assert.ok(overlap >= 8, `int8 recall@10 ${overlap}/10`);
    assert.ok(Math.abs(hits[0].score - exact.find((e) => e.key === `${hits[0].kind}:${hits[0].id}`)!.s) < 0.02, 'scores approximate cosine');
  });

  it('filters by project, kind and time', () => {
    const { idx } = build(3000);
    const q = vec();
    assert.ok(idx.query(q, 50, { project: 'a' }).every((h) => h.id % 3 === 0));
    assert.ok(idx.query(q, 50, { kinds: ['summary'] }).every((h) => h.kind === 'summary' && h.id % 7 === 0));
    assert.ok(idx.query(q, 50, { from: 2000, to: 2100 }).every((h) => h.epoch >= 2000 && h.epoch < 2100));
    assert.equal(idx.query(q, 500, { from: 2000, to: 2100 }).length, 100);
    assert.deepEqual(idx.query(q, 5, { project: 'none' }), []);
    assert.deepEqual(idx.query(q, 5, { kinds: ['prompt'] }), []);
  });

  it('replace, remove (swap with the last row, freeing empty chunks) and drop a project', () => {
    const { idx } = build(CHUNK_ROWS + 10);
    const before = idx.count();
    const target = vec();
    const t = int8View(encodeVector(target), DIMS)!;
    idx.put('b', 'observation', 5, 1005, t.q, t.scale); // replaces id 5 (project b)
    assert.equal(idx.count(), before);
    assert.equal(idx.query(target, 1)[0].id, 5);
    for (let i = 0; i < 400; i++) idx.remove(i % 7 === 0 ? 'summary' : 'observation', i, i % 3 === 0 ? 'a' : 'b');
    assert.equal(idx.count(), before - 400);
    assert.ok(idx.query(target, 50).every((h) => h.id >= 400));
    const bBytes = idx.bytes;
    idx.remove('observation', 999_999, 'b'); // unknown: no-op
    assert.equal(idx.bytes, bBytes);
    const a = idx.count('a');
    idx.dropProject('b');
    assert.equal(idx.count(), a);
    assert.ok(idx.query(vec(), 20).every((h) => h.id % 3 === 0));
  });
});

describe('vector blobs', () => {
  it('store int8 plus a scale (4 + dims bytes), and read back close to the unit vector', () => {
    const v = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i) * 3);
    const blob = encodeVector(v);
    assert.equal(blob.byteLength, 516);
    const values = (u: Int8Unit | undefined) => Float32Array.from(u!.q, (x) => x * u!.scale);
    const unit = normalize(Float32Array.from(v));
    assert.ok(cos(unit, values(int8View(blob, 512))) > 0.999);
    assert.equal(int8View(blob, 256), undefined);
    assert.equal(int8View(new Uint8Array(Float32Array.from(unit).buffer), 512), undefined, 'only the int8 form is read');
  });
});
