// TypeScript for the tests: `node --require ./test/ts.cjs <file.ts>` loads .ts files as CommonJS,
// compiled by esbuild (no type check: `npm run typecheck` does that), with source maps on, so that
// a stack trace names the .ts line.
//
// The compiled text of a file is kept in .cache/ts/ (git-ignored), named by a hash of its source,
// esbuild's version and the options: never stale, shared by every process and every run of this
// checkout. test/run.mjs compiles all the files a run needs at once before the first test file
// starts (compileAll), so a test process only reads the cache; a file not there (new, or changed
// since) is compiled in the process that needs it (esbuild's transformSync) and kept.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const CACHE_DIR = path.join(__dirname, '..', '.cache', 'ts');
const ESBUILD_VERSION = require('esbuild/package.json').version;
/** A compiled file no run has used for this long is removed (compileAll). */
const UNUSED_MS = 7 * 24 * 3600 * 1000;

/**
 * A file that imports a relative path dynamically (`await import('../x')`) gets those imports as
 * require(): node's ESM resolver finds no extensionless .ts file. In other files import() stays, for
 * what only it can load (an .mjs file by its file: URL).
 */
const RELATIVE_DYNAMIC_IMPORT = /\bimport\(\s*['"]\.\.?\//;

/** esbuild's transform options for one file (its path names it in esbuild's errors and in the source map). */
function options(file, source) {
  return { loader: 'ts', format: 'cjs', platform: 'node', target: 'node20', sourcemap: 'inline', sourcesContent: false, sourcefile: file, supported: { 'dynamic-import': !RELATIVE_DYNAMIC_IMPORT.test(source) } };
}

/** Where the compiled text of source (compiled with opts) is kept. */
function cachePath(opts, source) {
  const hash = crypto.createHash('sha256').update(`${ESBUILD_VERSION}\0${JSON.stringify(opts)}\0`).update(source).digest('hex');
  return path.join(CACHE_DIR, `${hash.slice(0, 40)}.js`);
}

/** Written under a temporary name and renamed: processes compiling at once never read half a file. */
function keep(out, code) {
  const tmp = `${out}.${process.pid}.${require('node:worker_threads').threadId}.tmp`;
  try {
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    fs.writeFileSync(tmp, code);
    fs.renameSync(tmp, out);
  } catch {
    // A cache that cannot be written (a read-only checkout) only costs the next process a compile.
    fs.rmSync(tmp, { force: true });
  }
}

/** The CommonJS text of a .ts file: from the cache, or compiled here and kept. */
function compiled(file, source) {
  const opts = options(file, source);
  const out = cachePath(opts, source);
  try {
    return fs.readFileSync(out, 'utf8');
  } catch {
    const code = require('esbuild').transformSync(source, opts).code;
    keep(out, code);
    return code;
  }
}

/**
 * Compiles every file of files (absolute paths) not in the cache, all at once through one esbuild
 * service, and marks the others used. Resolves to how many were compiled and the errors of those
 * that did not compile (each fails in the test process that loads it, with the same message).
 */
async function compileAll(files) {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const now = new Date();
  const todo = [];
  const errors = [];
  for (const file of files) {
    const source = fs.readFileSync(file, 'utf8');
    const opts = options(file, source);
    const out = cachePath(opts, source);
    try {
      fs.utimesSync(out, now, now);
    } catch {
      todo.push({ file, source, opts, out });
    }
  }
  if (todo.length > 0) {
    const esbuild = require('esbuild');
    try {
      await Promise.all(
        todo.map(async ({ file, source, opts, out }) => {
          try {
            keep(out, (await esbuild.transform(source, opts)).code);
          } catch (e) {
            errors.push(`${path.relative(process.cwd(), file)}: ${String(e.message ?? e).split('\n').slice(0, 3).join(' ')}`);
          }
        }),
      );
    } finally {
      await esbuild.stop();
    }
  }
  for (const name of fs.readdirSync(CACHE_DIR)) {
    const p = path.join(CACHE_DIR, name);
    try {
      if (now.getTime() - fs.statSync(p).mtimeMs > UNUSED_MS) fs.rmSync(p, { force: true });
    } catch {
      // Removed by another run at the same time.
    }
  }
  return { compiled: todo.length - errors.length, errors };
}

Module._extensions['.ts'] = (mod, filename) => mod._compile(compiled(filename, fs.readFileSync(filename, 'utf8')), filename);
process.setSourceMapsEnabled(true);

module.exports = { compileAll, CACHE_DIR };
