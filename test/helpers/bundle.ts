// Worker threads and child processes do not get tsx's loader: a test that starts one bundles the
// entry it needs from the current source, as esbuild.config.mjs does for dist/, so that the unit
// tier needs no build. The bundle goes to .cache/test-bundles/ (git-ignored, inside the repository
// so that sql.js and the other packages resolve from node_modules).
import { buildSync } from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const OUT_DIR = path.join(ROOT, '.cache', 'test-bundles');
const built = new Map<string, string>();

/** The path of a CommonJS bundle of entry (relative to the repository), built once per process. */
export function bundledEntry(entry: string): string {
  const known = built.get(entry);
  if (known) return known;
  const name = entry.replace(/\.ts$/, '').replace(/[\\/]/g, '-');
  const out = path.join(OUT_DIR, `${name}.js`);
  const tmp = `${out}.${process.pid}.tmp`;
  fs.mkdirSync(OUT_DIR, { recursive: true });
  // Built under a temporary name and renamed: files running at once each build and never read a half-written one.
  buildSync({ entryPoints: [path.join(ROOT, entry)], outfile: tmp, bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['vscode'], logLevel: 'warning', define: { __VERSION__: JSON.stringify('0.0.0-test') } });
  fs.renameSync(tmp, out);
  built.set(entry, out);
  return out;
}
