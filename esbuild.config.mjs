// Bundles each process's entry point into dist/. Node bundles are CommonJS (VS Code loads
// the extension with require). sql.js's .wasm is copied beside the bundles.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const watch = process.argv.includes('--watch');

/** Node-side bundles: [entry, output name]. Worker threads are separate files. */
const nodeEntries = [
  ['extension/extension.ts', 'extension'],
  // The worker: a tiny loader (worker.js) that runs the worker (worker-main.js) with a code cache.
  ['worker/loader.ts', 'worker'],
  ['worker/main.ts', 'worker-main'],
  // The hook CLI: a tiny loader (cli.js) that runs the dispatcher (cli-main.js) with a compile cache.
  ['cli/loader.ts', 'cli'],
  ['cli/main.ts', 'cli-main'],
  ['cli/mcp.ts', 'mcp'],
  ['worker/store/replica.ts', 'replica'],
  ['worker/search/warmProcess.ts', 'list-warmer'],
];
// Optional entries land as their issues do; missing files are skipped.
const optionalNodeEntries = [
  ['worker/search/embedderThread.ts', 'embedder'],
  // The Anthropic SDK, loaded by the worker on first use only (keeps dist/worker.js small).
  ['worker/compression/sdkEntry.ts', 'anthropic-sdk'],
  // The CLI's terminal commands (start/stop/status, install, mcp, search, viewer): kept out of the hook path.
  ['cli/commands/index.ts', 'cli-tools'],
];
const mediaEntries = [['media/panel/main.ts', 'media/panel']];

const common = {
  bundle: true,
  sourcemap: true,
  logLevel: 'warning',
  define: { __VERSION__: JSON.stringify(pkg.version) },
  legalComments: 'none',
};

const present = (list) => list.filter(([entry]) => fs.existsSync(entry));

const builds = [
  ...[...nodeEntries, ...present(optionalNodeEntries)].map(([entry, out]) => ({
    ...common,
    entryPoints: { [out]: entry },
    outdir: 'dist',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
    // The hook CLI must start fast: keep it small.
    minify: out === 'cli' || out === 'cli-main',
  })),
  ...present(mediaEntries).map(([entry, out]) => ({
    ...common,
    entryPoints: { [out]: entry },
    outdir: 'dist',
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    loader: { '.css': 'text', '.ttf': 'dataurl' },
  })),
];

fs.mkdirSync('dist', { recursive: true });
// Every bundle is CommonJS. Saying so beside them stops Node from reading and parsing the root
// package.json (27 KB of VS Code manifest) on every start of a hook: about 2M instructions a hook.
fs.writeFileSync(path.join('dist', 'package.json'), '{ "type": "commonjs" }\n');
// An older build's vectra bundle (no longer used) must not reach a package.
fs.rmSync(path.join('dist', 'vectra'), { recursive: true, force: true });
fs.copyFileSync(path.join('node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));
// The embedder thread's wasm binaries and model weights, found beside dist/embedder.js.
for (const a of JSON.parse(fs.readFileSync('worker/search/embed/assets.json', 'utf8'))) {
  fs.mkdirSync(path.dirname(path.join('dist', a.to)), { recursive: true });
  fs.copyFileSync(a.from, path.join('dist', a.to));
}

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (fs.existsSync('dist/cli.js')) {
    const cli = fs.readFileSync('dist/cli.js', 'utf8');
    if (!cli.startsWith('#!')) fs.writeFileSync('dist/cli.js', '#!/usr/bin/env node\n' + cli);
    fs.chmodSync('dist/cli.js', 0o755);
  }
}
