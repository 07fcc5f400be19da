// Writes the committed vectors of the development sets (test/helpers/evalVectors.ts): for each
// set, the local encoder's vector of every text the evals embed for it, found the way they find
// them: the indexer's texts of the set's store (and, for the sets of folds.ts, of both fold
// stores) and the texts a semantic search of each question embeds. Never the test set.
//   node --import tsx test/eval/vectors.ts [--sets dev2,dev3] [--keep]
// --keep takes the vectors a set's file already holds and computes only the texts it lacks.
// Run it after changing a development set, the embedded text (worker/search/embedText.ts) or
// the encoder; the evals fail while a development text has no committed vector.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { createLocalEmbedder } from '../../worker/search/embed/embedder';
import { LOCAL_MODEL_DIMS } from '../../worker/search/embed/protocol';
import type { Embedder } from '../../worker/search/embed/types';
import { encodeVector } from '../../worker/search/vectors/blob';
import { packedEmbedder, readPack, unitFromBlob, VECTORS_FILE, writePack } from '../helpers/evalVectors';
import { importDoc, openEvalService, type EvalService } from '../helpers/evalService';
import { ROOT } from '../helpers/worker';
import { FOLD_SETS, readFoldSet } from './folds';
import { scoreMode } from './score';
import { evalSets } from './sets';

async function main(): Promise<void> {
  const at = process.argv.indexOf('--sets');
  const only = at >= 0 ? process.argv[at + 1]?.split(',') : undefined;
  const built = path.join(ROOT, 'dist/embedder.js');
  const encoder = createLocalEmbedder({ threadScript: fs.existsSync(built) ? built : path.join(ROOT, 'worker/search/embedderThread.ts'), batchSize: 32, callTimeoutMs: 3_600_000, log: nullLogger });
  let into = new Map<string, Float32Array>();
  let source: Embedder = encoder;
  // Every text asked for is computed by the encoder itself (with --keep, the set's file first): no cache stands between.
  const recording: Embedder = {
    name: encoder.name,
    async embed(texts) {
      // One message at a time: none waits behind the others on a busy machine.
      const vs: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 32) vs.push(...(await source.embed(texts.slice(i, i + 32))));
      texts.forEach((t, i) => into.set(t, vs[i]));
      return vs;
    },
    close: async () => undefined,
  };
  for (const set of evalSets().filter((s) => s.role === 'development' && (!only || only.includes(s.name)))) {
    const t0 = performance.now();
    const file = path.join(set.dir, VECTORS_FILE);
    const kept = process.argv.includes('--keep') ? readPack(file) : undefined;
    source = kept ? packedEmbedder(encoder, [kept]) : encoder;
    const records = (into = new Map());
    const complete = (svc: EvalService, what: string) => {
      const pending = svc.service.status().pending;
      if (pending > 0) throw new Error(`${set.name} ${what}: ${pending} records were not embedded`);
    };
    const e = await openEvalService(`eval-vectors-${set.name}-`, importDoc(set.history), recording);
    complete(e, 'store');
    const foldSet = FOLD_SETS.find((f) => f.name === set.name);
    if (foldSet) {
      for (const doc of readFoldSet(ROOT, foldSet.name, foldSet.dir).docs) {
        const fold = await openEvalService(`eval-vectors-${set.name}-fold-`, importDoc(doc), recording);
        complete(fold, 'fold store');
        await fold.close();
      }
    }
    const queries = (into = new Map());
    await scoreMode(e.service.searcher, set.questions, 'semantic', set.kinds, set.now);
    await e.close();
    writePack(file, encoder.name, LOCAL_MODEL_DIMS, records, queries);
    // What the evals will be handed must encode to exactly what the indexer stores.
    const pack = readPack(file);
    if (!pack) throw new Error(`${file} was not written`);
    let exact = 0;
    for (const [text, v] of records) {
      if (queries.has(text)) continue;
      const want = encodeVector(v);
      if (Buffer.from(encodeVector(unitFromBlob(want, LOCAL_MODEL_DIMS))).equals(Buffer.from(want))) exact++;
    }
    console.log(
      `${set.name}: ${pack.records.size} record texts (${exact} encode back to the same bytes), ${pack.queries.size} question texts, ` +
        `${(fs.statSync(file).size / 1024).toFixed(0)} KB in ${path.relative(ROOT, file)}; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  await encoder.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
