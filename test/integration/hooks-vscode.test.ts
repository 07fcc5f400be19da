// The hook CLI as VS Code's agent hooks run it: `node dist/cli.js hook <platform> <handler>` with VS
// Code's payloads (test/fixtures/vscode-agent-hooks) on stdin, against a real worker. A whole agent
// session; one command line receiving both Claude Code's and VS Code's shapes; both hook files
// installed at once (VS Code runs the entries of ~/.claude/settings.json and of a Copilot hook file
// for the same event): everything stored once. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ExportDocument } from '../../worker/transfer';
import { CLI_JS, ROOT, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function runHook(platform: string, handler: string, input: unknown, env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, 'hook', platform, handler], { env: { ...process.env, CLAUDE_MEM_HOOK_LOG_LEVEL: 'info', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
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
    child.stdin.on('error', () => undefined);
    child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  });
}

function fixture(dir: string, name: string, vars: { project: string; home: string; session: string }): Record<string, any> {
  const text = fs
    .readFileSync(path.join(ROOT, 'test', 'fixtures', dir, `${name}.json`), 'utf8')
    .split('{{PROJECT_DIR}}').join(vars.project)
    .split('{{HOME}}').join(vars.home)
    .split('{{PROJECT_SLUG}}').join('slug')
    .split('{{SESSION_ID}}').join(vars.session)
    .split('{{PROMPT_ID}}').join('prompt-1');
  return JSON.parse(text) as Record<string, any>;
}

function assertOnlyJson(r: CliRun): void {
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.json !== undefined, `stdout is not one JSON document: ${JSON.stringify(r.stdout)}`);
  assert.equal(r.stdout, JSON.stringify(r.json));
}

describe('hook CLI with VS Code agent-hook payloads against a real worker', () => {
  let w: RunningWorker;
  let project: string;
  let home: string;
  let env: Record<string, string>;
  let projectName: string;
  let big: string;

  const exported = async (): Promise<ExportDocument> => (await w.req<ExportDocument>('GET', `/api/export?project=${encodeURIComponent(projectName)}`)).body;
  const sessionOf = async (sid: string, platform = 'vscode-agent') => (await exported()).sessions.find((s) => s.contentSessionId === sid && s.platform === platform);
  const vs = (name: string, session: string) => fixture('vscode-agent-hooks', name, { project, home, session });
  const log = () => {
    try {
      return fs.readFileSync(path.join(w.dataDir, 'logs', 'hooks.log'), 'utf8');
    } catch {
      return '';
    }
  };

  before(async () => {
    w = await startWorker();
    const tmp = fs.realpathSync(tempDir('hooks-vscode-'));
    project = path.join(tmp, `proj-${path.basename(tmp)}`);
    home = path.join(tmp, 'home');
    fs.mkdirSync(project);
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(project, 'notes.txt'), 'The mascot is a zebra. zebra-marker-4711\n');
    big = path.join(project, 'big.ts');
    fs.writeFileSync(big, '// zebra module\n' + 'export const stripes = 1;\n'.repeat(200));
    projectName = path.basename(project);
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await w?.stop();
  });

  it('a whole agent session: prompt and observations with their files, summary queued, session completed, documented output', async () => {
    // An earlier session left history for big.ts, so the read below has something to be told.
    const earlier = vs('PostToolUse-edit', 'vs-earlier');
    earlier.tool_input = { filePath: big, oldString: 'stripes = 0', newString: 'stripes = 1' };
    earlier.tool_use_id = 'call_vs_earlier';
    assertOnlyJson(await runHook('vscode-agent', 'observation', earlier, env));
    await until(async () => {
      const r = await w.req('GET', `/api/search/by-file?path=${encodeURIComponent(big)}&project=${projectName}`);
      return r.status === 200 && JSON.stringify(r.body).includes('"id"');
    }, 20_000, 'history of big.ts');
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(big, old, old);

    const S = 'vs-session-1';
    const start = await runHook('vscode-agent', 'context', vs('SessionStart', S), env);
    assertOnlyJson(start);
    assert.deepEqual(Object.keys(start.json), ['hookSpecificOutput']);
    assert.equal(start.json.hookSpecificOutput.hookEventName, 'SessionStart');
    assert.match(start.json.hookSpecificOutput.additionalContext, /<claude-mem-context>/);

    const init = await runHook('vscode-agent', 'session-init', vs('UserPromptSubmit', S), env);
    assertOnlyJson(init);
    assert.deepEqual(init.json, {});

    const read = vs('PreToolUse-read', S);
    read.tool_input.filePath = big;
    const pre = await runHook('vscode-agent', 'file-context', read, env);
    assertOnlyJson(pre);
    assert.equal(pre.json.hookSpecificOutput?.hookEventName, 'PreToolUse');
    assert.match(pre.json.hookSpecificOutput.additionalContext, /past observation.*about big\.ts/);
    assert.equal(pre.json.hookSpecificOutput.permissionDecision, undefined);
    assert.equal(pre.json.hookSpecificOutput.updatedInput, undefined);

    // VS Code ignores matchers: file-context runs before every tool, and says nothing for non-reads.
    const preTerm = await runHook('vscode-agent', 'file-context', vs('PreToolUse-terminal', S), env);
    assertOnlyJson(preTerm);
    assert.deepEqual(preTerm.json, {});

    for (const name of ['PostToolUse-edit', 'PostToolUse-terminal']) {
      const r = await runHook('vscode-agent', 'observation', vs(name, S), env);
      assertOnlyJson(r);
      assert.deepEqual(r.json, {});
    }
    const stop = await runHook('vscode-agent', 'summarize', vs('Stop', S), env);
    assertOnlyJson(stop);
    assert.deepEqual(stop.json, {});

    const s = await until(async () => {
      const x = await sessionOf(S);
      return x && x.observations.length >= 2 && x.summaries.length > 0 ? x : undefined;
    }, 20_000, 'observations and summary stored');
    assert.equal(s.platform, 'vscode-agent');
    assert.equal(s.cwd, project);
    assert.equal(s.status, 'completed', 'Stop ends a VS Code agent session');
    assert.equal(s.completionReason, 'stop');
    assert.deepEqual(s.prompts.map((p) => p.text), ['Where is the mascot written down? Fix the typo in notes.txt.']);
    const byTool = Object.fromEntries(s.observations.map((o) => [o.toolName, o]));
    assert.deepEqual(byTool.replace_string_in_file.filesModified, ['notes.txt']);
    assert.equal(byTool.replace_string_in_file.title, 'Edited notes.txt');
    assert.match(byTool.run_in_terminal.title, /^Ran `grep -n zebra notes\.txt`/);
    assert.deepEqual(byTool.run_in_terminal.filesModified, []);
    assert.equal(log().match(/ (WARN|ERROR) /g), null, log());
  });

  it('one command line (hook claude-code ...) does the right thing with each shape', async () => {
    const claude = fixture('claude-code-hooks', 'PostToolUse', { project, home, session: 'both-claude' });
    const vscode = vs('PostToolUse-edit', 'both-vscode');
    vscode.tool_use_id = 'call_vs_both';
    assertOnlyJson(await runHook('claude-code', 'observation', claude, env));
    assertOnlyJson(await runHook('claude-code', 'observation', vscode, env));
    const c = await until(async () => {
      const x = await sessionOf('both-claude', 'claude-code');
      return x && x.observations.length > 0 ? x : undefined;
    }, 20_000, 'Claude Code observation');
    const v = await until(async () => {
      const x = await sessionOf('both-vscode');
      return x && x.observations.length > 0 ? x : undefined;
    }, 20_000, 'VS Code observation');
    assert.deepEqual(c.observations[0].filesRead, ['notes.txt']);
    assert.equal(c.observations[0].toolName, 'Read');
    assert.deepEqual(v.observations[0].filesModified, ['notes.txt']);

    // The Claude Code entry for PreToolUse (matcher "Read", ignored by VS Code) on a VS Code edit: silent.
    const pre = vs('PreToolUse-terminal', 'both-vscode');
    const r = await runHook('claude-code', 'file-context', pre, env);
    assertOnlyJson(r);
    assert.deepEqual(r.json, {});
    // SessionStart through the Claude Code entry answers VS Code's shape.
    const start = await runHook('claude-code', 'context', vs('SessionStart', 'both-vscode'), env);
    assertOnlyJson(start);
    assert.equal(start.json.hookSpecificOutput.hookEventName, 'SessionStart');
  });

  it('search filters by platform and shows it', async () => {
    const all = await w.req<{ items: Array<{ platform?: string; title: string }> }>('GET', `/api/search?query=notes&mode=keyword&project=${projectName}&limit=50`);
    assert.equal(all.status, 200);
    const platforms = new Set(all.body.items.map((i) => i.platform));
    assert.ok(platforms.has('vscode-agent') && platforms.has('claude-code'), [...platforms].join(', '));
    for (const p of ['vscode-agent', 'claude-code']) {
      const r = await w.req<{ items: Array<{ platform?: string }> }>('GET', `/api/search?query=notes&mode=keyword&project=${projectName}&platform=${p}&limit=50`);
      assert.equal(r.status, 200);
      assert.ok(r.body.items.length > 0, p);
      assert.ok(r.body.items.every((i) => i.platform === p), p);
    }
    const browse = await w.req<{ items: Array<{ platform?: string }> }>('GET', `/api/search?project=${projectName}&platform=vscode-agent&limit=50`);
    assert.ok(browse.body.items.length > 0 && browse.body.items.every((i) => i.platform === 'vscode-agent'));
    const bad = await w.req<{ error: string }>('GET', `/api/search?query=x&platform=${encodeURIComponent('Not A Platform')}`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /platform/);
  });

  it('both hook files installed at once: each event runs twice, concurrently, and is stored once', async () => {
    const S = 'vs-twice';
    const both = (handler: string, input: unknown) => Promise.all([runHook('claude-code', handler, input, env), runHook('vscode-agent', handler, input, env)]);
    // One injection per conversation: one prints the context, the other nothing (exit 0).
    const starts = await both('context', vs('SessionStart', S));
    for (const r of starts) assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(starts.map((r) => (r.stdout === '' ? 'silent' : 'json')).sort(), ['json', 'silent']);
    for (const r of starts.filter((x) => x.stdout !== '')) assertOnlyJson(r);
    for (const r of await both('session-init', vs('UserPromptSubmit', S))) assertOnlyJson(r);
    for (const name of ['PostToolUse-edit', 'PostToolUse-terminal', 'PostToolUse-create']) for (const r of await both('observation', vs(name, S))) assertOnlyJson(r);
    for (const r of await both('summarize', vs('Stop', S))) assertOnlyJson(r);

    const s = await until(async () => {
      const x = await sessionOf(S);
      const q = await w.req<{ queueDepth: number }>('GET', '/api/health');
      return x && x.observations.length >= 3 && x.summaries.length > 0 && q.body.queueDepth === 0 ? x : undefined;
    }, 20_000, 'session stored');
    const all = (await exported()).sessions.filter((x) => x.contentSessionId === S);
    assert.equal(all.length, 1, 'one session');
    assert.equal(s.prompts.length, 1, 'one prompt');
    assert.equal(s.observations.length, 3, `one observation per tool call: ${s.observations.map((o) => o.toolName).join(', ')}`);
    assert.equal(s.summaries.length, 1, 'one summary');
    assert.equal(s.status, 'completed');

    // A second, real prompt with the same words much later is a new prompt (only a short window is merged).
    const again = await w.req<{ promptNumber: number; duplicate?: boolean }>('POST', '/api/sessions/init', { contentSessionId: S, platform: 'vscode-agent', cwd: project, prompt: 'Another question' });
    assert.equal(again.body.promptNumber, 2);
    const dup = await w.req<{ promptNumber: number; duplicate?: boolean }>('POST', '/api/sessions/init', { contentSessionId: S, platform: 'vscode-agent', cwd: project, prompt: 'Another question' });
    assert.equal(dup.body.promptNumber, 2);
    assert.equal(dup.body.duplicate, true);
  });
});
