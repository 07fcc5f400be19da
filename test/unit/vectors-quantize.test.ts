// int8 quantisation of unit vectors (the scan itself: search-scan.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalize, quantizeInt8 } from '../../worker/search/vectors/blob';

test('quantize then dequantize stays close; zero vectors survive', () => {
  const v = normalize(Float32Array.from({ length: 512 }, (_, i) => Math.sin(i * 0.37)));
  const { q, scale } = quantizeInt8(v);
  const back = Float32Array.from(q, (x) => x * scale);
  let maxErr = 0;
  for (let i = 0; i < v.length; i++) maxErr = Math.max(maxErr, Math.abs(v[i] - back[i]));
  assert.ok(maxErr <= scale / 2 + 1e-7, `max error ${maxErr}, half step ${scale / 2}`);
  assert.ok(Math.max(...q.map(Math.abs)) === 127);
  const z = quantizeInt8(new Float32Array(8));
  assert.deepEqual([...z.q], new Array(8).fill(0));
  assert.deepEqual([...normalize(new Float32Array(3))], [0, 0, 0]);
});
