// dist/worker.js: a few lines that run the worker (dist/worker-main.js) through a V8 code cache, so
// a start does not parse and compile the same megabyte of JavaScript again. Node 20 has no
// module.enableCompileCache (22.1+), so this does what it would.
//
// The cache is one file per Node version and architecture, <dataDir>/cache/worker-<node>-<arch>.v8
// (CLAUDE_MEM_CODE_CACHE_DIR names another folder; CLAUDE_MEM_NO_CODE_CACHE=1 turns it off): a
// header line with the SHA-256 of the bundle it was made from and of the cache bytes, then the
// cache. V8 itself checks only the source's length and its own version and flags, and mtimes are
// no version (npm sets them all to 1985), so a cache made from other bytes, a damaged one or one V8
// rejects is not used, and a new one is made once the worker is ready (listening): it then holds the
// code of every function the start ran. `node dist/worker.js recover` runs without it.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { CODE_CACHE_STATE, READY_EVENT, type CodeCacheState } from './codeCache';
import { keepHeapSmall } from './memory';

const MAIN = join(__dirname, 'worker-main.js');
const MAGIC = 'claude-mem worker code cache';

const sha256 = (b: Buffer | Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Where the cache is kept, or undefined when there is none. */
function cacheFile(): string | undefined {
  if (process.env.CLAUDE_MEM_NO_CODE_CACHE === '1' || process.argv[2] === 'recover') return undefined;
  let dir = process.env.CLAUDE_MEM_CODE_CACHE_DIR;
  if (!dir) {
    const home = process.platform === 'win32' ? process.env.USERPROFILE : process.env.HOME;
    const dataDir = process.env.CLAUDE_MEM_DATA_DIR || (home ? join(home, '.claude-mem-vscode') : undefined);
    if (!dataDir) return undefined;
    dir = join(dataDir, 'cache');
  }
  return join(dir, `worker-${process.version}-${process.arch}.v8`);
}

/** The cache made from exactly these bytes and whole, or why there is none. */
function readCache(file: string, srcHash: string): Buffer | 'none' | 'stale' | 'damaged' {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return 'none';
  }
  const eol = bytes.indexOf(10);
  const head = eol > 0 ? bytes.subarray(0, eol).toString('latin1').split(' ') : [];
  // MAGIC has 4 words, then the bundle's hash and the cache's hash.
  if (head.length !== 6 || head.slice(0, 4).join(' ') !== MAGIC) return 'damaged';
  if (head[4] !== srcHash) return 'stale';
  const data = bytes.subarray(eol + 1);
  return data.length > 0 && sha256(data) === head[5] ? data : 'damaged';
}

function writeCache(file: string, srcHash: string, data: Buffer): void {
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC} ${srcHash} ${sha256(data)}\n`, 'latin1'), data]), { mode: 0o600 });
  renameSync(tmp, file);
}

function run(): void {
  // V8 rejects a cache made under other flags: the worker's run-time flags are set before the
  // compile that reads the cache, as they are when the cache is made.
  keepHeapSmall();
  const src = readFileSync(MAIN);
  const file = cacheFile();
  const srcHash = file ? sha256(src) : '';
  const found = file ? readCache(file, srcHash) : 'none';
  const cachedData = typeof found === 'string' ? undefined : found;
  const text = src.toString('utf8');
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${text.startsWith('#!') ? '//' : ''}${text}\n})`;
  const script = new Script(wrapped, { filename: MAIN, cachedData });
  const state: CodeCacheState = !file ? 'off' : cachedData && !script.cachedDataRejected ? 'used' : cachedData ? 'rejected' : found === 'none' ? 'made' : (found as CodeCacheState);
  (globalThis as Record<symbol, unknown>)[CODE_CACHE_STATE] = state;
  if (file && state !== 'used') {
    // Made once the worker listens, so it holds the code of everything a start runs.
    (process as NodeJS.EventEmitter).once(READY_EVENT, () => {
      try {
        writeCache(file, srcHash, script.createCachedData());
      } catch (e) {
        process.stderr.write(`claude-mem worker: the code cache could not be written (${(e as Error).message}); the next start compiles again\n`);
      }
    });
  }
  const mod = { exports: {} };
  (script.runInThisContext() as (e: object, r: NodeRequire, m: object, f: string, d: string) => void)(mod.exports, require, mod, MAIN, __dirname);
}

run();
