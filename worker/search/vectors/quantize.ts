// int8 quantisation of unit vectors (vectorBlob.ts stores them this way; scan.ts scores them).

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
