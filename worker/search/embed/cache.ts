// Small LRU in front of an embedder: search queries repeat (typing, paging, re-runs) and a
// query embedding costs 40-70 ms locally or a round trip remotely.
import type { Embedder } from './types';

export function cachedEmbedder(inner: Embedder, size: number): Embedder {
  // A Map iterates in insertion order: re-inserting on hit keeps the oldest entry first.
  const lru = new Map<string, Float32Array>();
  const remember = (text: string, v: Float32Array) => {
    lru.delete(text);
    lru.set(text, v);
    while (lru.size > size) lru.delete(lru.keys().next().value as string);
  };

  return {
    get name() {
      return inner.name;
    },
    async embed(texts) {
      // Hits are taken before awaiting: a concurrent call may evict them meanwhile.
      const known = new Map<string, Float32Array>();
      for (const t of texts) {
        const v = lru.get(t);
        if (v) known.set(t, v);
      }
      const missing = [...new Set(texts.filter((t) => !known.has(t)))];
      if (missing.length > 0) {
        const vectors = await inner.embed(missing);
        missing.forEach((t, i) => known.set(t, vectors[i]));
      }
      const found = texts.map((t) => known.get(t) as Float32Array);
      if (size > 0) texts.forEach((t, i) => remember(t, found[i]));
      // Callers may write into what they get: hand out copies, keep the originals.
      return found.map((v) => v.slice());
    },
    close: () => inner.close(),
  };
}
