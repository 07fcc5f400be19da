// A Read that failed (its file was deleted) reaches the observation hook as Claude Code sends it:
// through the real hook CLI and a real worker on a real git repository, it is stored as a failure
// (as the local compressor notes failures: "Could not read …", a `failed:` fact, filed as a gotcha),
// never as a fresh "Read … 1 lines looked at" memory, and it cites nothing. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MemoryFreshness } from '../../common/contract';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { CLI_JS, startWorker, until, type RunningWorker } from '../helpers/worker';

function runHook(handler: string, input: unknown, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, 'hook', 'claude-code', handler], { env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
    child.stdin.end(JSON.stringify(input));
  });
}

interface Stored {
  id: number;
  type: string;
  title: string;
  narrative: string | null;
  facts: string[] | string | null;
  concepts: string[] | string | null;
}

describe('a failed Read through the hook CLI', () => {
  let w: RunningWorker;
  let r: TestRepo;
  let env: Record<string, string>;
  let project: string;
  let n = 0;

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo('failed-read-');
    project = path.basename(r.root);
    r.write('src/version.ts', 'export const VERSION = 1;\n'.repeat(40));
    r.write('src/keep.ts', 'export const KEEP = 1;\n');
    r.commit('initial');
    r.git('rm', '-q', 'src/version.ts');
    r.commit('remove version.ts');
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  });
  after(async () => {
    await w?.stop();
  });

  const list = (v: string[] | string | null): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? (JSON.parse(v) as string[]) : []);

  /** Sends one hook payload and returns the observation stored from it. */
  async function observe(payload: Record<string, unknown>): Promise<Stored> {
    const all = async () => (await w.req('GET', `/api/observations?project=${encodeURIComponent(project)}&limit=1000`)).body.items as Stored[];
    const before = new Set((await all()).map((o) => o.id));
    const res = await runHook('observation', { session_id: `failed-read-${++n}`, cwd: r.root, tool_use_id: `toolu_failed_${n}`, ...payload }, env);
    assert.equal(res.code, 0, res.stderr);
    return until(async () => (await all()).find((o) => !before.has(o.id)), 20_000, 'observation stored');
  }

  async function assertFailure(o: Stored): Promise<void> {
    assert.match(o.title, /^Could not read src\/version\.ts: .*does not exist/, `stored as a failure, not as a read: ${o.title}`);
    assert.doesNotMatch(`${o.title}\n${o.narrative ?? ''}`, /lines? looked at/);
    assert.ok(list(o.facts).some((f) => /^failed: .*does not exist/.test(f)), `a failed: fact (${JSON.stringify(o.facts)})`);
    assert.ok(list(o.concepts).includes('gotcha'), `filed as a gotcha (${JSON.stringify(o.concepts)})`);
    const fresh = (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${o.id}`)).body;
    assert.deepEqual(fresh.citations, [], 'a failed Read cites nothing');
  }

  it('PostToolUse whose tool_response is the error text: a failure that cites nothing', async () => {
    const o = await observe({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path.join(r.root, 'src/version.ts') },
      tool_response: '<tool_use_error>File does not exist. Note: your current working directory is ' + r.root + '.</tool_use_error>',
    });
    await assertFailure(o);
  });

  it('PostToolUseFailure (error and is_interrupt): a failure that cites nothing', async () => {
    const o = await observe({
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Read',
      tool_input: { file_path: path.join(r.root, 'src/version.ts') },
      error: 'File does not exist. Note: your current working directory is ' + r.root + '.',
      is_interrupt: false,
    });
    await assertFailure(o);
  });

  it('a successful Read of a file that exists is still a read, with its citation', async () => {
    const o = await observe({
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: path.join(r.root, 'src/keep.ts') },
      tool_response: { type: 'text', file: { filePath: path.join(r.root, 'src/keep.ts'), content: 'export const KEEP = 1;\n', numLines: 1, startLine: 1, totalLines: 1 } },
    });
    assert.doesNotMatch(o.title, /Could not read/);
    const fresh = (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${o.id}`)).body;
    assert.deepEqual(fresh.citations.map((c) => c.path), ['src/keep.ts']);
  });
});
