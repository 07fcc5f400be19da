// Hardening (the parts with no worker process): vector index files are 0600 in 0700 folders
// like the rest of the data dir, and the worker's log is rotated by size.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { createLogger, rotateIfLarge } from '../../common/node/log';
import { VectorIndexes } from '../../worker/search/vectors/indexes';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [path.join(dir, e.name), ...walk(path.join(dir, e.name))] : [path.join(dir, e.name)]));
}

test('vector index files are 0600 and their folders 0700, after upsert and after rebuild', { skip: process.platform === 'win32' }, async () => {
  const old = process.umask(0o022);
  try {
    const dir = tmp('vec-modes-');
    const vi = new VectorIndexes({ dir });
    const v = (n: number) => {
      const a = new Float32Array(8).fill(0.1);
      a[n % 8] = 1;
      return a;
    };
    await vi.upsert('proj', [1, 2, 3].map((n) => ({ id: `o:${n}`, vector: v(n), metadata: { kind: 'observation' as const, refId: n, createdAt: n } })));
    await vi.rebuild('other', [4, 5].map((n) => ({ id: `o:${n}`, vector: v(n), metadata: { kind: 'observation' as const, refId: n, createdAt: n } })));
    await vi.close();
    const entries = walk(dir);
    assert.ok(entries.some((f) => fs.statSync(f).isFile()), 'no index file was written');
    for (const f of entries) {
      const st = fs.statSync(f);
      assert.equal(st.mode & 0o777, st.isDirectory() ? 0o700 : 0o600, `${path.relative(dir, f)} is ${(st.mode & 0o777).toString(8)}`);
    }
  } finally {
    process.umask(old);
  }
});

test('the log is rotated by size: the live file and one older file, each near the cap', () => {
  const dir = tmp('log-rotate-');
  const log = createLogger(dir, 'worker', false, 2000);
  for (let i = 0; i < 200; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
  const live = path.join(dir, 'logs', 'worker.log');
  const older = `${live}.1`;
  assert.ok(fs.existsSync(older), 'no rotated file');
  assert.ok(fs.statSync(live).size <= 2000, `worker.log is ${fs.statSync(live).size} bytes`);
  assert.ok(fs.statSync(older).size <= 2000, `worker.log.1 is ${fs.statSync(older).size} bytes`);
  assert.match(fs.readFileSync(live, 'utf8'), /line 199 /);
  assert.equal(fs.statSync(live).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'logs')).sort(), ['worker.log', 'worker.log.1']);
});

test('a forked worker\'s stdout file (worker.out) is rotated by size before it is opened', () => {
  const dir = tmp('out-rotate-');
  const out = path.join(dir, 'worker.out');
  fs.writeFileSync(out, 'x'.repeat(3000));
  rotateIfLarge(out, 5000);
  assert.ok(fs.existsSync(out) && !fs.existsSync(`${out}.1`), 'a small file stays');
  rotateIfLarge(out, 2000);
  assert.ok(!fs.existsSync(out) && fs.statSync(`${out}.1`).size === 3000, 'a large one moves aside');
  rotateIfLarge(path.join(dir, 'none.out'), 10);
});
