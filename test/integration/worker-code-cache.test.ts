// The worker's V8 code cache (worker/loader.ts): made at the first start of a build, used by the
// next, never used when it was made from other bytes or is damaged (made again instead), kept where
// CLAUDE_MEM_CODE_CACHE_DIR says, and off with CLAUDE_MEM_NO_CODE_CACHE=1. Each start says what it
// did in its "listening" log line.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, startWorker, tempDir, until } from '../helpers/worker';

const MAIN = path.join(ROOT, 'dist', 'worker-main.js');
const NAME = `worker-${process.version}-${process.arch}.v8`;
// test/run.mjs points every worker of a run at one shared folder: these starts use their own.
const OWN = { CLAUDE_MEM_CODE_CACHE_DIR: '', CLAUDE_MEM_NO_CODE_CACHE: '', CLAUDE_MEM_EMBEDDINGS: 'off' };

/** What the start said about the cache in its "listening" log line. */
function stateOf(dataDir: string): string | undefined {
  const log = fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8');
  const lines = log.split('\n').filter((l) => / listening on /.test(l));
  return /"codeCache":"(\w+)"/.exec(lines[lines.length - 1] ?? '')?.[1];
}

/** Starts a worker on dataDir, checks it answers, stops it; returns what it did with the cache. */
async function startOnce(dataDir: string, env: Record<string, string> = {}, cacheFile?: string): Promise<string | undefined> {
  const w = await startWorker({ dataDir, env: { ...OWN, ...env } });
  try {
    const health = await w.req('GET', '/api/health');
    assert.equal(health.status, 200);
    const state = stateOf(dataDir);
    // A new cache is written once the worker listens: wait for it before stopping.
    if (cacheFile && state !== 'used' && state !== 'off') await until(() => whole(cacheFile), 10_000, `a whole ${cacheFile} written`);
    return state;
  } finally {
    assert.equal(await w.stop(), 0);
  }
}

function header(file: string): string[] {
  const b = fs.readFileSync(file);
  return b.subarray(0, b.indexOf(10)).toString('latin1').split(' ');
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A cache of this build's bundle whose bytes are the ones its header names. */
function whole(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const b = fs.readFileSync(file);
  const h = header(file);
  return h.length === 6 && h[4] === sha256(fs.readFileSync(MAIN)) && h[5] === sha256(b.subarray(b.indexOf(10) + 1));
}

describe('the worker code cache', () => {
  it('is made at the first start, used at the next, and made again when damaged or from other bytes', async () => {
    const dataDir = tempDir('code-cache-');
    const file = path.join(dataDir, 'cache', NAME);
    assert.equal(await startOnce(dataDir, {}, file), 'made');
    const h = header(file);
    assert.deepEqual(h.slice(0, 4), ['claude-mem', 'worker', 'code', 'cache']);
    assert.equal(h[4], sha256(fs.readFileSync(MAIN)), 'the header names the bundle it was made from');
    const made = fs.readFileSync(file);
    const data = made.subarray(made.indexOf(10) + 1);
    assert.equal(h[5], sha256(data), 'and the cache bytes');
    assert.ok(data.length > 100_000, `a cache of the whole start (${data.length} bytes)`);
    assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');

    assert.equal(await startOnce(dataDir, {}, file), 'used');

    // One byte of the cache changed: not given to V8; the worker starts and writes a whole one.
    const damaged = Buffer.from(made);
    damaged[damaged.length - 100] ^= 0xff;
    fs.writeFileSync(file, damaged);
    assert.equal(await startOnce(dataDir, {}, file), 'damaged');
    assert.equal(await startOnce(dataDir, {}, file), 'used');

    // A cache made from another build of the bundle is not used either.
    fs.writeFileSync(file, Buffer.concat([Buffer.from(`claude-mem worker code cache ${'0'.repeat(64)} ${sha256(data)}\n`), data]));
    assert.equal(await startOnce(dataDir, {}, file), 'stale');
    assert.equal(header(file)[4], sha256(fs.readFileSync(MAIN)));
    assert.equal(await startOnce(dataDir, {}, file), 'used');

    // Garbage where the cache was: the same.
    fs.writeFileSync(file, 'not a cache');
    assert.equal(await startOnce(dataDir, {}, file), 'damaged');
    assert.equal(await startOnce(dataDir, {}, file), 'used');
  });

  it('lives where CLAUDE_MEM_CODE_CACHE_DIR says, shared by the workers of several data dirs', async () => {
    const dir = tempDir('code-cache-dir-');
    const file = path.join(dir, NAME);
    const a = tempDir('code-cache-a-');
    const b = tempDir('code-cache-b-');
    assert.equal(await startOnce(a, { CLAUDE_MEM_CODE_CACHE_DIR: dir }, file), 'made');
    assert.equal(await startOnce(b, { CLAUDE_MEM_CODE_CACHE_DIR: dir }, file), 'used');
    assert.ok(!fs.existsSync(path.join(a, 'cache', NAME)) && !fs.existsSync(path.join(b, 'cache', NAME)), 'nothing in the data dirs');
  });

  it('is off with CLAUDE_MEM_NO_CODE_CACHE=1: nothing read or written', async () => {
    const dataDir = tempDir('code-cache-off-');
    assert.equal(await startOnce(dataDir, { CLAUDE_MEM_NO_CODE_CACHE: '1' }), 'off');
    assert.ok(!fs.existsSync(path.join(dataDir, 'cache', NAME)));
  });
});
