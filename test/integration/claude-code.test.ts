// The real Claude Code (`claude -p`, 2.1.x, installed into .cache by the harness) in a temp project
// whose .claude/settings.json and .mcp.json were written by our installer, against a real worker and
// the fake Messages API. Run 1 reads a file: the prompt, the Read observation and the summary must
// reach the worker. Run 2 must start with our context in the request body, get the file's history
// when it reads the file again, and can call our MCP server's search tool. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExportDocument } from '../../worker/transfer';
import { ensureClaudeCode, runClaude, type RunClaudeResult } from '../helpers/claudeCode';
import { allText, startFakeAnthropic, text, toolUse, type FakeAnthropic, type MessagesBody, type Reply } from '../helpers/fakeAnthropic';
import { CLI_JS, startWorker, until, type RunningWorker } from '../helpers/worker';

const MARKER = 'zebra-marker-4711';
const PROMPT_1 = 'What does notes.txt say?';
const FINAL_1 = 'The file says the mascot is a zebra.';
const PROMPT_2 = 'Remind me what we know about the mascot.';
const FINAL_2 = 'Memory says the mascot is a zebra.';

const toolResults = (body: MessagesBody): number =>
  body.messages.reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result').length : 0), 0);

describe('real Claude Code with claude-mem installed', () => {
  let w: RunningWorker;
  let fake: FakeAnthropic;
  let tmp: string;
  let project: string;
  let projectName: string;
  let notes: string;
  let env: Record<string, string>;
  let run1: RunClaudeResult;
  /** What the fake model does in the second session; undefined during the first. */
  let script2: ((body: MessagesBody) => Reply) | undefined;

  const messageBodies = (from = 0): MessagesBody[] =>
    fake.requests.slice(from).filter((r) => r.path === '/v1/messages' && r.body).map((r) => r.body as MessagesBody);
  const exported = async (): Promise<ExportDocument> => (await w.req<ExportDocument>('GET', `/api/export?project=${encodeURIComponent(projectName)}`)).body;
  const hooksLog = (): string => {
    try {
      return fs.readFileSync(path.join(w.dataDir, 'logs', 'hooks.log'), 'utf8');
    } catch {
      return '';
    }
  };

  before(async () => {
    await ensureClaudeCode();
    w = await startWorker();
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cc-mem-')));
    project = path.join(tmp, 'zoo-app');
    projectName = 'zoo-app';
    fs.mkdirSync(project);
    notes = path.join(project, 'notes.txt');
    // Over the file-context size floor, so a later Read gets the file's history.
    fs.writeFileSync(notes, `The mascot is a zebra. ${MARKER}\n` + 'Stripes are mandatory on Fridays.\n'.repeat(60));
    env = {
      CLAUDE_MEM_DATA_DIR: w.dataDir,
      CLAUDE_MEM_WORKER_PORT: String(w.port),
      // A hook that cannot reach this test's worker must not start a stray one.
      CLAUDE_MEM_NO_AUTOSTART: '1',
      CLAUDE_MEM_HOOK_LOG_LEVEL: 'info',
    };
    // Our installer writes the project's .claude/settings.json and .mcp.json.
    const inst = spawnSync(process.execPath, [CLI_JS, 'install', 'claude-code', '--project', project], { env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(inst.status, 0, inst.stderr);

    fake = await startFakeAnthropic(({ body }) => {
      if (!body.tools?.length) return text('ok'); // side requests (titles, summaries) if any
      if (script2) return script2(body);
      return toolResults(body) > 0 ? text(FINAL_1) : toolUse('Read', { file_path: notes });
    });
    run1 = await runClaude({ cwd: project, prompt: PROMPT_1, baseUrl: fake.url, env, args: ['--allowedTools', 'Read'], timeoutMs: 180_000 });
  });

  after(async () => {
    await fake?.close();
    await w?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('claude -p runs with our hooks installed and answers', (t) => {
    t.diagnostic(`claude -p took ${run1.durationMs} ms`);
    assert.equal(run1.timedOut, false, 'claude -p timed out');
    assert.equal(run1.code, 0, `exit ${run1.code}\nstdout: ${run1.stdout}\nstderr: ${run1.stderr}`);
    assert.equal(run1.json?.is_error, false);
    assert.equal(run1.json?.result, FINAL_1);
  });

  it('the prompt, the Read observation and the summary reach the worker', async () => {
    const sid = run1.json?.session_id;
    assert.ok(sid, 'session id');
    const s = await until(async () => {
      const x = (await exported()).sessions.find((y) => y.contentSessionId === sid);
      return x && x.observations.length > 0 && x.summaries.length > 0 && x.status === 'completed' ? x : undefined;
    }, 30_000, `session ${sid} with observation, summary and completion; hooks.log:\n${hooksLog()}`);
    assert.equal(s.platform, 'claude-code');
    assert.equal(s.cwd, project);
    assert.deepEqual(s.prompts.map((p) => p.text), [PROMPT_1]);
    const read = s.observations.find((o) => o.toolName === 'Read');
    assert.ok(read, JSON.stringify(s.observations));
    assert.deepEqual(read.filesRead, ['notes.txt']);
    assert.match(s.summaries[0].notes ?? '', /mascot is a zebra/);
    assert.equal(s.summaries[0].request, PROMPT_1);
    assert.doesNotMatch(hooksLog(), / (WARN|ERROR) /);
  });

  it('a hook that prints {} adds nothing to the conversation', () => {
    for (const b of messageBodies()) assert.doesNotMatch(JSON.stringify(b.messages), /hook additional context: \{\}/);
  });

  describe('second session', () => {
    let run2: RunClaudeResult;
    let bodies: MessagesBody[];
    let fileHistoryKnown = false;

    before(async () => {
      // Wait until the first session's observation is searchable, as a user would come back later.
      await until(async () => (await w.req('GET', `/api/context/inject?project=${projectName}`)).body?.toString().includes('notes.txt'), 30_000, 'context mentions notes.txt');
      const byFile = await w.req('GET', `/api/search/by-file?path=${encodeURIComponent(notes)}&project=${projectName}`);
      fileHistoryKnown = byFile.status === 200 && Array.isArray(byFile.body?.items) && byFile.body.items.length > 0;
      script2 = (body) => {
        const n = toolResults(body);
        if (n === 0) return toolUse('Read', { file_path: notes }, 'toolu_read2');
        if (n === 1) return toolUse('mcp__claude-mem__search', { query: 'zebra mascot' }, 'toolu_mcp2');
        return text(FINAL_2);
      };
      const from = fake.requests.length;
      run2 = await runClaude({
        cwd: project, prompt: PROMPT_2, baseUrl: fake.url, env,
        args: ['--allowedTools', 'Read,mcp__claude-mem__search,mcp__claude-mem__timeline,mcp__claude-mem__get_observations'],
        timeoutMs: 180_000,
      });
      bodies = messageBodies(from).filter((b) => b.tools?.length);
    });

    it('completes', () => {
      assert.equal(run2.code, 0, `stdout: ${run2.stdout}\nstderr: ${run2.stderr}`);
      assert.equal(run2.json?.result, FINAL_2);
    });

    it('receives our context in the first request body', () => {
      const first = bodies[0];
      assert.ok(first, 'no request reached the fake');
      const all = allText(first);
      assert.match(all, /SessionStart hook additional context: [\s\S]*<claude-mem-context>/);
      assert.match(all, new RegExp(`# ${projectName}`));
      assert.match(all, /Read notes\.txt/);
    });

    it('gets the file history as context when it reads the file again', (t) => {
      if (!fileHistoryKnown) {
        t.skip('GET /api/search/by-file has no history for notes.txt on this worker');
        return;
      }
      const afterRead = bodies[1];
      assert.ok(afterRead);
      assert.match(allText(afterRead), /past observation[\s\S]*notes\.txt/);
    });

    it('offers our MCP tools and its search answers from memory', () => {
      // 2.1.x lists MCP tools either in `tools` or, deferred behind ToolSearch, by name in a reminder.
      const names = (bodies[0].tools as Array<{ name?: string }>).map((x) => x.name);
      const announced = allText(bodies[0]);
      for (const tool of ['search', 'timeline', 'get_observations', 'save_memory']) {
        const name = `mcp__claude-mem__${tool}`;
        assert.ok(names.includes(name) || announced.includes(name), `${name} is not offered; tools: ${names.join(', ')}`);
      }
      const afterSearch = bodies[2];
      assert.ok(afterSearch, `only ${bodies.length} requests`);
      const result = JSON.stringify(afterSearch.messages.at(-1));
      assert.match(result, /tool_result/);
      assert.match(result, /Read notes\.txt/);
      assert.doesNotMatch(result, /is_error":true/);
    });
  });
});
