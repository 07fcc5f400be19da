// The hook path must start as fast as bare node: it may load nothing heavy. Runs the built CLI
// (npm run build) with a preload that lists, at exit, every module the process loaded.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLI_JS, ROOT } from '../helpers/worker';

const PRELOAD = `
process.on('exit', () => {
  const list = { builtins: process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)), files: Object.keys(require.cache).filter((f) => f !== __filename) };
  require('fs').writeFileSync(process.env.LOADED_OUT, JSON.stringify(list));
});
`;

function loaded(args: string[], input: string): { builtins: string[]; files: string[]; stdout: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-lean-'));
  const preload = path.join(dir, 'preload.cjs');
  const out = path.join(dir, 'loaded.json');
  fs.writeFileSync(preload, PRELOAD);
  const r = spawnSync(process.execPath, ['-r', preload, CLI_JS, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, LOADED_OUT: out, CLAUDE_MEM_DATA_DIR: dir, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' },
  });
  assert.equal(r.status, 0, r.stderr);
  return { ...(JSON.parse(fs.readFileSync(out, 'utf8')) as { builtins: string[]; files: string[] }), stdout: r.stdout };
}

const HEAVY = ['http', 'https', '_http_client', 'child_process', 'zlib', 'crypto', 'worker_threads', 'internal/deps/undici/undici', 'tty', 'readline'];

describe('hook path stays lean', () => {
  for (const event of ['observation', 'session-init', 'summarize', 'session-end', 'file-context', 'context']) {
    it(`hook claude-code ${event} loads only the CLI bundle and light builtins`, () => {
      // A file under 16 KB: its fingerprint is hashed in JS whether or not git's index is up to date
      // (package.json, 27 KB, loaded node:crypto whenever its mtime had moved since the last git status).
      const input = JSON.stringify({ session_id: 's', cwd: ROOT, tool_name: 'Read', tool_input: { file_path: path.join(ROOT, 'esbuild.config.mjs') }, tool_response: 'x', prompt: 'p', source: 'startup' });
      const l = loaded(['hook', 'claude-code', event], input);
      assert.deepEqual(l.files.map((f) => path.relative(ROOT, f)), ['dist/cli.js'], 'no other JS file is loaded');
      const heavy = l.builtins.filter((b) => HEAVY.includes(b));
      assert.deepEqual(heavy, [], `heavy builtins loaded: ${heavy.join(', ')}`);
    });
  }

  it('the CLI bundle holds no worker, SDK or MCP code', () => {
    const text = fs.readFileSync(CLI_JS, 'utf8');
    for (const needle of ['sql-wasm', 'hono', '@anthropic-ai/sdk', 'modelcontextprotocol', 'registerTool', 'zod']) assert.ok(!text.includes(needle), `dist/cli.js contains ${needle}`);
    assert.ok(text.length < 120_000, `dist/cli.js is ${text.length} bytes`);
  });
});

describe('V8 code cache for the hook path (dist/cli.js as the loader of dist/cli-main.js)', () => {
  const isLoader = fs.existsSync(path.join(ROOT, 'dist', 'cli-main.js')) && fs.statSync(CLI_JS).size < 8000;
  const run = (dataDir: string, env: Record<string, string> = {}, input = '{}') =>
    spawnSync(process.execPath, [CLI_JS, 'hook', 'claude-code', 'observation'], {
      input,
      encoding: 'utf8',
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1', ...env },
    });
  const caches = (dataDir: string) => {
    const d = path.join(dataDir, 'cache');
    return fs.existsSync(d) ? fs.readdirSync(d).filter((f) => f.endsWith('.v8')) : [];
  };

  it('is written on the first run of an event and survives a corrupt or stale file', (t) => {
    if (!isLoader) {
      t.skip('dist/cli.js is not the loader yet (esbuild.config.mjs needs the cli-main entry)');
      return;
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-cache-'));
    const first = run(dataDir);
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stdout, '{}');
    const [file] = caches(dataDir);
    assert.match(file ?? '', new RegExp(`^cli-\\d+-${process.version}-${process.arch}-claude-code-observation\\.v8$`));
    const full = path.join(dataDir, 'cache', file);
    const main = fs.readFileSync(path.join(ROOT, 'dist', 'cli-main.js'));
    assert.ok(fs.readFileSync(full).subarray(0, main.length).equals(main), 'the cache starts with the bundle it was made from');
    assert.ok(fs.statSync(full).size > main.length + 1000);
    // Same bundle bytes, garbage cache: V8 rejects it. Another bundle of the same size: never used.
    fs.writeFileSync(full, Buffer.concat([main, Buffer.from('not a code cache')]));
    fs.writeFileSync(path.join(dataDir, 'cache', 'cli-1-v0.0.0-x64-claude-code-observation.v8'), 'stale build');
    const again = run(dataDir);
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, '{}');
    assert.deepEqual(caches(dataDir), [file], 'the stale build is pruned');
    assert.ok(fs.statSync(full).size > main.length + 1000, 'a rejected cache is made again');
    const other = Buffer.from(main);
    other[other.length - 2] ^= 1; // a different program of the same length
    fs.writeFileSync(full, Buffer.concat([other, fs.readFileSync(full).subarray(main.length)]));
    assert.equal(run(dataDir).stdout, '{}');
    assert.ok(fs.readFileSync(full).subarray(0, main.length).equals(main), 'a cache of other bytes is replaced');
  });

  it('is made again when a run takes a code path the cache was not made on, and not otherwise', (t) => {
    if (!isLoader) {
      t.skip('dist/cli.js is not the loader yet');
      return;
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-cache-'));
    // A tool use to send: the observation hook calls the worker (none on port 1).
    const use = JSON.stringify({ session_id: 's1', hook_event_name: 'PostToolUse', cwd: dataDir, tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: 'x', tool_use_id: 'toolu_1' });
    const send = () => run(dataDir, {}, use);
    assert.equal(run(dataDir).status, 0, 'an empty payload calls nothing');
    const [file] = caches(dataDir);
    const full = path.join(dataDir, 'cache', file);
    const main = fs.readFileSync(path.join(ROOT, 'dist', 'cli-main.js'), 'utf8');
    const marker = (text: string) => /^\n\/\/# claude-mem-code-cache base64 ([a-z]*)\n/.exec(text.slice(main.length))?.[1];
    assert.equal(marker(fs.readFileSync(full, 'utf8')), '', 'made on no path');
    // No spool on port 1: the request goes over TCP (path "t"), which the cache was not made on.
    assert.equal(send().status, 0);
    assert.equal(marker(fs.readFileSync(full, 'utf8')), 't');
    // The same path again: the file is left as it is.
    const before = fs.statSync(full).mtimeMs;
    fs.utimesSync(full, new Date(before - 60_000), new Date(before - 60_000));
    const kept = fs.statSync(full).mtimeMs;
    assert.equal(send().status, 0);
    assert.equal(fs.statSync(full).mtimeMs, kept, 'a run on the cache\'s own paths does not write it');
    // A cache made on no path: this run's path is new, so it is made again, naming it.
    const text = fs.readFileSync(full, 'utf8');
    fs.writeFileSync(full, text.replace('claude-mem-code-cache base64 t\n', 'claude-mem-code-cache base64 \n'));
    assert.equal(send().status, 0);
    assert.equal(marker(fs.readFileSync(full, 'utf8')), 't');
    // A damaged path list: no cache (a plain compile), made again.
    fs.writeFileSync(full, fs.readFileSync(full, 'utf8').replace('claude-mem-code-cache base64 t\n', 'claude-mem-code-cache base64 T!\n'));
    const again = send();
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout, '{}');
    assert.equal(marker(fs.readFileSync(full, 'utf8')), 't');
  });

  it('CLAUDE_MEM_NO_CODE_CACHE=1 turns it off', (t) => {
    if (!isLoader) {
      t.skip('dist/cli.js is not the loader yet');
      return;
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-cache-'));
    assert.equal(run(dataDir, { CLAUDE_MEM_NO_CODE_CACHE: '1' }).status, 0);
    assert.deepEqual(caches(dataDir), []);
  });
});
