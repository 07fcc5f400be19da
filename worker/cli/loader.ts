// dist/cli.js: a few lines that load dist/cli-main.js (the dispatcher and the hook path) through
// a V8 code cache, so a hook does not parse and compile the same code on every tool call.
// Node 20 has no module.enableCompileCache (22.1+), so this does what it would: the compiled code
// of each hook event is kept in <dataDir>/cache, in a file that starts with the exact bytes of the
// bundle it was made from (V8 itself checks only the source's length, and mtimes are no version:
// npm sets them all to 1985), compared with one memcmp. The Node version and architecture are in
// the file name; V8 rejects a cache made by another V8 or with other flags. Any failure here falls
// back to a plain compile. Measured (callgrind, bench/hooks.mjs --callgrind): the cache takes about
// a quarter off what a hook costs beyond bare node.
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';

const MAIN = join(__dirname, 'cli-main.js');

function readMain(): { bytes: Buffer; src: string } {
  const fd = openSync(MAIN, 'r');
  try {
    const st = fstatSync(fd);
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    const bytes = buf.subarray(0, off);
    return { bytes, src: bytes.toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Only the hook path is cached (one file per event); other commands run rarely. */
function cachePath(size: number): string | undefined {
  const [cmd, platform, event] = process.argv.slice(2);
  if (cmd !== 'hook' || process.env.CLAUDE_MEM_NO_CODE_CACHE === '1' || !/^[a-z-]{1,40}$/.test(`${platform}${event}`)) return undefined;
  const home = process.env.HOME || process.env.USERPROFILE;
  const dataDir = process.env.CLAUDE_MEM_DATA_DIR || (home ? join(home, '.claude-mem-vscode') : undefined);
  if (!dataDir) return undefined;
  return join(dataDir, 'cache', `cli-${size}-${process.version}-${process.arch}-${platform}-${event}.v8`);
}

function run(): void {
  const { bytes, src } = readMain();
  const cacheFile = cachePath(bytes.length);
  let cachedData: Buffer | undefined;
  if (cacheFile && existsSync(cacheFile)) {
    try {
      const file = readFileSync(cacheFile);
      // Only a cache made from these very bytes: a same-size build is a different program.
      if (file.length > bytes.length && file.subarray(0, bytes.length).equals(bytes)) cachedData = file.subarray(bytes.length);
    } catch {
      cachedData = undefined;
    }
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${src.startsWith('#!') ? '//' : ''}${src}\n})`;
  const script = new Script(wrapped, { filename: MAIN, cachedData });
  if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
    // Made at exit, so it holds every function this event compiled.
    process.once('exit', () => {
      try {
        const data = script.createCachedData();
        const dir = join(cacheFile, '..');
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, Buffer.concat([bytes, data]), { mode: 0o600 });
        renameSync(tmp, cacheFile);
        // Caches of an older build are dead weight (another Node's may still be in use: keep those).
        const current = `cli-${bytes.length}-`;
        for (const f of readdirSync(dir)) if (f.startsWith('cli-') && f.endsWith('.v8') && !f.startsWith(current)) unlinkSync(join(dir, f));
      } catch {
        /* no cache this time */
      }
    });
  }
  const mod = { exports: {} };
  (script.runInThisContext() as (e: object, r: NodeRequire, m: object, f: string, d: string) => void)(mod.exports, require, mod, MAIN, __dirname);
}

run();
