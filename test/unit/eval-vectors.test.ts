// The search evals' committed vectors (test/helpers/evalVectors.ts): what the indexer is handed
// stores exactly the committed bytes, a text the files lack reaches the embedder under them, and
// the sample check tells a changed encoder from the one that wrote them. A seeded stand-in encoder
// keeps this tier free of the 300 MB model; the evals run the same check against the real one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Embedder } from '../../worker/search/embed/types';
import { encodeVector } from '../../worker/search/vectors/blob';
import { prng } from '../fixtures/prng';
import { checkSample, packedEmbedder, readPack, unitFromBlob, writePack } from '../helpers/evalVectors';
import { tempDir } from '../helpers/worker';

const DIMS = 512;

/** A stand-in encoder: a vector per text from a seed and the text; `calls` counts the texts it computed. */
function encoder(seed: number): Embedder & { calls: string[] } {
  const calls: string[] = [];
  const vec = (t: string) => {
    let h = seed;
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x9e3779b1);
    const r = prng(h);
    return Float32Array.from({ length: DIMS }, () => r() * 2 - 1);
  };
  return { name: 'local:stand-in', calls, embed: async (ts) => {
      calls.push(...ts);
      return ts.map(vec);
    },
    close: async () => undefined };
}

describe('committed eval vectors', () => {
  it('a record vector read back encodes to the bytes the indexer stores from the fresh one, for every vector of 3,000', () => {
    const r = prng(7);
    let same = 0;
    for (let n = 0; n < 3000; n++) {
      const v = Float32Array.from({ length: DIMS }, () => (r() + r() + r() - 1.5) * (0.5 + r()));
      const want = encodeVector(v);
      if (Buffer.from(encodeVector(unitFromBlob(want, DIMS))).equals(Buffer.from(want))) same++;
    }
    assert.equal(same, 3000);
  });

  it('a written file reads back: records in the stored form, questions as the same float32, a missing file as none', async () => {
    const dir = tempDir('eval-vectors-');
    const enc = encoder(1);
    const recordTexts = ['Decision: pin the aws provider', 'Bugfix: retry the upload', 'why did we pin it?'];
    const questionTexts = ['why did we pin it?', 'where is the retry'];
    const records = new Map((await enc.embed(recordTexts)).map((v, i) => [recordTexts[i], v]));
    const queries = new Map((await enc.embed(questionTexts)).map((v, i) => [questionTexts[i], v]));
    const file = path.join(dir, 'vectors.bin');
    writePack(file, enc.name, DIMS, records, queries);
    const pack = readPack(file);
    assert.ok(pack);
    // A text both stored and asked is kept once, exactly, as a question.
    assert.equal(pack.records.size, 2);
    assert.equal(pack.queries.size, 2);
    assert.equal(readPack(path.join(dir, 'none.bin')), undefined);

    const under = encoder(1);
    const packed = packedEmbedder(under, [pack]);
    const [rec, question, other] = await packed.embed(['Bugfix: retry the upload', 'why did we pin it?', 'a text no file holds']);
    assert.deepEqual(encodeVector(rec), encodeVector(records.get('Bugfix: retry the upload') as Float32Array));
    assert.deepEqual(question, queries.get('why did we pin it?'));
    assert.deepEqual(other, (await encoder(1).embed(['a text no file holds']))[0]);
    assert.deepEqual(under.calls, ['a text no file holds']);
    assert.deepEqual(packed.stats, { fromPack: 2, missed: 1 });
    assert.deepEqual([...packed.served].sort(), ['Bugfix: retry the upload', 'why did we pin it?']);
  });

  it('the sample check finds the encoder that wrote the vectors in agreement and another one not', async () => {
    const dir = tempDir('eval-vectors-');
    const enc = encoder(1);
    const texts = Array.from({ length: 100 }, (_, i) => `record ${i}`);
    writePack(path.join(dir, 'vectors.bin'), enc.name, DIMS, new Map((await enc.embed(texts)).map((v, i) => [texts[i], v])), new Map());
    const packed = packedEmbedder(enc, [readPack(path.join(dir, 'vectors.bin')) as NonNullable<ReturnType<typeof readPack>>]);
    await packed.embed(texts);
    const same = await checkSample(packed, encoder(1), 64, 42);
    assert.equal(same.checked, 64);
    assert.ok(same.minCosine >= 0.999, String(same.minCosine));
    const changed = await checkSample(packed, encoder(2), 64, 42);
    assert.ok(changed.minCosine < 0.5, String(changed.minCosine));
  });

  it('refuses vectors of another model and a damaged file', async () => {
    const dir = tempDir('eval-vectors-');
    const enc = encoder(1);
    const file = path.join(dir, 'vectors.bin');
    writePack(file, 'local:other-model', DIMS, new Map((await enc.embed(['a'])).map((v) => ['a', v])), new Map());
    assert.throws(() => packedEmbedder(enc, [readPack(file) as NonNullable<ReturnType<typeof readPack>>]), /committed vectors of local:other-model/);
    fs.writeFileSync(file, fs.readFileSync(file).subarray(0, 100));
    assert.throws(() => readPack(file), /not what its header names/);
  });
});
