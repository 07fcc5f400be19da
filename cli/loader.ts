// dist/cli.js: a few lines that load dist/cli-main.js (the dispatcher and the hook path) through
// a V8 code cache, so a hook does not parse and compile the same code on every tool call.
// Node 20 has no module.enableCompileCache (22.1+), so this does what it would: the compiled code
// of each hook event is kept in <dataDir>/cache, in a file that starts with the exact text of the
// bundle it was made from (V8 itself checks only the source's length, and mtimes are no version:
// npm sets them all to 1985), then a marker line naming the code paths it was made on, then the
// cache in base64. A run that takes a path the cache lacks makes it again (cli/hooks/codePaths.ts).
// The Node version and architecture are in the file name; V8 rejects a cache made by another V8 or
// with other flags. Any failure here falls back to a plain compile.
//
// Every Node API touched here costs a hook the first-call compile of its JS (measured with
// callgrind, deterministic with --hash-seed=1 --random-seed=1): both files are read with
// readFileSync(path, 'utf8'), one call into C++ each, instead of open/fstat/read/close into Buffers
// (about 2.5 M instructions, 3% of a bare node start), the sources are compared as strings (a
// memcmp), and the cache is kept in base64 so that it can be read as text too (kept as latin1
// characters instead, the file is UTF-8 with multi-byte sequences, whose decoding cost 1.6 M more).
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';

const MAIN = join(__dirname, 'cli-main.js');
/**
 * Between the bundle's text and the cache, with the code paths the cache was made on (letters, see
 * cli/hooks/codePaths.ts) and a newline; a file without it right there is no cache.
 */
const MARK = '\n//# claude-mem-code-cache base64';
/** cli/hooks/codePaths.ts's global (not imported: that would put cli-main's code in this bundle). */
const CODE_CACHE_KEY = '__claudeMemCodeCache';

/** Only the hook path is cached (one file per event); other commands run rarely. */
function cachePath(size: number): string | undefined {
  const [cmd, platform, event] = process.argv.slice(2);
  if (cmd !== 'hook' || process.env.CLAUDE_MEM_NO_CODE_CACHE === '1' || !/^[a-z-]{1,40}$/.test(`${platform}${event}`)) return undefined;
  const home = process.platform === 'win32' ? process.env.USERPROFILE : process.env.HOME;
  const dataDir = process.env.CLAUDE_MEM_DATA_DIR || (home ? join(home, '.claude-mem-vscode') : undefined);
  if (!dataDir) return undefined;
  return join(dataDir, 'cache', `cli-${size}-${process.version}-${process.arch}-${platform}-${event}.v8`);
}

/** The cache made from exactly this source, and the code paths it was made on; undefined when there is none. */
function readCache(file: string, src: string): { data: Buffer; paths: string } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined; // none yet
  }
  // Only a cache made from this very text: a same-size build is a different program.
  const from = src.length + MARK.length;
  if (text.length <= from || !text.startsWith(MARK, src.length) || text.slice(0, src.length) !== src) return undefined;
  const nl = text.indexOf('\n', from);
  if (nl < 0 || nl - from > 40) return undefined;
  const paths = text.slice(from, nl).trim();
  for (let i = 0; i < paths.length; i++) if (paths.charCodeAt(i) < 97 || paths.charCodeAt(i) > 122) return undefined; // a-z (no RegExp to compile)
  const data = Buffer.from(text.slice(nl + 1), 'base64');
  return data.length > 0 ? { data, paths } : undefined;
}

/** Writes the cache of this run's compiled code (made from src, on these code paths); a failure leaves none. */
function save(cacheFile: string, src: string, script: Script, paths: string): void {
  try {
    const data = script.createCachedData();
    const dir = join(cacheFile, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, `${src}${MARK} ${paths}\n${data.toString('base64')}`, { mode: 0o600 });
    renameSync(tmp, cacheFile);
    // Caches of an older build are dead weight (another Node's may still be in use: keep those).
    const current = `cli-${src.length}-`;
    for (const f of readdirSync(dir)) if (f.startsWith('cli-') && f.endsWith('.v8') && !f.startsWith(current)) unlinkSync(join(dir, f));
  } catch {
    /* no cache this time */
  }
}

function run(): void {
  const src = readFileSync(MAIN, 'utf8');
  const cacheFile = cachePath(src.length);
  const cached = cacheFile ? readCache(cacheFile, src) : undefined;
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${src.startsWith('#!') ? '//' : ''}${src}\n})`;
  const script = new Script(wrapped, { filename: MAIN, cachedData: cached?.data });
  if (cacheFile) {
    // Made at exit, so it holds every function this event compiled (and those the old cache held):
    // when there was none or V8 rejected it, or once this run takes a code path the cache was not
    // made on. A run on the cache's own paths registers nothing.
    const had = cached && !script.cachedDataRejected ? cached.paths : undefined;
    const taken = new Set<string>(had ?? '');
    let registered = false;
    const remake = (tag?: string) => {
      if (tag) taken.add(tag);
      if (registered) return;
      registered = true;
      process.once('exit', () => save(cacheFile, src, script, [...taken].sort().join('')));
    };
    (globalThis as Record<string, unknown>)[CODE_CACHE_KEY] = { paths: had ?? '', remake };
    if (had === undefined) remake();
  }
  const mod = { exports: {} };
  (script.runInThisContext() as (e: object, r: NodeRequire, m: object, f: string, d: string) => void)(mod.exports, require, mod, MAIN, __dirname);
}

run();
