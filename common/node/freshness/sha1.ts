// SHA-1 for git blob ids on the hook path, in WebAssembly (sha1Wasm.ts, built from the WAT in
// scripts/sha1-wasm.mjs). Loading node:crypto costs a hook process about 54 M instructions
// (OpenSSL's start-up); SHA-1 in plain JS was cheap only until V8 optimised it (9 KB: 41 M, most
// of it TurboFan compiling the loop). The wasm module compiles and runs a 9 KB file in well under
// 1 M, so blobId() uses it up to SMALL bytes and node:crypto above (see docs/freshness.md).
import { HASH_OFFSET, MESSAGE_OFFSET, SHA1_WASM } from './sha1Wasm';

/** Above this, node:crypto's native SHA-1 repays its start-up. */
export const SMALL = 1024 * 1024;

const PAGE = 64 * 1024;

interface Sha1Module {
  mem: WebAssembly.Memory;
  sha1: (blocks: number) => void;
}
let mod: Sha1Module | undefined;

function instance(): Sha1Module {
  if (!mod) {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SHA1_WASM, 'base64'))).exports;
    mod = { mem: exports.mem as WebAssembly.Memory, sha1: exports.sha1 as Sha1Module['sha1'] };
  }
  return mod;
}

export function sha1Hex(parts: Uint8Array[]): string {
  let len = 0;
  for (const p of parts) len += p.length;
  // Message + 0x80 + zero padding + 64-bit big-endian bit length, to a multiple of 64 bytes.
  const total = (((len + 9 + 63) >> 6) << 6) >>> 0;
  const m = instance();
  const need = MESSAGE_OFFSET + total;
  if (m.mem.buffer.byteLength < need) m.mem.grow(Math.ceil((need - m.mem.buffer.byteLength) / PAGE));
  // Views after any grow: growing detaches the old buffer.
  const msg = Buffer.from(m.mem.buffer, MESSAGE_OFFSET, total);
  let off = 0;
  for (const p of parts) {
    msg.set(p, off);
    off += p.length;
  }
  msg.fill(0, len); // the memory keeps the previous message
  msg[len] = 0x80;
  const bits = len * 8;
  msg.writeUInt32BE(Math.floor(bits / 2 ** 32), total - 8);
  msg.writeUInt32BE(bits >>> 0, total - 4);
  // Big-endian words: one native byte swap, then wasm reads them as little-endian i32.
  msg.swap32();
  m.sha1(total >> 6);
  const h = new Int32Array(m.mem.buffer, HASH_OFFSET, 5);
  return hex(h[0]) + hex(h[1]) + hex(h[2]) + hex(h[3]) + hex(h[4]);
}

const hex = (h: number) => (h >>> 0).toString(16).padStart(8, '0');
