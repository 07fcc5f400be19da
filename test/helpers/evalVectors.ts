// The committed vectors of the search evaluation's development sets: each set folder's
// vectors.bin holds the local encoder's vector of every text the evals embed for that set (the
// indexer's record texts, the fold stores' texts of search-eval-models, the questions), so a run
// from a clean clone computes none of them (the encoder costs about 25 ms of CPU a text; the six
// sets hold about 7,500 texts). `node --import tsx test/eval/vectors.ts` writes the files.
//
// A record's vector is kept as the store keeps it (vectors/blob.ts: int8 and a scale, 516 bytes);
// what the pack hands the indexer is a unit vector that encodes back to those bytes. A question's
// vector is kept as float32, as the encoder gave it (the searcher takes the query vector as it comes). Texts are found by a
// hash of the model name and the text; a text the pack does not hold goes to the embedder under it
// (the disk cache, then the encoder), and `stats.missed` counts it.
//
// A changed encoder cannot hide behind the files: `checkSample` re-embeds texts the pack served,
// picked at random, and reports the lowest cosine between fresh and committed vectors.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { createLocalEmbedder, type LocalEmbedder } from '../../worker/search/embed/embedder';
import type { Embedder } from '../../worker/search/embed/types';
import { encodeVector } from '../../worker/search/vectors/blob';
import { prng } from '../fixtures/prng';
import { diskCachedEmbedder, type DiskCacheStats } from './diskCachedEmbedder';
import { ROOT } from './worker';

export const VECTORS_FILE = 'vectors.bin';
const MAGIC = 'CMEVEC1\n';
const KEY_BYTES = 8;

export interface VectorPack {
  model: string;
  dims: number;
  /** Key -> the stored form (4-byte float32 scale, then dims int8). */
  records: Map<string, Uint8Array>;
  /** Key -> the float32 vector. */
  queries: Map<string, Float32Array>;
}

export function vectorKey(model: string, text: string): string {
  return createHash('sha256').update(model).update('\u0000').update(text).digest('hex').slice(0, KEY_BYTES * 2);
}

/** Reads a vectors.bin; undefined when there is none. Throws on a damaged file, naming it. */
export function readPack(file: string): VectorPack | undefined {
  let b: Buffer;
  try {
    b = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  const bad = (why: string) => new Error(`${file}: ${why} (node --import tsx test/eval/vectors.ts writes it again)`);
  if (b.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) throw bad('not a vectors file');
  const headLen = b.readUInt32LE(MAGIC.length);
  let at = MAGIC.length + 4 + headLen;
  const head = JSON.parse(b.subarray(MAGIC.length + 4, at).toString('utf8')) as { model: string; dims: number; records: number; queries: number };
  const recBytes = KEY_BYTES + 4 + head.dims;
  const qBytes = KEY_BYTES + 4 * head.dims;
  if (b.length !== at + head.records * recBytes + head.queries * qBytes) throw bad(`${b.length} bytes, not what its header names`);
  const pack: VectorPack = { model: head.model, dims: head.dims, records: new Map(), queries: new Map() };
  for (let i = 0; i < head.records; i++, at += recBytes) pack.records.set(b.toString('hex', at, at + KEY_BYTES), Uint8Array.from(b.subarray(at + KEY_BYTES, at + recBytes)));
  for (let i = 0; i < head.queries; i++, at += qBytes) {
    const v = new Float32Array(head.dims);
    Buffer.from(v.buffer).set(b.subarray(at + KEY_BYTES, at + qBytes));
    pack.queries.set(b.toString('hex', at, at + KEY_BYTES), v);
  }
  return pack;
}

/** Writes a vectors.bin: `records` kept in the stored int8 form, `queries` as float32; keys sorted, so the same vectors give the same bytes. */
export function writePack(file: string, model: string, dims: number, records: Map<string, Float32Array>, queries: Map<string, Float32Array>): void {
  const recs = [...records].filter(([t]) => !queries.has(t)).map(([t, v]) => [vectorKey(model, t), encodeVector(v)] as const);
  const qs = [...queries].map(([t, v]) => [vectorKey(model, t), v] as const);
  const keys = new Set([...recs, ...qs].map(([k]) => k));
  if (keys.size !== recs.length + qs.length) throw new Error(`${file}: two texts share a key`);
  recs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  qs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const head = Buffer.from(JSON.stringify({ model, dims, records: recs.length, queries: qs.length }));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length);
  const parts: Buffer[] = [Buffer.from(MAGIC, 'latin1'), len, head];
  for (const [k, blob] of recs) {
    if (blob.length !== dims + 4) throw new Error(`${file}: a record vector of ${blob.length - 4} dimensions, not ${dims}`);
    parts.push(Buffer.from(k, 'hex'), Buffer.from(blob));
  }
  for (const [k, v] of qs) {
    if (v.length !== dims) throw new Error(`${file}: a question vector of ${v.length} dimensions, not ${dims}`);
    parts.push(Buffer.from(k, 'hex'), Buffer.from(v.buffer, v.byteOffset, v.byteLength));
  }
  fs.writeFileSync(file, Buffer.concat(parts));
}

/**
 * A unit vector that encodeVector turns back into `blob` (the same int8 values and scale): the
 * dequantised values, the largest kept and the others scaled by one factor so the length is 1
 * (normalising then leaves them, and the scale, as they were).
 */
export function unitFromBlob(blob: Uint8Array, dims: number): Float32Array {
  const scale = new DataView(blob.buffer, blob.byteOffset, 4).getFloat32(0, true);
  const q = new Int8Array(blob.buffer, blob.byteOffset + 4, dims);
  let max = 0;
  for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(q[i]));
  let top = 0;
  let rest = 0;
  for (let i = 0; i < dims; i++) {
    if (Math.abs(q[i]) === max) top += (q[i] * scale) ** 2;
    else rest += (q[i] * scale) ** 2;
  }
  const k = rest > 0 ? Math.sqrt(Math.max(0, 1 - top) / rest) : 1;
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = q[i] * scale * (Math.abs(q[i]) === max ? 1 : k);
  return out;
}

export interface PackStats {
  /** Texts answered from the committed vectors. */
  fromPack: number;
  /** Texts the pack does not hold, passed to the embedder under it. */
  missed: number;
}

export interface PackedEmbedder extends Embedder {
  stats: PackStats;
  /** The distinct texts answered from the pack so far (what checkSample draws from). */
  served: Set<string>;
  /** The committed vector of a text, as handed out. */
  lookup(text: string): Float32Array | undefined;
}

/** The development sets' committed vectors in front of `inner`. */
export function packedEmbedder(inner: Embedder, packs: VectorPack[]): PackedEmbedder {
  for (const p of packs) {
    if (p.model !== inner.name) throw new Error(`committed vectors of ${p.model}, but the encoder is ${inner.name} (node --import tsx test/eval/vectors.ts writes them again)`);
  }
  const stats: PackStats = { fromPack: 0, missed: 0 };
  const served = new Set<string>();
  const lookup = (text: string): Float32Array | undefined => {
    const key = vectorKey(inner.name, text);
    for (const p of packs) {
      const q = p.queries.get(key);
      if (q) return q.slice();
      const r = p.records.get(key);
      if (r) return unitFromBlob(r, p.dims);
    }
    return undefined;
  };
  return {
    stats,
    served,
    lookup,
    get name() {
      return inner.name;
    },
    async embed(texts) {
      const out = texts.map(lookup);
      const missing = [...new Set(texts.filter((_, i) => !out[i]))];
      stats.fromPack += texts.length - texts.filter((_, i) => !out[i]).length;
      texts.forEach((t, i) => {
        if (out[i]) served.add(t);
      });
      stats.missed += missing.length;
      if (missing.length > 0) {
        const got = new Map((await inner.embed(missing)).map((v, i) => [missing[i], v] as const));
        texts.forEach((t, i) => (out[i] ??= got.get(t)?.slice()));
      }
      return out.map((v) => {
        if (!v) throw new Error('packed embedder: missing vector');
        return v;
      });
    },
    close: () => inner.close(),
  };
}

/** Every development set's vectors.bin that is there. */
export function readPacks(dirs: string[]): VectorPack[] {
  return dirs.map((d) => readPack(path.join(d, VECTORS_FILE))).filter((p): p is VectorPack => p !== undefined);
}

export interface SampleCheck {
  seed: number;
  checked: number;
  /** The lowest cosine between a fresh vector and the committed one, and its text. */
  minCosine: number;
  worst: string;
}

/** Re-embeds `n` texts the pack served (drawn with `seed`) with `encoder` itself, not through any cache. */
export async function checkSample(packed: PackedEmbedder, encoder: Embedder, n: number, seed: number): Promise<SampleCheck> {
  const pool = [...packed.served].sort();
  const rand = prng(seed);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  const texts = pool.slice(0, n);
  const fresh = await encoder.embed(texts);
  let minCosine = 1;
  let worst = '';
  texts.forEach((t, i) => {
    const c = cosine(fresh[i], packed.lookup(t) as Float32Array);
    if (c < minCosine) [minCosine, worst] = [c, t];
  });
  return { seed, checked: texts.length, minCosine, worst };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

export interface EvalEmbedder {
  /** The local encoder itself (closing it ends the model process). */
  encoder: LocalEmbedder;
  /** The encoder behind the disk cache under .cache/search-eval-embeddings: for texts no pack holds (the test set's). */
  cached: Embedder & { stats: DiskCacheStats };
  /** The committed vectors of `setDirs`, then `cached`. */
  packed: PackedEmbedder;
}

/** The embedders of the search evals; `setDirs` are the development sets' folders. */
export function evalEmbedder(setDirs: string[], batchSize: number): EvalEmbedder {
  const built = path.join(ROOT, 'dist/embedder.js');
  const threadScript = fs.existsSync(built) ? built : path.join(ROOT, 'worker/search/embedderThread.ts');
  const encoder = createLocalEmbedder({ threadScript, batchSize, log: nullLogger });
  const cached = diskCachedEmbedder(encoder, path.join(ROOT, '.cache/search-eval-embeddings'));
  return { encoder, cached, packed: packedEmbedder(cached, readPacks(setDirs)) };
}
