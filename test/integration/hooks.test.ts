// The hook CLI as Claude Code runs it: `node dist/cli.js hook claude-code <event>` with the real hook
// JSON on stdin (test/fixtures/claude-code-hooks), against a real worker, against no worker, and
// against a worker that misbehaves. Asserts stdout (only the hook's JSON), the exit code, what the
// worker stored, and what went to <dataDir>/logs/hooks.log. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExportDocument } from '../../worker/transfer';
import { CLI_JS, ROOT, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';
import { proofReply } from '../helpers/squatter';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'claude-code-hooks');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function runHook(event: string, input: string | Buffer, env: Record<string, string>, timeoutMs = 30_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, 'hook', 'claude-code', event], {
      env: { ...process.env, CLAUDE_MEM_HOOK_LOG_LEVEL: 'info', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
    child.stdin.on('error', () => undefined); // the CLI may exit before reading everything
    child.stdin.end(input);
  });
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

/** A fixture with its placeholders filled for this project and session. */
function fixture(event: string, vars: { project: string; home: string; session: string; toolUseId?: string }): Record<string, any> {
  const text = fs
    .readFileSync(path.join(FIXTURES, `${event}.json`), 'utf8')
    .split('{{PROJECT_DIR}}').join(vars.project)
    .split('{{HOME}}').join(vars.home)
    .split('{{PROJECT_SLUG}}').join('slug')
    .split('{{SESSION_ID}}').join(vars.session)
    .split('{{PROMPT_ID}}').join('prompt-1')
    .split('toolu_fake0000').join(vars.toolUseId ?? 'toolu_fake0000');
  return JSON.parse(text) as Record<string, any>;
}

const hooksLog = (dataDir: string): string => {
  try {
    return fs.readFileSync(path.join(dataDir, 'logs', 'hooks.log'), 'utf8');
  } catch {
    return '';
  }
};

/** stdout is exactly one JSON document: nothing else may reach Claude Code. */
function assertOnlyJson(r: CliRun): void {
  assert.ok(r.json !== undefined, `stdout is not one JSON document: ${JSON.stringify(r.stdout)}`);
  assert.equal(r.stdout, JSON.stringify(r.json));
}

function assertSessionStartShape(r: CliRun): string {
  assertOnlyJson(r);
  assert.equal(r.json.hookSpecificOutput?.hookEventName, 'SessionStart');
  assert.equal(typeof r.json.hookSpecificOutput?.additionalContext, 'string');
  assert.deepEqual(Object.keys(r.json), ['hookSpecificOutput']);
  return r.json.hookSpecificOutput.additionalContext as string;
}

describe('hook CLI against a real worker', () => {
  let w: RunningWorker;
  let project: string;
  let home: string;
  let env: Record<string, string>;
  let projectName: string;
  let routes: { context: boolean; byFile: boolean };

  const exported = async (): Promise<ExportDocument> => (await w.req<ExportDocument>('GET', `/api/export?project=${encodeURIComponent(projectName)}`)).body;
  const sessionOf = async (sid: string) => (await exported()).sessions.find((s) => s.contentSessionId === sid);

  before(async () => {
    w = await startWorker();
    const tmp = fs.realpathSync(tempDir('hooks-'));
    project = path.join(tmp, `proj-${path.basename(tmp)}`);
    home = path.join(tmp, 'home');
    fs.mkdirSync(project);
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(project, 'notes.txt'), 'The mascot is a zebra. zebra-marker-4711\n');
    projectName = path.basename(project);
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
    routes = {
      context: (await w.req('GET', `/api/context/inject?project=${projectName}`)).status !== 404,
      byFile: (await w.req('GET', `/api/search/by-file?path=x&project=${projectName}`)).status !== 404,
    };
  });
  after(async () => {
    await w?.stop();
  });

  it('runs a whole session from the real hook inputs and stores prompt, observation, summary and completion', async (t) => {
    const v = { project, home, session: 'sess-lifecycle' };
    const start = await runHook('context', JSON.stringify(fixture('SessionStart', v)), env);
    assert.equal(start.code, 0, start.stderr);
    const ctx = assertSessionStartShape(start);
    if (routes.context) assert.match(ctx, /<claude-mem-context>/);
    else t.diagnostic('GET /api/context/inject is not served yet: context is empty');

    const init = await runHook('session-init', JSON.stringify(fixture('UserPromptSubmit', v)), env);
    assert.equal(init.code, 0, init.stderr);
    assertOnlyJson(init);
    assert.deepEqual(init.json, {});

    const pre = await runHook('file-context', JSON.stringify(fixture('PreToolUse', v)), env);
    assert.equal(pre.code, 0, pre.stderr);
    assertOnlyJson(pre);
    assert.deepEqual(pre.json, {}, 'a small file gets no file context');

    const post = await runHook('observation', JSON.stringify(fixture('PostToolUse', v)), env);
    assert.equal(post.code, 0, post.stderr);
    assert.deepEqual(post.json, {});

    const stop = await runHook('summarize', JSON.stringify(fixture('Stop', v)), env);
    assert.equal(stop.code, 0, stop.stderr);
    assert.deepEqual(stop.json, {});

    const end = await runHook('session-end', JSON.stringify(fixture('SessionEnd', v)), env);
    assert.equal(end.code, 0, end.stderr);
    assert.deepEqual(end.json, {});

    const s = await until(async () => {
      const x = await sessionOf('sess-lifecycle');
      return x && x.observations.length > 0 && x.summaries.length > 0 ? x : undefined;
    }, 20_000, 'observation and summary stored');
    assert.equal(s.platform, 'claude-code');
    assert.equal(s.cwd, project);
    assert.equal(s.status, 'completed');
    assert.equal(s.completionReason, 'other');
    assert.deepEqual(s.prompts.map((p) => p.text), ['What does notes.txt say?']);
    assert.equal(s.observations[0].toolName, 'Read');
    assert.deepEqual(s.observations[0].filesRead, ['notes.txt']);
    assert.match(s.summaries[0].notes ?? '', /mascot is a zebra/);
    assert.equal(hooksLog(w.dataDir).match(/ (WARN|ERROR) /g), null, hooksLog(w.dataDir));
  });

  it('stores a failed tool use (PostToolUseFailure) with its error', async () => {
    const input = fixture('PostToolUse', { project, home, session: 'sess-failure', toolUseId: 'toolu_fail1' });
    delete input.tool_response;
    input.hook_event_name = 'PostToolUseFailure';
    input.tool_input = { command: 'npm test' };
    input.tool_name = 'Bash';
    input.error = 'Exit code 1\nError: expected 2 to equal 3';
    const r = await runHook('observation', JSON.stringify(input), env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {});
    const s = await until(async () => {
      const x = await sessionOf('sess-failure');
      return x && x.observations.length > 0 ? x : undefined;
    }, 20_000, 'failure observation');
    assert.equal(s.observations[0].toolName, 'Bash');
    assert.match(JSON.stringify(s.observations[0]), /expected 2 to equal 3/);
  });

  it('summarize falls back to the transcript for the last prompt and reply', async () => {
    const transcript = path.join(home, 'transcript.jsonl');
    const lines = [
      { type: 'user', message: { role: 'user', content: 'Explain the zebra policy' } },
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'file text' }] } },
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Zebras are the mascot; stripes mandatory.' }] } },
    ];
    fs.writeFileSync(transcript, 'x'.repeat(100_000) + '\n' + lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const input = fixture('Stop', { project, home, session: 'sess-transcript' });
    delete input.last_assistant_message;
    input.transcript_path = transcript;
    const r = await runHook('summarize', JSON.stringify(input), env);
    assert.equal(r.code, 0, r.stderr);
    const s = await until(async () => {
      const x = await sessionOf('sess-transcript');
      return x && x.summaries.length > 0 ? x : undefined;
    }, 20_000, 'summary');
    assert.match(s.summaries[0].notes ?? '', /stripes mandatory/);
    assert.match(s.summaries[0].request ?? '', /zebra policy/);
  });

  it('file-context adds the file history for a large file once, and stays silent when nothing changed', async (t) => {
    if (!routes.byFile) {
      t.skip('GET /api/search/by-file is not served by this worker yet');
      return;
    }
    const big = path.join(project, 'big.ts');
    fs.writeFileSync(big, '// zebra module\n' + 'export const stripes = 1;\n'.repeat(200));
    const v = { project, home, session: 'sess-filectx', toolUseId: 'toolu_big1' };
    const post = fixture('PostToolUse', v);
    post.tool_input = { file_path: big };
    post.tool_response = { type: 'text', file: { filePath: big, content: fs.readFileSync(big, 'utf8') } };
    await runHook('observation', JSON.stringify(post), env);
    await until(async () => {
      const r = await w.req('GET', `/api/search/by-file?path=${encodeURIComponent(big)}&project=${projectName}`);
      return r.status === 200 && JSON.stringify(r.body).includes('"id"');
    }, 20_000, 'history of big.ts');
    // Make the file older than its observation so it counts as unchanged since.
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(big, old, old);
    const pre = { ...fixture('PreToolUse', { ...v, session: 'sess-filectx-2' }), tool_input: { file_path: big } };
    const first = await runHook('file-context', JSON.stringify(pre), env);
    assert.equal(first.code, 0, first.stderr);
    assertOnlyJson(first);
    assert.equal(first.json.hookSpecificOutput?.hookEventName, 'PreToolUse');
    assert.match(first.json.hookSpecificOutput.additionalContext, /big\.ts/);
    assert.equal(first.json.hookSpecificOutput.permissionDecision, undefined, 'never decides the permission');
    assert.equal(first.json.hookSpecificOutput.updatedInput, undefined, 'never changes the tool input');
    const again = await runHook('file-context', JSON.stringify(pre), env);
    assert.deepEqual(again.json, {}, 'the same history is not repeated in one session');
  });

  it('odd input: missing fields, empty stdin and garbage exit 0 with the right shape and store nothing', async () => {
    const before = (await w.req('GET', '/api/stats')).body;
    for (const event of ['session-init', 'observation', 'file-context', 'summarize', 'session-end']) {
      for (const input of ['', '   ', 'not json', '[1,2]', '{"hook_event_name":"X"}', '{"session_id":"s-missing"}']) {
        const r = await runHook(event, input, env);
        assert.equal(r.code, 0, `${event} ${JSON.stringify(input)}: ${r.stderr}`);
        assertOnlyJson(r);
        assert.deepEqual(r.json, {}, `${event} ${JSON.stringify(input)}`);
      }
    }
    for (const input of ['', 'not json', '{}']) {
      const r = await runHook('context', input, env);
      assert.equal(r.code, 0, r.stderr);
      assertSessionStartShape(r);
    }
    const afterStats = (await w.req('GET', '/api/stats')).body;
    assert.equal(afterStats.observations + afterStats.queue.pending, before.observations + before.queue.pending, 'no observation from odd input');
    assert.match(hooksLog(w.dataDir), /empty stdin/);
    assert.match(hooksLog(w.dataDir), /stdin is not JSON/);
    assert.match(hooksLog(w.dataDir), /without tool_name; nothing sent/);
  });

  it('a huge tool_response is bounded and stored, not refused', async () => {
    const input = fixture('PostToolUse', { project, home, session: 'sess-huge', toolUseId: 'toolu_huge' });
    const huge = 'HEAD-MARK ' + 'z'.repeat(20 * 1024 * 1024) + ' TAIL-MARK';
    input.tool_response = { type: 'text', file: { filePath: path.join(project, 'notes.txt'), content: huge }, extra: Array.from({ length: 3000 }, (_, i) => `line ${i}`) };
    const r = await runHook('observation', JSON.stringify(input), env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {});
    const s = await until(async () => {
      const x = await sessionOf('sess-huge');
      return x && x.observations.length > 0 ? x : undefined;
    }, 20_000, 'huge observation stored');
    assert.equal(s.observations[0].toolName, 'Read');
    assert.doesNotMatch(hooksLog(w.dataDir), /sess-huge.*(ERROR|413)/);
  });

  it('non-UTF-8 bytes in stdin become U+FFFD and the prompt is stored', async () => {
    const input = fixture('UserPromptSubmit', { project, home, session: 'sess-bytes' });
    input.prompt = 'bytes: @@';
    const raw = Buffer.from(JSON.stringify(input), 'utf8');
    const at = raw.indexOf('@@');
    raw[at] = 0xff;
    raw[at + 1] = 0xc3; // a lone lead byte
    const r = await runHook('session-init', raw, env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {});
    const s = await until(() => sessionOf('sess-bytes'), 10_000, 'session');
    assert.equal(s.prompts[0].text, 'bytes: \uFFFD\uFFFD');
  });

  it('the node:net transport (hooks use it when no spool serves them) stores the same', async () => {
    const input = fixture('PostToolUse', { project, home, session: 'sess-net', toolUseId: 'toolu_net' });
    const r = await runHook('observation', JSON.stringify(input), { ...env, CLAUDE_MEM_HOOK_TRANSPORT: 'tcp' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {});
    const s = await until(async () => {
      const x = await sessionOf('sess-net');
      return x && x.observations.length > 0 ? x : undefined;
    }, 20_000, 'observation over node:net');
    assert.equal(s.observations[0].toolName, 'Read');
  });

  it('our own MCP tools are not stored as observations', async () => {
    const input = fixture('PostToolUse', { project, home, session: 'sess-own', toolUseId: 'toolu_own' });
    input.tool_name = 'mcp__claude-mem__search';
    const r = await runHook('observation', JSON.stringify(input), env);
    assert.equal(r.code, 0);
    assert.equal(await sessionOf('sess-own'), undefined);
  });

  it('a 4xx (our bug) exits 1 — non-blocking in Claude Code — and is logged loudly', async () => {
    const input = fixture('PostToolUse', { project, home, session: 'sess-4xx', toolUseId: 'toolu_4xx' });
    input.tool_name = 'T'.repeat(300); // the worker caps tool_name at 200 characters
    const r = await runHook('observation', JSON.stringify(input), env);
    assert.equal(r.code, 1);
    assert.deepEqual(r.json, {}, 'stdout keeps the hook shape');
    assert.match(r.stderr, /refused with 400/);
    assert.match(hooksLog(w.dataDir), /ERROR .*refused with 400/);
  });
});

describe('hook CLI with no worker', () => {
  it('every event exits 0 with its shape when nothing listens, and says so in the log', async () => {
    const dataDir = tempDir();
    const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(await freePort()), CLAUDE_MEM_NO_AUTOSTART: '1' };
    const v = { project: dataDir, home: dataDir, session: 'no-worker' };
    const cases: Array<[string, string]> = [
      ['context', 'SessionStart'],
      ['session-init', 'UserPromptSubmit'],
      ['observation', 'PostToolUse'],
      ['summarize', 'Stop'],
      ['session-end', 'SessionEnd'],
    ];
    for (const [hook, event] of cases) {
      const r = await runHook(hook, JSON.stringify(fixture(event, v)), env);
      assert.equal(r.code, 0, `${hook}: ${r.stderr}`);
      if (hook === 'context') assert.equal(assertSessionStartShape(r), '');
      else assert.deepEqual(r.json, {});
    }
    assert.match(hooksLog(dataDir), /worker unreachable .*ECONNREFUSED/);
  });

  it('context starts a worker when none runs, then answers from it', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), CLAUDE_MEM_HOOK_START_MS: '20000' };
    try {
      const r = await runHook('context', JSON.stringify(fixture('SessionStart', { project: dataDir, home: dataDir, session: 'autostart' })), env, 60_000);
      assert.equal(r.code, 0, r.stderr);
      assertSessionStartShape(r);
      const health = await fetch(`http://127.0.0.1:${port}/api/health`).then((x) => x.json() as Promise<{ service: string }>);
      assert.equal(health.service, 'claude-mem-vscode');
      assert.ok(fs.existsSync(path.join(dataDir, 'auth.token')));
    } finally {
      await new Promise<void>((resolve) => {
        const c = spawn(process.execPath, [CLI_JS, 'stop'], { env: { ...process.env, ...env }, stdio: 'ignore' });
        c.on('close', () => resolve());
      });
    }
  });
});

describe('hook CLI against a worker that fails', () => {
  let server: http.Server;
  let port: number;
  let mode: 'busy' | 'ratelimit' | 'hang' = 'busy';
  const dataDir = tempDir();
  fs.writeFileSync(path.join(dataDir, 'auth.token'), 'fail-token');

  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      // It is this data dir's worker (it proves it holds the token), then fails the real requests.
      const proof = proofReply(req.url ?? '', 'fail-token', dataDir, port);
      if (proof !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(proof);
      if (mode === 'hang') return; // never answers
      res.writeHead(mode === 'busy' ? 503 : 429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: mode }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const m of ['busy', 'ratelimit', 'hang'] as const) {
    it(`${m === 'busy' ? '5xx' : m === 'ratelimit' ? '429' : 'a timeout'} exits 0 and is logged as a warning`, async () => {
      mode = m;
      const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(port), CLAUDE_MEM_NO_AUTOSTART: '1' };
      const input = JSON.stringify(fixture('PostToolUse', { project: dataDir, home: dataDir, session: `fail-${m}` }));
      const r = await runHook('observation', input, env);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.json, {});
      assert.equal(r.stderr, '');
      const log = hooksLog(dataDir);
      if (m === 'hang') assert.match(log, /WARN .*timed out after 2000 ms/);
      else assert.match(log, new RegExp(`WARN .*answered ${m === 'busy' ? 503 : 429}; dropped`));
      const ctx = await runHook('context', JSON.stringify(fixture('SessionStart', { project: dataDir, home: dataDir, session: `fail-${m}` })), env);
      assert.equal(ctx.code, 0);
      assert.equal(assertSessionStartShape(ctx), '');
    });
  }
});
