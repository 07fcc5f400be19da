// SHA-1 in plain JS for small inputs. Loading node:crypto costs a hook process about 50 M
// instructions (OpenSSL's start-up, measured with callgrind: half of a whole observation hook);
// a hook's code runs in V8's interpreter, where this costs about 160 k instructions per 64-byte
// block (callgrind), so blobId() uses it up to SMALL bytes (about where the two cost the same)
// and node:crypto above (see docs/freshness.md).
export const SMALL = 16 * 1024;

const W = new Int32Array(80);

export function sha1Hex(parts: Uint8Array[]): string {
  let len = 0;
  for (const p of parts) len += p.length;
  // Message + 0x80 + zero padding + 64-bit big-endian bit length, to a multiple of 64 bytes.
  const total = (((len + 9 + 63) >> 6) << 6) >>> 0;
  const buf = Buffer.alloc(total);
  let off = 0;
  for (const p of parts) {
    buf.set(p, off);
    off += p.length;
  }
  buf[len] = 0x80;
  const bits = len * 8;
  buf.writeUInt32BE(Math.floor(bits / 2 ** 32), total - 8);
  buf.writeUInt32BE(bits >>> 0, total - 4);
  // Big-endian words: one native byte swap, then read them as host-order (little-endian) ints.
  buf.swap32();
  const m = new Int32Array(buf.buffer, buf.byteOffset, total >> 2);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  const w = W;
  for (let blk = 0; blk < m.length; blk += 16) {
    for (let i = 0; i < 16; i++) w[i] = m[blk + i];
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let t = 0;
    let i = 0;
    for (; i < 20; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 40; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 60; i++) {
      t = (((a << 5) | (a >>> 27)) + ((b & c) | (b & d) | (c & d)) + e - 0x70e44324 + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    for (; i < 80; i++) {
      t = (((a << 5) | (a >>> 27)) + (b ^ c ^ d) + e - 0x359d3e2a + w[i]) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  return hex(h0) + hex(h1) + hex(h2) + hex(h3) + hex(h4);
}

const hex = (h: number) => (h >>> 0).toString(16).padStart(8, '0');
