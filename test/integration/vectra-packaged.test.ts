// The installed extension ships dist/ and no node_modules. This runs the worker from a copy of
// dist/ (source maps left out, as in the .vsix) in a folder with no node_modules above it, with a
// fake remote embedder, and checks that a project's vectra index is built and answers: vectra must
// come from dist/vectra/ (esbuild.config.mjs), not from the repository's node_modules.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, until } from '../helpers/worker';

let ext: string;
let dataDir: string;
let proc: ChildProcess;
let fake: http.Server;
let url: string;
let token: string;
let out = '';

/** A deterministic 16-d "embedding" from the words of a text, so similar texts are near. */
function embed(text: string): number[] {
  const v = new Array<number>(16).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) v[createHash('sha1').update(w).digest()[0] % 16] += 1;
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

async function req(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

function hasNodeModulesAbove(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'node_modules'))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

before(async () => {
  fake = http.createServer((rq, rs) => {
    let data = '';
    rq.on('data', (c: Buffer) => (data += c));
    rq.on('end', () => {
      const input = JSON.parse(data).input as string[];
      rs.setHeader('content-type', 'application/json');
      rs.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })) }));
    });
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', r));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-packaged-'));
  ext = path.join(root, 'extension');
  dataDir = path.join(root, 'data');
  fs.cpSync(path.join(ROOT, 'dist'), path.join(ext, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
  const found = hasNodeModulesAbove(ext);
  assert.equal(found, undefined, `a node_modules above ${ext} would hide the problem`);
  proc = spawn(process.execPath, [path.join(ext, 'dist', 'worker.js')], {
    cwd: ext,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: root,
      CLAUDE_MEM_DATA_DIR: dataDir,
      CLAUDE_MEM_WORKER_PORT: '0',
      CLAUDE_MEM_EMBEDDINGS_URL: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout?.on('data', (d: Buffer) => (out += d));
  proc.stderr?.on('data', (d: Buffer) => (out += d));
  await until(() => /listening on http:\/\/[^:]+:(\d+)/.test(out), 20_000, `the packaged worker to listen:\n${out}`);
  url = `http://127.0.0.1:${/listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]}`;
  token = fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim();
});

after(async () => {
  if (proc && proc.exitCode === null) {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
  fake?.close();
});

describe('vectra in the packaged extension', () => {
  it('the copy has dist/vectra and its protobuf schema, and no node_modules', () => {
    assert.ok(fs.existsSync(path.join(ext, 'dist', 'vectra', 'index.js')));
    assert.ok(fs.existsSync(path.join(ext, 'dist', 'vectra', 'schemas', 'index.proto')));
  });

  it('builds, persists and queries a per-project vectra index', async () => {
    const texts = ['the login token refresh race signed users out', 'baked a chocolate cake for the party', 'kubernetes dns lookups were slow'];
    for (const text of texts) assert.equal((await req('POST', '/api/memory/save', { text, project: 'pkg' })).status, 201);
    await until(async () => (await req('GET', '/api/search/status')).body.pending === 0, 30_000, 'the indexer');
    const re = await req('POST', '/api/search/reindex', { project: 'pkg' });
    assert.equal(re.status, 202, JSON.stringify(re.body));
    const folder = fs.readdirSync(path.join(dataDir, 'vectors')).find((f) => f.startsWith('pkg-'));
    assert.ok(folder, 'an index folder for the project');
    assert.ok(fs.readdirSync(path.join(dataDir, 'vectors', folder)).length > 0, 'the index file was written (protobuf codec)');
    const r = await req('GET', `/api/search?${new URLSearchParams({ query: 'chocolate cake party', mode: 'semantic', project: 'pkg' })}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.notice, undefined, r.body.notice);
    assert.match(r.body.items[0].title + r.body.items[0].snippet, /cake/i);
    const st = (await req('GET', '/api/search/status')).body;
    assert.deepEqual(st.vectra.loadedProjects, ['pkg'], `the query was answered from the vectra index: ${JSON.stringify(st)}`);
    const log = fs.readdirSync(path.join(dataDir, 'logs')).map((f) => fs.readFileSync(path.join(dataDir, 'logs', f), 'utf8')).join('\n');
    assert.doesNotMatch(log, /vectra (query|upsert|rebuild) failed|Cannot find module/i);
  });
});
