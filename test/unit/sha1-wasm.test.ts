// The hook path's SHA-1 (common/node/freshness/sha1.ts, WebAssembly built by scripts/sha1-wasm.mjs)
// against node:crypto, at every padding edge and across memory growth; and the generated module is
// what its WAT source builds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { blobId } from '../../common/node/freshness/gitRepo';
import { sha1Hex } from '../../common/node/freshness/sha1';

const ROOT = path.resolve(__dirname, '..', '..');
const bytes = (n: number, seed: number) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 131 + seed * 7 + (i >> 8)) & 255;
  return b;
};

describe('SHA-1 in WebAssembly', () => {
  it('equals node:crypto for every length around the padding edges, split or whole', () => {
    const sizes = [0, 1, 2, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4095, 4096, 16_384, 65_000, 65_536 + 513, 300_000, 7];
    for (const [k, n] of sizes.entries()) {
      const b = bytes(n, k);
      const want = createHash('sha1').update(b).digest('hex');
      assert.equal(sha1Hex([b]), want, `${n} bytes`);
      assert.equal(sha1Hex([b.subarray(0, n >> 1), b.subarray(n >> 1)]), want, `${n} bytes in two parts`);
    }
  });

  it('gives git blob ids on both sides of the node:crypto threshold', () => {
    for (const n of [0, 10, 1024 * 1024, 1024 * 1024 + 1]) {
      const b = bytes(n, 3);
      assert.equal(blobId(b), createHash('sha1').update(`blob ${n}\0`).update(b).digest('hex'), `${n} bytes`);
    }
  });

  it('is what scripts/sha1-wasm.mjs builds from its WAT source', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'sha1-wasm.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });
});
