// Packages the extension into a .vsix with @vscode/vsce, then checks and reports its contents.
// Everything the extension runs is bundled into dist/ by esbuild, so vsce runs with
// dependencies: false (no node_modules, no npm calls) and .vscodeignore whitelists dist/.
// vsce lists every file under its cwd (7 s here, because of .cache/), so it runs in a
// staging copy of just the top-level entries the whitelist can keep.
// Usage: `npm run package` (builds first) or `node scripts/package.mjs [--out file.vsix] [--quiet]`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { inflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import vsce from '@vscode/vsce';
import { absoluteLinks, repositoryWebUrl } from './lib/readmeLinks.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const out = path.resolve(outArg >= 0 ? args[outArg + 1] : path.join(root, `${pkg.name}-${pkg.version}.vsix`));
const quiet = args.includes('--quiet');

// What the installed extension cannot run without (the wasm is read at run time, not bundled).
const required = ['package.json', 'media/icon.png', 'dist/extension.js', 'dist/worker.js', 'dist/worker-main.js', 'dist/cli.js', 'dist/sql-wasm.wasm', 'dist/replica.js', 'dist/list-warmer.js', 'dist/embedder.js', 'dist/anthropic-sdk.js', 'dist/cli-main.js', 'dist/cli-tools.js', 'dist/mcp.js'];
// What must never ship: sources, source maps, dependencies, tests, caches.
const forbidden = [/\.ts$/, /\.map$/, /(^|\/)node_modules\//, /^(test|worker|extension|bench|scripts|\.cache)\//];

const missing = required.filter((f) => !fs.existsSync(path.join(root, f)));
if (missing.length) fail(`missing ${missing.join(', ')}: run \`npm run build\` first`);

// The .vsix carries the user-facing README (what it does, privacy, settings), not this
// repository's developer README (set-up and test commands). Its relative links and screenshots
// become absolute URLs on the repository (the Marketplace page has no folder to resolve them in);
// the screenshots ship in the .vsix too, under images/.
const repoWeb = (() => {
  try {
    return repositoryWebUrl(pkg.repository);
  } catch (e) {
    fail(e.message);
  }
})();
const readmeDir = path.join(root, 'docs', 'marketplace');
const readme = absoluteLinks(fs.readFileSync(path.join(readmeDir, 'README.md'), 'utf8'), { root, readmeDir, repoWeb });
if (readme.missing.length) fail(`docs/marketplace/README.md links to files that do not exist: ${readme.missing.join(', ')}`);
const shipped = readme.images.map((f) => `images/${path.basename(f)}`);
if (new Set(shipped).size !== shipped.length) fail(`two README images share a file name: ${readme.images.join(', ')}`);
fs.mkdirSync(path.dirname(out), { recursive: true });
const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-mem-vsix-'));
for (const f of fs.readdirSync(root)) {
  if (/^(package\.json|package\.nls(\.[\w-]+)?\.json|l10n|\.vscodeignore|dist|media|(CHANGELOG|LICENSE)(\.\w+)?)$/.test(f)) {
    fs.cpSync(path.join(root, f), path.join(stage, f), { recursive: true });
  }
}
fs.writeFileSync(path.join(stage, 'README.md'), readme.text);
if (readme.images.length) fs.mkdirSync(path.join(stage, 'images'));
for (const f of readme.images) fs.copyFileSync(path.join(root, f), path.join(stage, 'images', path.basename(f)));
await vsce.createVSIX({
  cwd: stage,
  packagePath: out,
  dependencies: false,
  skipLicense: !['LICENSE', 'LICENSE.md', 'LICENSE.txt'].some((f) => fs.existsSync(path.join(root, f))),
}).finally(() => fs.rmSync(stage, { recursive: true, force: true }));

const vsixBytes = fs.readFileSync(out);
const entries = readZipEntries(vsixBytes)
  .filter((e) => e.name.startsWith('extension/'))
  .map((e) => ({ ...e, name: e.name.slice('extension/'.length) }));
const names = new Set(entries.map((e) => e.name));
// Every file the manifest points at (main, bin, icons, walkthrough media...) must ship too.
const referenced = manifestPaths(pkg).filter((f) => fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.isFile());
const absent = [...new Set([...required, ...referenced, ...shipped, 'package.nls.json', 'l10n/bundle.l10n.json'])].filter((f) => !names.has(f));
// The Marketplace pages: vsce stores them under these names.
for (const f of ['readme.md', 'changelog.md', 'LICENSE.txt']) if (!names.has(f)) absent.push(f);
const readmeEntry = entries.find((e) => e.name === 'readme.md');
const readmeText = readmeEntry ? extractEntry(vsixBytes, { ...readmeEntry, name: `extension/${readmeEntry.name}` }).toString('utf8') : '';
if (/npm (ci|test)/.test(readmeText)) fail('vsix readme.md is the developer README, not docs/marketplace/README.md');
// vsce must not have rewritten our links a second time, and none may stay relative.
const relativeLeft = absoluteLinks(readmeText, { root, readmeDir: root, repoWeb }).relative;
if (relativeLeft.length) fail(`vsix readme.md still has relative links: ${relativeLeft.join(', ')}`);
if (readme.images.some((f) => !readmeText.includes(`${repoWeb}/raw/HEAD/${encodeURI(f)}`))) fail('vsix readme.md lost an absolute image link');
const leaked = entries.filter((e) => forbidden.some((re) => re.test(e.name))).map((e) => e.name);
if (absent.length) fail(`vsix lacks ${absent.join(', ')}: check .vscodeignore`);
if (leaked.length) fail(`vsix contains files that must not ship: ${leaked.slice(0, 10).join(', ')}`);

const total = entries.reduce((s, e) => s + e.size, 0);
console.log(`${path.relative(process.cwd(), out)}: ${kb(fs.statSync(out).size)} on disk, ${entries.length} files, ${kb(total)} unpacked`);
if (!quiet) {
  const byDir = new Map();
  for (const e of entries) {
    const dir = path.posix.dirname(e.name);
    const d = byDir.get(dir) ?? { size: 0, compressed: 0, n: 0 };
    byDir.set(dir, { size: d.size + e.size, compressed: d.compressed + e.compressed, n: d.n + 1 });
  }
  console.log('by folder (unpacked / compressed):');
  for (const [dir, d] of [...byDir].sort((a, b) => b[1].compressed - a[1].compressed)) {
    console.log(`  ${kb(d.size).padStart(10)} ${kb(d.compressed).padStart(10)}  ${dir === '.' ? '(top level)' : `${dir}/`} (${d.n} files)`);
  }
  console.log('biggest files (unpacked / compressed):');
  for (const e of [...entries].sort((a, b) => b.size - a.size).slice(0, 10)) {
    console.log(`  ${kb(e.size).padStart(10)} ${kb(e.compressed).padStart(10)}  ${e.name}`);
  }
}

/** One entry's bytes (stored or deflated), found through its local header. */
function extractEntry(buf, e) {
  const at = e.offset;
  if (buf.readUInt32LE(at) !== 0x04034b50) throw new Error(`corrupt zip local header for ${e.name}`);
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const data = buf.subarray(start, start + e.compressed);
  if (e.method === 0) return data;
  if (e.method === 8) return inflateRawSync(data);
  throw new Error(`zip method ${e.method} for ${e.name}`);
}

/** Relative paths among the manifest's string values ("./dist/x.js" -> "dist/x.js"). */
function manifestPaths(value) {
  if (typeof value === 'string') {
    return /^(\.\/)?[\w.-]+\/[\w./-]+$/.test(value) && !value.includes('..') ? [value.replace(/^\.\//, '')] : [];
  }
  if (value && typeof value === 'object') return Object.values(value).flatMap(manifestPaths);
  return [];
}

function fail(message) {
  console.error(`package: ${message}`);
  process.exit(1);
}

function kb(n) {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MB` : `${(n / 1024).toFixed(1)} KB`;
}

/** Names and sizes from a zip's central directory (enough for a report; no extraction). */
function readZipEntries(buf) {
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file');
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const list = [];
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const nameLen = buf.readUInt16LE(at + 28);
    list.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLen),
      method: buf.readUInt16LE(at + 10),
      compressed: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      offset: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return list;
}
