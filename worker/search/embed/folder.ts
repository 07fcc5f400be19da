// A local embedder the user points at: a model folder (search.localModelDir) with an
// embedder.json that says what is in it. The bundled sentence encoder stays the default.
//
//   { "format": "word-vectors", "name": "glove-100", "file": "vectors.txt", "lowercase": true }
//     Static word vectors in the text format GloVe and fastText (.vec) use: one word and its
//     numbers per line (a fastText "count dims" first line is skipped). A text's vector is the
//     mean of its known words' vectors (identifiers split at camelCase and snake_case); runs on
//     the main thread, microseconds per text, no model process.
//   { "format": "use-tfjs", "name": "use-lite-custom" }
//     A Universal Sentence Encoder lite in the bundled layout (model.json, weight shards,
//     vocab.json), run in a model process like the bundled one.
//
// The embedder's name is "folder:<name>" (the folder's name when the manifest has none), so
// vectors of the bundled model are never mixed with the folder's: the indexer embeds every record
// again under the new name, and `claude-mem reindex --reembed` drops the old vectors.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../../../common/node/log';
import { createLocalEmbedder } from './embedder';
import type { Embedder } from './types';

type FolderFormat = 'word-vectors' | 'use-tfjs';

interface FolderManifest {
  format: FolderFormat;
  name: string;
  file: string;
  lowercase: boolean;
}

const MANIFEST = 'embedder.json';
const FORMATS: readonly FolderFormat[] = ['word-vectors', 'use-tfjs'];

/** Reads and checks the folder's manifest; throws an Error that says what is wrong. */
export function readFolderManifest(dir: string): FolderManifest {
  const file = path.join(dir, MANIFEST);
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`model folder ${dir}: cannot read ${MANIFEST} (${(e as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`model folder ${dir}: ${MANIFEST} is not an object`);
  const m = raw as Record<string, unknown>;
  if (typeof m.format !== 'string' || !FORMATS.includes(m.format as FolderFormat)) {
    throw new Error(`model folder ${dir}: ${MANIFEST} "format" must be one of ${FORMATS.join(', ')}`);
  }
  const name = typeof m.name === 'string' && /^[\w.@-]{1,80}$/.test(m.name) ? m.name : path.basename(path.resolve(dir));
  const fileName = typeof m.file === 'string' && m.file !== '' ? m.file : 'vectors.txt';
  if (m.format === 'word-vectors' && !fs.existsSync(path.join(dir, fileName))) throw new Error(`model folder ${dir}: ${fileName} is missing`);
  if (m.format === 'use-tfjs' && !fs.existsSync(path.join(dir, 'model.json'))) throw new Error(`model folder ${dir}: model.json is missing`);
  return { format: m.format as FolderFormat, name, file: fileName, lowercase: m.lowercase !== false };
}

/** Query and index embedders for a model folder (one shared for word vectors: it has no thread). */
export function createFolderEmbedders(dir: string, opts: { threadScript?: string; idleMs: number; batchSize: number; log: Logger }): { query: Embedder; index: Embedder } {
  const m = readFolderManifest(dir);
  const name = `folder:${m.name}`;
  if (m.format === 'word-vectors') {
    const e = createWordVectorEmbedder(path.join(dir, m.file), name, m.lowercase);
    return { query: e, index: e };
  }
  if (!opts.threadScript) throw new Error('the embedder thread script (embedder.js) was not found beside the worker');
  // One model process for both (embedder.ts serial()).
  const query = createLocalEmbedder({ threadScript: opts.threadScript, idleMs: opts.idleMs, log: opts.log, threadData: { modelDir: dir }, name });
  return { query, index: query.serial(opts.batchSize, Math.min(opts.idleMs, 60_000)) };
}

/** Words of a text as the vector file spells them: identifiers split, optionally lower case. */
export function wordsOf(text: string, lowercase: boolean): string[] {
  const split = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/_/g, ' ');
  const words = split.match(/[\p{L}\p{N}]+/gu) ?? [];
  return lowercase ? words.map((w) => w.toLowerCase()) : words;
}

export function createWordVectorEmbedder(file: string, name: string, lowercase: boolean): Embedder {
  let table: Promise<{ dims: number; vectors: Map<string, Float32Array> }> | undefined;
  let dims = 0;
  const load = () =>
    (table ??= fs.promises.readFile(file, 'utf8').then((text) => {
      const vectors = new Map<string, Float32Array>();
      for (const line of text.split('\n')) {
        const parts = line.trim().split(/\s+/);
        if (parts.length < 3) continue; // blank, or fastText's "count dims" header
        const v = Float32Array.from(parts.slice(1), Number);
        if (v.some((x) => !Number.isFinite(x))) continue;
        if (dims === 0) dims = v.length;
        if (v.length === dims && !vectors.has(parts[0])) vectors.set(parts[0], v);
      }
      if (vectors.size === 0) throw new Error(`${file}: no word vectors found`);
      return { dims, vectors };
    }));
  return {
    name,
    async embed(texts) {
      const t = await load();
      return texts.map((text) => {
        const out = new Float32Array(t.dims);
        let n = 0;
        for (const w of wordsOf(text, lowercase)) {
          const v = t.vectors.get(w);
          if (!v) continue;
          for (let i = 0; i < out.length; i++) out[i] += v[i];
          n += 1;
        }
        let norm = 0;
        for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
        norm = Math.sqrt(norm);
        // A text with no known word keeps a zero vector: it matches nothing rather than everything.
        if (n > 0 && norm > 0) for (let i = 0; i < out.length; i++) out[i] /= norm;
        return out;
      });
    },
    async close() {
      table = undefined;
    },
  };
}
