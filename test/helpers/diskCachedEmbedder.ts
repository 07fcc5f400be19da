// An embedder wrapper for the search evaluation: vectors are kept on disk (outside git, under
// .cache/) keyed by a hash of the model name and the text, so a rerun of the eval embeds only
// texts it has not seen. The local model costs 35-45 ms per text on a small shared machine.
// The texts it has to compute go to the model shortest first: tfjs pads every text of a batch to
// the longest one, so batches of texts of about the same length cost about half (512 texts of
// search-dev4 in the indexer's order, batches of 32: 27.4 CPU s; sorted within 256, batches of 16:
// 13.6 CPU s; the vectors equal to 1e-7).
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../../worker/search/embed/types';

export interface DiskCacheStats {
  hits: number;
  misses: number;
}

export function diskCachedEmbedder(inner: Embedder, dir: string): Embedder & { stats: DiskCacheStats } {
  fs.mkdirSync(dir, { recursive: true });
  const stats: DiskCacheStats = { hits: 0, misses: 0 };
  const file = (text: string) => path.join(dir, createHash('sha256').update(inner.name).update('\u0000').update(text).digest('hex').slice(0, 40) + '.f32');
  const read = (text: string): Float32Array | undefined => {
    try {
      const b = fs.readFileSync(file(text));
      return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    } catch {
      return undefined;
    }
  };
  return {
    stats,
    get name() {
      return inner.name;
    },
    async embed(texts) {
      const out: (Float32Array | undefined)[] = texts.map(read);
      const missing = [...new Set(texts.filter((_, i) => !out[i]))].sort((a, b) => a.length - b.length);
      stats.hits += texts.length - texts.filter((_, i) => !out[i]).length;
      stats.misses += missing.length;
      if (missing.length > 0) {
        const vs = await inner.embed(missing);
        const got = new Map(missing.map((t, i) => [t, vs[i]] as const));
        missing.forEach((t, i) => {
          const tmp = `${file(t)}.${process.pid}.tmp`;
          fs.writeFileSync(tmp, Buffer.from(vs[i].buffer, vs[i].byteOffset, vs[i].byteLength));
          fs.renameSync(tmp, file(t));
        });
        texts.forEach((t, i) => (out[i] ??= got.get(t)?.slice()));
      }
      return out.map((v) => {
        if (!v) throw new Error('disk cached embedder: missing vector');
        return v;
      });
    },
    close: () => inner.close(),
  };
}
