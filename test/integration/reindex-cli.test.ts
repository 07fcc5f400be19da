// `claude-mem reindex [--project P] [--reembed] [--json]` (dist/cli.js -> dist/cli-tools.js) against
// a real worker with the local embedder: it reaches POST /api/search/reindex with the right body,
// the indexes are rebuilt (and with --reembed every vector is made again), bad arguments are refused
// before any request, and no worker means exit 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_JS, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

let w: RunningWorker;
let env: Record<string, string>;
const ids: number[] = [];

async function indexed(): Promise<{ indexed: { observations: number }; pending: number }> {
  return until(async () => {
    const st = (await w.req('GET', '/api/search/status')).body;
    return st.pending === 0 && st.embeddings.state !== 'indexing' ? st : undefined;
  }, 180_000, 'the background indexer');
}

before(async () => {
  // Embedding as soon as the saves are in (the idle-time gate has its own test: search-idle-indexing).
  const dataDir = tempDir();
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { indexStartDelayMs: 0, indexQuietMs: 0 } }));
  w = await startWorker({ dataDir });
  env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
  for (const [project, text] of [
    ['alpha', 'The release script tags the commit before it uploads the build artefacts.'],
    ['alpha', 'Flaky login test: the fixture clock was not frozen, so tokens expired mid-test.'],
    ['beta', 'The CSV importer chokes on a byte order mark at the start of the file.'],
  ]) {
    const r = await w.req('POST', '/api/memory/save', { text, project });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.push(r.body.id);
  }
  const st = await indexed();
  assert.equal(st.indexed.observations, 3);
});
after(async () => {
  await w.stop();
});

describe('claude-mem reindex', () => {
  it('rebuilds one project and, with --reembed, embeds its records again', async () => {
    const r = await cli(['reindex', '--project', 'alpha', '--reembed'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.match(r.stdout, /rebuilt the vector index of 1 project: alpha\n/);
    assert.match(r.stdout, /dropped 2 stored vectors; every record in alpha is being embedded again/);
    assert.match(r.stdout, /embeddings: local/);
    // The worker embeds the two dropped records again in the background.
    const st = await indexed();
    assert.equal(st.indexed.observations, 3);
    const found = await w.req('GET', '/api/search?' + new URLSearchParams({ query: 'frozen clock in a test fixture', mode: 'semantic', project: 'alpha' }).toString());
    assert.equal(found.status, 200);
    assert.equal(found.body.items[0].id, ids[1], 'the re-embedded record is found by meaning');
  });

  it('without --project rebuilds every project; --json prints the route answer', async () => {
    const r = await cli(['reindex', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const body = JSON.parse(r.stdout);
    assert.equal(body.project, null);
    assert.equal(body.reembed, false);
    assert.equal(body.dropped, 0);
    assert.deepEqual([...body.rebuilt].sort(), ['alpha', 'beta']);
    assert.equal(typeof body.status.indexed.observations, 'number');
    assert.equal((await indexed()).indexed.observations, 3, 'a plain reindex embeds nothing again and loses nothing');
  });

  it('refuses bad arguments with the usage and exit 2, before any request', async () => {
    for (const args of [['reindex', '--bogus'], ['reindex', 'alpha'], ['reindex', '--project'], ['reindex', '--project=']]) {
      const r = await cli(args, { ...env, CLAUDE_MEM_WORKER_PORT: '1' }); // nothing listens: a request would fail differently
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /usage: claude-mem reindex \[--project P\] \[--reembed\] \[--json\]/);
    }
    const help = await cli(['reindex', '--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /usage: claude-mem reindex/);
    const usage = await cli(['--help'], env);
    assert.match(usage.stdout, /reindex \[--project P\] \[--reembed\] \[--json\]/);
  });

  it('a project name that is not a valid id is refused by the worker: exit 1 with its error', async () => {
    const r = await cli(['reindex', '--project', 'bad\u0001name'], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /reindex failed \(400\): .*control characters/);
  });

  it('no worker (and CLAUDE_MEM_NO_AUTOSTART=1): exit 1 with a clear message', async () => {
    const r = await cli(['reindex'], { CLAUDE_MEM_DATA_DIR: tempDir(), CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /worker is not running .*at 127\.0\.0\.1:1/);
  });
});

describe('claude-mem reindex with embeddings off', () => {
  let off: RunningWorker;
  before(async () => {
    off = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
  });
  after(async () => {
    await off.stop();
  });

  it('says there is nothing to rebuild, exit 0', async () => {
    const r = await cli(['reindex'], { CLAUDE_MEM_DATA_DIR: off.dataDir, CLAUDE_MEM_WORKER_PORT: String(off.port), CLAUDE_MEM_NO_AUTOSTART: '1' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /semantic search is off/);
  });
});
