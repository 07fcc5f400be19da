// The ReDoS guards' check (test/helpers/linear.ts) tells a quadratic pass from a linear one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertLinear, repeated } from '../helpers/linear';

/** Counts, for every position, the 'a's after it: n²/2 steps, like a regex that rescans from each start. */
function quadratic(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) for (let j = i; j < s.length; j++) if (s.charCodeAt(j) === 97) n++;
  return n;
}

/** One pass. */
function linear(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 97) n++;
  return n;
}

describe('the linear-time check', () => {
  // 1,000 -> 16,000 characters: 0.5 million steps against 128 million for the quadratic pass.
  const make = repeated('a', 16_000);

  it('fails a quadratic pass (16x the input, ~256x the CPU time)', () => {
    assert.throws(() => assertLinear(make, quadratic, 3, 0), /16x the input took \d+(\.\d)?x as long/);
  });

  it('passes a linear pass', () => {
    const s = assertLinear(repeated('a', 1 << 22), linear);
    assert.ok(s.ratio < 64, String(s.ratio));
  });
});
