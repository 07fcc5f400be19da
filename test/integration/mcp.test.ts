// `claude-mem mcp` as an MCP client sees it: the SDK's stdio client spawns `node dist/cli.js mcp`
// against a real worker. Tools, their three-step descriptions, and each tool over the worker's
// routes. Needs `npm run build` (dist/cli.js and dist/mcp.js).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_JS, ROOT, startWorker, tempDir, type RunningWorker } from '../helpers/worker';

type ToolResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

async function connect(env: Record<string, string>, cwd: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_JS, 'mcp'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-test', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

const textOf = (r: unknown): string => (r as ToolResult).content.map((c) => c.text ?? '').join('\n');

describe('claude-mem mcp', () => {
  let w: RunningWorker;
  let client: Client;
  let project: string;
  let projectName: string;

  before(async () => {
    assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'mcp.js')), 'dist/mcp.js is missing: add the mcp entry to esbuild.config.mjs and npm run build');
    w = await startWorker();
    project = fs.realpathSync(tempDir('mcp-proj-'));
    projectName = path.basename(project);
    client = await connect({ CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port) }, project);
  });
  after(async () => {
    await client?.close();
    await w?.stop();
  });

  it('lists search_memory, get_memory_timeline, get_memories and save_memory, teaching search -> timeline -> fetch; the old names too', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), ['get_memories', 'get_memory_timeline', 'get_observations', 'save_memory', 'search', 'search_memory', 'timeline']);
    assert.match(byName.get('search_memory')!.description!, /Step 1 of 3[\s\S]*get_memory_timeline[\s\S]*get_memories/);
    assert.match(byName.get('get_memory_timeline')!.description!, /Step 2 of 3/);
    assert.match(byName.get('get_memories')!.description!, /Step 3 of 3/);
    assert.deepEqual(byName.get('search_memory')!.inputSchema.required, ['query']);
    assert.deepEqual(byName.get('get_memories')!.inputSchema.required, ['ids']);
    // The 0.1 names, for one release: same input schema, a description naming the new tool.
    for (const [oldName, name] of [['search', 'search_memory'], ['timeline', 'get_memory_timeline'], ['get_observations', 'get_memories']]) {
      assert.deepEqual(byName.get(oldName)!.inputSchema, byName.get(name)!.inputSchema, oldName);
      assert.match(byName.get(oldName)!.description!, new RegExp(`Old name of ${name}`));
    }
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /search_memory[\s\S]*get_memory_timeline[\s\S]*get_memories/);
  });

  it('the new names answer as the old ones do', async () => {
    const saved = textOf(await client.callTool({ name: 'save_memory', arguments: { text: 'The staging database is rebuilt every night at 02:00 UTC.', title: 'Staging rebuild' } }));
    const id = Number(/Saved as #(\d+)/.exec(saved)?.[1]);
    assert.ok(id > 0, saved);
    const full = textOf(await client.callTool({ name: 'get_memories', arguments: { ids: [id] } }));
    assert.equal(full, textOf(await client.callTool({ name: 'get_observations', arguments: { ids: [id] } })));
    assert.match(full, new RegExp(`## #${id} Staging rebuild`));
    const around = textOf(await client.callTool({ name: 'get_memory_timeline', arguments: { anchor: id } }));
    assert.equal(around, textOf(await client.callTool({ name: 'timeline', arguments: { anchor: id } })));
    assert.match(around, new RegExp(`#${id} .*Staging rebuild.*<- anchor`));
    const probe = await w.req('GET', '/api/search?query=x');
    if (probe.status === 404) return;
    const found = textOf(await client.callTool({ name: 'search_memory', arguments: { query: 'staging rebuilt', mode: 'keyword' } }));
    assert.equal(found, textOf(await client.callTool({ name: 'search', arguments: { query: 'staging rebuilt', mode: 'keyword' } })));
    assert.match(found, /Staging rebuild/);
    assert.match(found, /get_memory_timeline\(anchor=<id>\)[\s\S]*get_memories\(ids=/);
  });

  it('save_memory stores a note in the current project; get_observations returns it in full', async () => {
    const saved = textOf(await client.callTool({ name: 'save_memory', arguments: { text: 'Deploys go out on Tuesdays only; the zebra freeze covers Fridays.', title: 'Deploy window' } }));
    const m = /Saved as #(\d+) in (\S+)\./.exec(saved);
    assert.ok(m, saved);
    assert.equal(m[2], projectName);
    const stored = await w.req('GET', `/api/observation/${m[1]}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.title, 'Deploy window');
    assert.equal(stored.body.project, projectName);
    const again = textOf(await client.callTool({ name: 'save_memory', arguments: { text: 'Deploys go out on Tuesdays only; the zebra freeze covers Fridays.', title: 'Deploy window' } }));
    assert.match(again, new RegExp(`Already saved as #${m[1]}`));

    const full = textOf(await client.callTool({ name: 'get_observations', arguments: { ids: [Number(m[1]), 999_999] } }));
    assert.match(full, new RegExp(`## #${m[1]} Deploy window`));
    assert.match(full, /Tuesdays only/);
    assert.match(full, /Not found: 999999/);
  });

  it('search finds it, timeline shows what is around it', async () => {
    const found = textOf(await client.callTool({ name: 'search', arguments: { query: 'zebra freeze', mode: 'keyword' } }));
    const m = /#(\d+) \S+ \S+ \[discovery\] Deploy window/.exec(found);
    assert.ok(m, found);
    assert.match(found, /Next: timeline/);
    const elsewhere = textOf(await client.callTool({ name: 'search', arguments: { query: 'zebra freeze', project: 'no-such-project' } }));
    assert.match(elsewhere, /No memory matches/);
    const everywhere = textOf(await client.callTool({ name: 'search', arguments: { query: 'zebra freeze', project: '*' } }));
    assert.match(everywhere, /Deploy window/);

    const around = textOf(await client.callTool({ name: 'timeline', arguments: { anchor: Number(m[1]) } }));
    assert.match(around, new RegExp(`#${m[1]} .*Deploy window.*<- anchor`));
    const unknown = (await client.callTool({ name: 'timeline', arguments: { anchor: 987654 } })) as ToolResult;
    assert.equal(unknown.isError, true);
  });

  it('bad arguments are answered with an error, and the server keeps serving', async () => {
    const bad = (await client.callTool({ name: 'get_observations', arguments: { ids: [] } })) as ToolResult;
    assert.equal(bad.isError, true);
    const ok = await client.listTools();
    assert.equal(ok.tools.length, 7); // four tools and three old names
  });

  it('says so when no worker is reachable', async () => {
    const dead = await connect({ CLAUDE_MEM_DATA_DIR: tempDir(), CLAUDE_MEM_WORKER_PORT: String(await freePort()), CLAUDE_MEM_NO_AUTOSTART: '1' }, project);
    try {
      const r = (await dead.callTool({ name: 'save_memory', arguments: { text: 'x' } }, undefined, { timeout: 60_000 })) as ToolResult;
      assert.equal(r.isError, true);
      assert.match(textOf(r), /not running|did not start|ECONNREFUSED/);
    } finally {
      await dead.close();
    }
  });
});

describe('claude-mem search and viewer at a terminal', () => {
  let w: RunningWorker;
  let env: Record<string, string>;
  const run = (args: string[], cwd = ROOT) => spawnSync(process.execPath, [CLI_JS, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', cwd, timeout: 60_000 });

  before(async () => {
    w = await startWorker();
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
    await w.req('POST', '/api/memory/save', { text: 'The okapi release train leaves on Thursdays.', title: 'Release train', project: 'zoo' });
  });
  after(async () => {
    await w?.stop();
  });

  it('search prints index rows; --json the route answer; no query is a usage error', (t) => {
    if (run(['search', 'okapi', '--project', 'zoo']).stderr.includes('no search route')) {
      t.skip('GET /api/search is not served yet');
      return;
    }
    const r = run(['search', 'okapi', '--project', 'zoo', '--mode', 'keyword']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^#\d+ \S+ \S+ \[discovery\] Release train \(zoo\)/);
    const none = run(['search', 'okapi', '--project', 'elsewhere']);
    assert.match(none.stdout, /nothing found .*try --all/);
    const json = run(['search', 'okapi', '--all', '--json']);
    assert.equal(JSON.parse(json.stdout).items[0].title, 'Release train');
    assert.equal(run(['search']).status, 2);
  });

  it('viewer --print gives the worker URL with a single-use code (never the token)', () => {
    const r = run(['viewer', '--print']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout.trim(), new RegExp(`^http://127\\.0\\.0\\.1:${w.port}/\\?code=[A-Za-z0-9_-]+$`));
  });
});
