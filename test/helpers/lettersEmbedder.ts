// An in-process embedder for search tests: a text's vector is its bag of letters, so every text
// has a vector of its own without a model. `texts` lists every text it embedded.
import type { Embedder } from '../../worker/search/embed/types';

export function lettersEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    name: 'test:letters',
    texts,
    async embed(batch) {
      texts.push(...batch);
      return batch.map((t) => {
        const v = new Float32Array(26);
        for (const c of t.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97]++;
        v[0] += 0.01;
        return v;
      });
    },
    async close() {},
  };
}
