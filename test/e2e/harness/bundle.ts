// Extension-host test entries are TypeScript; the extension host runs plain JS, so each
// entry is bundled (vscode left external) into a folder that is also a tiny extension:
// loaded as a development extension, it gives require('vscode') in the tests an owner (else
// VS Code warns "Could not identify extension" and hands out a fallback API). It needs a
// main to be placed in the extension host at all; with no activation events it never activates.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import * as path from 'node:path';
import { repoRoot } from './paths';

const manifest = {
  name: 'e2e-tests',
  publisher: 'claude-mem-test',
  version: '0.0.0',
  private: true,
  main: './index.js',
  engines: { vscode: '^1.104.0' },
};

export interface HostBundle {
  /** outDir/index.js, the extensionTestsPath. */
  entry: string;
  /** Rewrites `index.js:line:col` in a stack trace to the .ts source position. */
  mapStack(text: string): string;
}

export async function bundleHostTests(entry: string, outDir: string): Promise<HostBundle> {
  fs.writeFileSync(path.join(outDir, 'package.json'), JSON.stringify(manifest, null, 2));
  const out = path.join(outDir, 'index.js');
  const { outputFiles } = await esbuild.build({
    entryPoints: [path.resolve(repoRoot, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: 'external',
    write: false,
    logLevel: 'error',
  });
  fs.writeFileSync(out, outputFiles.find((f) => f.path === out)!.text);
  // Mapped here, not in the extension host: VS Code replaces Error.prepareStackTrace there,
  // which turns off Node's own source-map support.
  const map = new SourceMap(JSON.parse(outputFiles.find((f) => f.path.endsWith('.map'))!.text) as SourceMapPayload);
  return {
    entry: out,
    mapStack: (text) =>
      text.replace(/[^\s()]*index\.js:(\d+):(\d+)/g, (whole, line: string, col: string) => {
        const e = map.findEntry(Number(line) - 1, Number(col) - 1);
        if (!('originalSource' in e)) return whole;
        const src = path.relative(repoRoot, path.resolve(outDir, e.originalSource));
        return `${src}:${e.originalLine + 1}:${e.originalColumn + 1}`;
      }),
  };
}
