// Per-project vectra indexes: CRUD, idle eviction, reload from disk, rebuild, folder naming.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../common/node/log';
import { VectorIndexes } from '../../worker/search/vectors/indexes';
import { projectFolder, projectFolderName } from '../../worker/search/vectors/projectDir';
import type { VectorItem, VectorKind } from '../../worker/search/vectors/types';

const DIMS = 16;
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vectors-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** Unit-ish vectors: item n points mostly along axis n % DIMS. */
function vec(n: number, wobble = 0): Float32Array {
  const v = new Float32Array(DIMS).fill(0.01);
  v[n % DIMS] = 1;
  v[(n + 1) % DIMS] = 0.3 + wobble;
  return v;
}
function item(n: number, kind: VectorKind = 'observation', wobble = 0): VectorItem {
  return { id: `${kind[0]}:${n}`, vector: vec(n, wobble), metadata: { kind, refId: n, createdAt: 1_700_000_000_000 + n } };
}

test('upsert, query (with kind filter), replace, delete', async (t) => {
  const vi = new VectorIndexes({ dir: tmp() });
  t.after(() => vi.close());
  await vi.upsert('proj', [item(1), item(2), item(3), item(4, 'summary')]);
  assert.equal(await vi.count('proj'), 4);

  const hits = await vi.query('proj', vec(2), 2);
  assert.deepEqual(
    hits.map((h) => h.id),
    ['o:2', 'o:1'],
  );
  assert.ok(hits[0].score > 0.99 && hits[0].score > hits[1].score);
  assert.deepEqual(hits[0].metadata, { kind: 'observation', refId: 2, createdAt: 1_700_000_000_002 });

  assert.deepEqual(
    (await vi.query('proj', vec(4), 10, { kind: 'summary' })).map((h) => h.id),
    ['s:4'],
  );
  assert.equal((await vi.query('proj', vec(1), 50)).length, 4);

  // Same id again replaces the vector instead of adding an item.
  await vi.upsert('proj', [{ ...item(1), vector: vec(9) }]);
  assert.equal(await vi.count('proj'), 4);
  assert.equal((await vi.query('proj', vec(9), 1))[0].id, 'o:1');

  await vi.delete('proj', ['o:1', 'o:2', 'missing']);
  assert.equal(await vi.count('proj'), 2);
  assert.ok((await vi.query('proj', vec(2), 5)).every((h) => h.id !== 'o:2'));
});

test('projects are separate; an unknown project is empty', async (t) => {
  const dir = tmp();
  const vi = new VectorIndexes({ dir });
  t.after(() => vi.close());
  await vi.upsert('a', [item(1)]);
  await vi.upsert('b', [item(2), item(3)]);
  assert.equal(await vi.count('a'), 1);
  assert.equal(await vi.count('b'), 2);
  assert.deepEqual(await vi.query('nobody', vec(1), 3), []);
  assert.equal(await vi.count('nobody'), 0);
  await vi.delete('nobody', ['o:1']);
  assert.equal(fs.existsSync(projectFolder(dir, 'nobody')), false, 'lookups create nothing on disk');
});

test('idle projects are evicted from memory and reload from disk', async (t) => {
  const dir = tmp();
  const vi = new VectorIndexes({ dir, idleMs: 50 });
  t.after(() => vi.close());
  await vi.upsert('p', [item(1), item(2)]);
  assert.deepEqual(vi.loaded(), ['p']);
  for (const end = Date.now() + 5000; vi.loaded().length > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(vi.loaded(), []);
  assert.equal((await vi.query('p', vec(2), 1))[0].id, 'o:2');

  // A new instance (a worker restart) sees the same data.
  const again = new VectorIndexes({ dir });
  t.after(() => again.close());
  assert.equal(await again.count('p'), 2);
  assert.equal((await again.query('p', vec(1), 1))[0].id, 'o:1');
});

test('concurrent writes to one project all land', async (t) => {
  const vi = new VectorIndexes({ dir: tmp() });
  t.after(() => vi.close());
  await Promise.all(Array.from({ length: 6 }, (_, i) => vi.upsert('p', [item(i * 2), item(i * 2 + 1)])));
  assert.equal(await vi.count('p'), 12);
});

test('rebuild replaces everything (later duplicates win); dropProject removes the folder', async (t) => {
  const dir = tmp();
  const vi = new VectorIndexes({ dir });
  t.after(() => vi.close());
  await vi.upsert('p', [item(1), item(2)]);
  const fresh = Array.from({ length: 50 }, (_, i) => item(i + 10, i % 5 === 0 ? 'summary' : 'observation'));
  await vi.rebuild('p', [...fresh, { ...item(10, 'summary'), vector: vec(3) }]);
  assert.equal(await vi.count('p'), 50);
  assert.deepEqual(
    (await vi.query('p', vec(3), 1)).map((h) => h.id),
    ['s:10'],
  );
  assert.equal((await vi.query('p', vec(1), 50)).some((h) => h.id === 'o:1'), false);

  const reopened = new VectorIndexes({ dir });
  t.after(() => reopened.close());
  assert.equal(await reopened.count('p'), 50);

  const folder = projectFolder(dir, 'p');
  assert.ok(fs.existsSync(folder));
  await vi.dropProject('p');
  assert.equal(fs.existsSync(folder), false);
  assert.equal(await vi.count('p'), 0);
});

test('a corrupt index file becomes an empty index and is logged', async (t) => {
  const dir = tmp();
  const warnings: string[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} };
  const first = new VectorIndexes({ dir });
  await first.upsert('p', [item(1)]);
  await first.close();
  fs.writeFileSync(path.join(projectFolder(dir, 'p'), 'index.pb'), Buffer.from([0xff, 0xff, 0xff, 0x0f, 0x12]));
  const vi = new VectorIndexes({ dir, log });
  t.after(() => vi.close());
  assert.equal(await vi.count('p'), 0);
  assert.match(warnings.join('\n'), /unreadable/);
  await vi.upsert('p', [item(2)]);
  assert.equal(await vi.count('p'), 1);
});

test('mixed dimensions are refused', async (t) => {
  const vi = new VectorIndexes({ dir: tmp() });
  t.after(() => vi.close());
  await vi.upsert('p', [item(1)]);
  await assert.rejects(vi.upsert('p', [{ ...item(2), vector: new Float32Array(8) }]), /8 dimensions, expected 16/);
  await assert.rejects(vi.query('p', new Float32Array(8), 1), /query has 8 dimensions/);
  assert.equal(await vi.count('p'), 1);
});

test('close refuses new work', async () => {
  const vi = new VectorIndexes({ dir: tmp() });
  await vi.upsert('p', [item(1)]);
  await vi.close();
  await assert.rejects(vi.count('p'), /closed/);
});

test('project names cannot escape the root, and distinct names never share a folder', async (t) => {
  const root = tmp();
  const names = ['../../etc', '..', '.', '/abs/path', 'a/b', 'a_b', 'A_b', 'C:\\x', 'con', '.hidden', 'naïve ☃', 'x'.repeat(500), 'a\0b'];
  const folders = names.map((n) => projectFolder(root, n));
  for (const f of folders) {
    assert.equal(path.dirname(f), root);
    assert.match(path.basename(f), /^[A-Za-z0-9_-][A-Za-z0-9._-]*-[0-9a-f]{12}$/);
    assert.ok(path.basename(f).length <= 53);
  }
  assert.equal(new Set(folders).size, names.length);
  assert.equal(projectFolderName('my-repo'), projectFolderName('my-repo'));
  assert.throws(() => projectFolderName(''), /empty project name/);

  const vi = new VectorIndexes({ dir: root });
  t.after(() => vi.close());
  await vi.upsert('../../escape', [item(1)]);
  assert.deepEqual(fs.readdirSync(path.dirname(root)).filter((n) => n === 'escape'), []);
  assert.equal(fs.readdirSync(root).length, 1);
});
