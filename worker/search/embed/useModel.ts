// Universal Sentence Encoder (lite) on tfjs's wasm backend, as shipped by @energetic-ai.
// Only the model thread imports this: it pulls in all of tfjs.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as core from '@energetic-ai/core';
import { EmbeddingsModel } from '@energetic-ai/embeddings';
import type { EmbedderFiles } from './assets';

// @energetic-ai/core's typings point at @tensorflow/* packages that are not installed, so the
// few calls used here are typed locally.
interface Tensor {
  readonly shape: number[];
  data(): Promise<Float32Array | Int32Array | Uint8Array>;
  dispose(): void;
}
interface GraphModel {
  executeAsync(inputs: Record<string, Tensor>): Promise<Tensor | Tensor[]>;
  dispose(): void;
}
interface WeightsGroup {
  paths: string[];
  weights: unknown[];
}
interface ModelJson {
  modelTopology: unknown;
  weightsManifest: WeightsGroup[];
}
interface ModelArtifacts {
  modelTopology: unknown;
  weightSpecs: unknown[];
  weightData: ArrayBuffer;
}
interface IOHandler {
  load(): Promise<unknown>;
}
interface Tf {
  env(): { getAsync(flag: string): Promise<boolean> };
  setWasmPaths(prefix: string): void;
  setBackend(name: string): Promise<boolean>;
  ready(): Promise<void>;
  getBackend(): string;
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
  loadGraphModel(handler: IOHandler): Promise<GraphModel>;
  io: { fromMemory(artifacts: ModelArtifacts): IOHandler };
}
const tf = core as unknown as Tf;

interface Tokenizer {
  encode(text: string): number[];
}

export interface UseModel {
  readonly backend: string;
  /** Whether the wasm binary with SIMD instructions runs. */
  readonly simd: boolean;
  /** A text's token ids; an empty text gets one separator token (a row without tokens vanishes from the output). */
  tokenize(text: string): number[];
  /** One graph run over tokenized texts: all vectors back to back, encodings.length * dims. */
  run(encodings: number[][]): Promise<Float32Array>;
}

export async function loadUseModel(files: EmbedderFiles): Promise<UseModel> {
  // Must precede backend init; the prefix is concatenated with the file name.
  tf.setWasmPaths(files.wasmDir + path.sep);
  if (!(await tf.setBackend('wasm'))) throw new Error(`tfjs wasm backend failed to start (wasm files in ${files.wasmDir})`);
  await tf.ready();
  const backend = tf.getBackend();
  if (backend !== 'wasm') throw new Error(`expected the wasm backend, got ${backend}`);

  const [graph, vocabulary] = await Promise.all([loadGraph(files.modelDir), readJson(path.join(files.modelDir, 'vocab.json'))]);
  const tokenizer: Tokenizer = new EmbeddingsModel({ model: graph, vocabulary: vocabulary as [string, number][] }).tokenizer;
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  return {
    backend,
    simd,
    tokenize: (text) => tokenizer.encode(text.length > 0 ? text : ' '),
    run: async (encodings) => (encodings.length === 0 ? new Float32Array(0) : run(graph, encodings)),
  };
}

/** Weights come from disk through fromMemory: tfjs's file:// loader uses fetch, which Node lacks for files. */
async function loadGraph(dir: string): Promise<GraphModel> {
  const json = (await readJson(path.join(dir, 'model.json'))) as ModelJson;
  const weightSpecs: unknown[] = [];
  const reads: Promise<Buffer>[] = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) reads.push(fs.readFile(path.join(dir, p)));
  }
  const all = Buffer.concat(await Promise.all(reads));
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer;
  return tf.loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs, weightData }));
}

async function run(graph: GraphModel, encodings: number[][]): Promise<Float32Array> {
  let total = 0;
  for (const e of encodings) total += e.length;
  const indices = new Int32Array(total * 2);
  const values = new Int32Array(total);
  let k = 0;
  encodings.forEach((ids, row) => {
    ids.forEach((id, pos) => {
      indices[2 * k] = row;
      indices[2 * k + 1] = pos;
      values[k++] = id;
    });
  });
  const inputs = { indices: tf.tensor2d(indices, [total, 2], 'int32'), values: tf.tensor1d(values, 'int32') };
  try {
    const out = await graph.executeAsync(inputs);
    const tensor = Array.isArray(out) ? out[0] : out;
    try {
      if (tensor.shape[0] !== encodings.length) throw new Error(`model returned ${tensor.shape[0]} rows for ${encodings.length} texts`);
      const data = await tensor.data();
      if (!(data instanceof Float32Array)) throw new Error('model output is not float32');
      return data;
    } finally {
      if (Array.isArray(out)) out.forEach((t) => t.dispose());
      else out.dispose();
    }
  } finally {
    inputs.indices.dispose();
    inputs.values.dispose();
  }
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
}
