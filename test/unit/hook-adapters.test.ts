// Each hook platform's adapter against payload fixtures written from that platform's documentation
// (test/fixtures/<platform>-hooks/, each file names its page and version under "//"): every event,
// missing and aliased fields, unknown tools, which platform a payload is told to be, the output
// shape, and what the tool table and the local compressor make of each platform's tools.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { observeToolUse } from '../../worker/compression/local';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { isSkippedTool } from '../../worker/privacy/filters';
import { canonicalUse, isReadTool, patchFiles, toolFiles, toolKind } from '../../common/toolKinds';
import { ADAPTERS, pickAdapter, platformArg, platformOfPayload } from '../../cli/hooks/adapters';
import type { HookInput, PlatformId } from '../../cli/hooks/input';

const ROOT = path.resolve(__dirname, '..', '..');
const P = '/work/proj';

function load(dir: string, name: string): Record<string, unknown> {
  const text = fs
    .readFileSync(path.join(ROOT, 'test', 'fixtures', dir, `${name}.json`), 'utf8')
    .split('{{PROJECT_DIR}}').join(P)
    .split('{{HOME}}').join('/home/u')
    .split('{{PROJECT_SLUG}}').join('slug')
    .split('{{SESSION_ID}}').join('sess-1')
    .split('{{PROMPT_ID}}').join('prompt-1');
  return JSON.parse(text) as Record<string, unknown>;
}

/** Read a fixture as the hook CLI would: command line names `named`, the payload may say otherwise. */
function read(dir: string, name: string, named: PlatformId | 'auto'): HookInput {
  const raw = load(dir, name);
  return pickAdapter(raw, named).read(raw);
}

describe('fixtures name their source', () => {
  for (const dir of ['vscode-agent-hooks', 'copilot-cli-hooks', 'codex-hooks', 'gemini-cli-hooks']) {
    it(`${dir}: every fixture quotes its documentation page`, () => {
      const files = fs.readdirSync(path.join(ROOT, 'test', 'fixtures', dir));
      assert.ok(files.length >= 6, `${dir} has ${files.length} fixtures`);
      for (const f of files) assert.match(String(load(dir, f.replace(/\.json$/, ''))['//']), /\.md|developers\.openai\.com/, f);
    });
  }
});

describe('VS Code agent hooks adapter', () => {
  const vs = (name: string, named: PlatformId | 'auto' = 'vscode-agent') => read('vscode-agent-hooks', name, named);

  it('reads every event, camelCase common fields included', () => {
    const cases: Array<[string, HookInput['event']]> = [
      ['SessionStart', 'session-start'],
      ['UserPromptSubmit', 'prompt'],
      ['PreToolUse-read', 'pre-tool'],
      ['PostToolUse-edit', 'post-tool'],
      ['PreCompact', 'pre-compact'],
      ['SubagentStart', 'subagent-start'],
      ['SubagentStop', 'subagent-stop'],
      ['Stop', 'stop'],
    ];
    for (const [name, event] of cases) {
      const i = vs(name);
      assert.equal(i.platform, 'vscode-agent', name);
      assert.equal(i.event, event, name);
      assert.equal(i.sessionId, 'sess-1', name);
      assert.equal(i.cwd, P, name);
      assert.equal(i.transcriptPath, '/home/u/.vscode-server/transcripts/sess-1.json', name);
    }
    assert.equal(vs('SessionStart').source, 'new');
    assert.equal(vs('UserPromptSubmit').prompt, 'Where is the mascot written down? Fix the typo in notes.txt.');
    assert.equal(vs('SubagentStart').agentId, 'subagent-456');
    assert.equal(vs('SubagentStart').agentType, 'Plan');
    assert.equal(vs('PreCompact').reason, 'auto');
  });

  it('Stop ends the session (VS Code has no SessionEnd); nothing else does', () => {
    assert.equal(vs('Stop').endsSession, true);
    for (const n of ['SessionStart', 'UserPromptSubmit', 'PostToolUse-edit', 'SubagentStop', 'PreCompact']) assert.ok(!vs(n).endsSession, n);
  });

  it('is told from the payload when the command line says claude-code (VS Code runs ~/.claude/settings.json) or nothing', () => {
    for (const named of ['claude-code', 'auto', 'vscode-agent'] as const) {
      const i = vs('PostToolUse-edit', named);
      assert.equal(i.platform, 'vscode-agent', named);
      assert.equal(i.toolName, 'replace_string_in_file');
      assert.equal(i.toolUseId, 'call_vs_edit_1');
      assert.deepEqual(i.toolInput, { filePath: `${P}/notes.txt`, oldString: 'zebra-marker-4711', newString: 'zebra-marker-4712', explanation: 'Fix the marker typo' });
      assert.equal(i.toolResponse, 'The file was edited successfully.');
    }
  });

  it('accepts aliased and missing fields', () => {
    const a = ADAPTERS['vscode-agent'].read({ session_id: 's', hook_event_name: 'PostToolUse', toolName: 't', toolInput: { filePath: 'x' }, toolUseId: 'u' });
    assert.equal(a.sessionId, 's');
    assert.equal(a.event, 'post-tool');
    assert.equal(a.toolName, 't');
    assert.equal(a.toolUseId, 'u');
    const empty = ADAPTERS['vscode-agent'].read({});
    assert.equal(empty.sessionId, undefined);
    assert.equal(empty.event, 'other');
    assert.equal(ADAPTERS['vscode-agent'].read({ hookEventName: 'SomethingNew', sessionId: 's' }).event, 'other');
  });

  it('maps VS Code tools onto kinds and files', () => {
    const tool = (n: string) => vs(n);
    assert.deepEqual([toolKind('read_file'), toolKind('replace_string_in_file'), toolKind('multi_replace_string_in_file'), toolKind('create_file'), toolKind('apply_patch'), toolKind('run_in_terminal'), toolKind('grep_search'), toolKind('file_search'), toolKind('semantic_search'), toolKind('fetch_webpage')], ['read', 'edit', 'edit', 'create', 'edit', 'run', 'search', 'search', 'search', 'fetch']);
    assert.equal(toolKind('some_future_tool'), 'other');
    assert.deepEqual(toolFiles('read_file', tool('PreToolUse-read').toolInput), [`${P}/notes.txt`]);
    assert.deepEqual(toolFiles('multi_replace_string_in_file', tool('PostToolUse-multi-replace').toolInput), [`${P}/a.ts`, `${P}/b.ts`]);
    assert.deepEqual(toolFiles('apply_patch', tool('PostToolUse-apply-patch').toolInput), [`${P}/src/app.ts`]);
    assert.deepEqual(toolFiles('run_in_terminal', tool('PostToolUse-terminal').toolInput), []);
    assert.deepEqual(toolFiles('editFiles', { files: ['src/main.ts'] }), ['src/main.ts']);
    // The default skip list covers each platform's to-do and ask-the-user tools.
    for (const t of ['TodoWrite', 'manage_todo_list', 'ask_user', 'write_todos']) assert.ok(isSkippedTool(t, DEFAULT_SETTINGS.skipTools), t);
    assert.ok(isReadTool('read_file') && isReadTool('Read') && isReadTool('view') && !isReadTool('run_in_terminal') && !isReadTool('replace_string_in_file') && !isReadTool('some_future_tool'));
  });

  it('the local compressor writes observations with the right files for VS Code tools', () => {
    const obs = (name: string) => {
      const i = vs(name);
      return observeToolUse({ toolName: i.toolName as string, toolInput: JSON.stringify(i.toolInput), toolResponse: String(i.toolResponse), cwd: P });
    };
    const edit = obs('PostToolUse-edit');
    assert.equal(edit.title, 'Edited notes.txt');
    assert.deepEqual(edit.filesModified, ['notes.txt']);
    assert.match((edit.facts ?? []).join('\n'), /zebra-marker-4712/);
    const read = obs('PostToolUse-read');
    assert.equal(read.title, 'Read notes.txt');
    assert.deepEqual(read.filesRead, ['notes.txt']);
    const create = obs('PostToolUse-create');
    assert.deepEqual(create.filesModified, ['src/new.ts']);
    assert.deepEqual(obs('PostToolUse-multi-replace').filesModified, ['a.ts', 'b.ts']);
    assert.deepEqual(obs('PostToolUse-apply-patch').filesModified, ['src/app.ts']);
    const term = obs('PostToolUse-terminal');
    assert.equal(term.title, 'Ran `grep -n zebra notes.txt`: 1:The mascot is a zebra. zebra-marker-4712');
    assert.ok(!term.filesModified?.length && !term.filesRead?.length);
    assert.match(obs('PostToolUse-search').title, /^Searched for `mascot`/);
    assert.match(obs('PostToolUse-fetch').title, /^Fetched https:\/\/example\.com\/zebra/);
    const unknown = obs('PostToolUse-unknown');
    assert.equal(unknown.title, 'Used some_future_tool');
    assert.deepEqual(canonicalUse('some_future_tool', { thing: 'value' }), { name: 'some_future_tool', input: { thing: 'value' } });
  });
});

describe('Claude Code adapter (unchanged behaviour)', () => {
  it('reads its fixtures and is not mistaken for another platform', () => {
    for (const name of ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd']) {
      const raw = load('claude-code-hooks', name);
      assert.equal(platformOfPayload(raw), undefined, name);
      const i = pickAdapter(raw, 'claude-code').read(raw);
      assert.equal(i.platform, 'claude-code');
      assert.equal(i.sessionId, 'sess-1');
      assert.equal(i.rawEvent, name);
    }
    const post = read('claude-code-hooks', 'PostToolUse', 'claude-code');
    assert.equal(post.toolName, 'Read');
    assert.deepEqual(toolFiles('Read', post.toolInput), [`${P}/notes.txt`]);
  });

  it("VS Code's snake_case payloads (2026-09-16) under Claude Code's command line are VS Code's: Stop ends the session", () => {
    const stop = load('vscode-agent-hooks', 'Stop');
    assert.equal(stop.session_id, 'sess-1');
    const i = pickAdapter(stop, 'claude-code').read(stop);
    assert.equal(i.platform, 'vscode-agent');
    assert.equal(i.endsSession, true);
    // Claude Code's own payload (no timestamp) stays Claude Code's.
    assert.equal(pickAdapter(load('claude-code-hooks', 'Stop'), 'claude-code').platform, 'claude-code');
  });

  it("Copilot on VS Code's Agent Host (Copilot SDK hooks, camelCase): read as Copilot CLI's, sessionEnd included", () => {
    for (const [name, event] of [['AgentHost-sessionStart', 'session-start'], ['AgentHost-sessionEnd', 'session-end']] as const) {
      const i = read('vscode-agent-hooks', name, 'vscode-agent');
      assert.equal(i.platform, 'copilot-cli', name);
      assert.equal(i.event, event, name);
      assert.equal(i.sessionId, 'sess-1', name);
    }
  });

  it('folds PostToolUseFailure error into the response', () => {
    const i = ADAPTERS['claude-code'].read({ session_id: 's', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'x' }, error: 'boom', is_interrupt: false });
    assert.equal(i.event, 'post-tool-failure');
    assert.deepEqual(i.toolResponse, { error: 'boom', is_interrupt: false });
  });
});

describe('Copilot CLI adapter', () => {
  const cp = (name: string, named: PlatformId | 'auto' = 'copilot-cli') => read('copilot-cli-hooks', name, named);

  it('reads the camelCase events, and tells them from the payload', () => {
    const cases: Array<[string, HookInput['event']]> = [
      ['sessionStart', 'session-start'],
      ['userPromptSubmitted', 'prompt'],
      ['preToolUse-view', 'other'],
      ['postToolUse-edit', 'other'],
      ['agentStop', 'other'],
      ['sessionEnd', 'other'],
    ];
    // camelCase payloads carry no event name: the command line's handler decides what runs.
    for (const [name, event] of cases.slice(2)) assert.equal(cp(name, 'auto').event, event, name);
    for (const [name] of cases) {
      const i = cp(name, 'claude-code');
      assert.equal(i.platform, 'copilot-cli', name);
      assert.equal(i.sessionId, 'sess-1', name);
    }
    assert.equal(cp('userPromptSubmitted').prompt, 'Where is the mascot written down?');
    assert.equal(cp('sessionStart').source, 'new');
    assert.equal(cp('sessionEnd').reason, 'user_exit');
    assert.equal(cp('agentStop').transcriptPath, '/home/u/.copilot/session-state/sess-1/events.jsonl');
  });

  it('parses toolArgs given as a JSON string, unwraps toolResult, and marks failures', () => {
    const e = cp('postToolUse-edit');
    assert.equal(e.toolName, 'edit');
    assert.deepEqual(e.toolInput, { path: `${P}/notes.txt`, old_str: '4711', new_str: '4712' });
    assert.equal(e.toolResponse, 'File edited');
    assert.equal(toolKind('edit'), 'edit');
    const o = observeToolUse({ toolName: 'edit', toolInput: JSON.stringify(e.toolInput), toolResponse: 'File edited', cwd: P });
    assert.deepEqual(o.filesModified, ['notes.txt']);
    const f = ADAPTERS['copilot-cli'].read({ ...load('copilot-cli-hooks', 'postToolUseFailure'), hook_event_name: 'postToolUseFailure' });
    assert.equal(f.event, 'post-tool-failure');
    assert.deepEqual(f.toolResponse, { error: 'Missing script: nope' });
    assert.ok(isReadTool(cp('preToolUse-view').toolName as string));
  });

  it('reads the VS Code compatible (PascalCase, snake_case) format too', () => {
    const i = cp('PostToolUse-compatible', 'copilot-cli');
    assert.equal(i.platform, 'copilot-cli');
    assert.equal(i.event, 'post-tool');
    assert.equal(i.toolResponse, 'The mascot is a zebra.');
    assert.equal(platformOfPayload(load('copilot-cli-hooks', 'PostToolUse-compatible')), 'copilot-cli');
  });
});

describe('Codex CLI adapter', () => {
  const cx = (name: string, named: PlatformId | 'auto' = 'codex') => read('codex-hooks', name, named);
  it('reads every event; turn-scoped ones are told from turn_id', () => {
    assert.equal(cx('SessionStart').event, 'session-start');
    assert.equal(cx('UserPromptSubmit', 'claude-code').platform, 'codex');
    assert.equal(cx('PreToolUse', 'auto').platform, 'codex');
    assert.equal(cx('Stop').lastAssistantMessage, 'The mascot is a zebra.');
    assert.ok(!cx('Stop').endsSession);
    const p = cx('PostToolUse-apply-patch');
    assert.equal(p.toolUseId, 'call_cx_2');
    assert.deepEqual(toolFiles('apply_patch', p.toolInput), ['notes.txt']);
    const o = observeToolUse({ toolName: 'apply_patch', toolInput: JSON.stringify(p.toolInput), toolResponse: String(p.toolResponse), cwd: P });
    assert.deepEqual(o.filesModified, ['notes.txt']);
    // Codex reads files through its shell: a command that only prints one file is a read of it.
    assert.equal(observeToolUse({ toolName: 'Bash', toolInput: '{"command":"cat notes.txt"}', toolResponse: 'x' }).title, 'Read notes.txt');
    assert.equal(observeToolUse({ toolName: 'Bash', toolInput: '{"command":"npm run lint"}', toolResponse: 'x' }).title, 'Ran `npm run lint`');
  });
});

describe('Gemini CLI adapter', () => {
  const gm = (name: string, named: PlatformId | 'auto' = 'gemini-cli') => read('gemini-cli-hooks', name, named);
  it('maps its own event names', () => {
    const cases: Array<[string, HookInput['event']]> = [
      ['SessionStart', 'session-start'],
      ['BeforeAgent', 'prompt'],
      ['BeforeTool-read', 'pre-tool'],
      ['AfterTool-replace', 'post-tool'],
      ['AfterTool-shell-error', 'post-tool-failure'],
      ['AfterAgent', 'stop'],
      ['PreCompress', 'pre-compact'],
      ['SessionEnd', 'session-end'],
    ];
    for (const [name, event] of cases) assert.equal(gm(name).event, event, name);
    assert.equal(gm('BeforeTool-read', 'claude-code').platform, 'gemini-cli');
    assert.equal(gm('AfterAgent').lastAssistantMessage, 'The mascot is a zebra.');
    assert.equal(gm('BeforeAgent').prompt, 'Where is the mascot?');
    assert.deepEqual(toolFiles('read_file', gm('BeforeTool-read').toolInput), [`${P}/notes.txt`]);
    assert.ok(isReadTool('read_file'));
    const o = observeToolUse({ toolName: 'replace', toolInput: JSON.stringify(gm('AfterTool-replace').toolInput), toolResponse: '', cwd: P });
    assert.deepEqual(o.filesModified, ['notes.txt']);
  });
});

describe('output shapes', () => {
  const ctx = { context: 'memory text', event: 'SessionStart' as const };
  it('hookSpecificOutput for Claude Code, VS Code, Codex and Gemini, echoing the event name', () => {
    for (const p of ['claude-code', 'vscode-agent', 'codex', 'gemini-cli'] as const) {
      const a = ADAPTERS[p];
      assert.deepEqual(a.write(a.read({ hook_event_name: 'SessionStart', hookEventName: 'SessionStart' }), ctx), { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'memory text' } }, p);
      assert.deepEqual(a.write(a.read({}), {}), {}, p);
    }
    const vs = ADAPTERS['vscode-agent'];
    assert.deepEqual(vs.write(vs.read({ hookEventName: 'SubagentStart' }), { context: 'x', event: 'SubagentStart' }), { hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: 'x' } });
    assert.deepEqual(vs.write(vs.read({ hookEventName: 'PreToolUse' }), { context: 'h', event: 'PreToolUse' }), { hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'h' } });
    // Empty stdin: the handler's own event names the shape.
    assert.deepEqual(ADAPTERS['claude-code'].write(ADAPTERS['claude-code'].read({}), { context: '', event: 'SessionStart' }), { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '' } });
  });

  it('Copilot CLI: a top-level additionalContext for camelCase hooks, hookSpecificOutput for the compatible format', () => {
    const a = ADAPTERS['copilot-cli'];
    assert.deepEqual(a.write(a.read({ sessionId: 's' }), ctx), { additionalContext: 'memory text' });
    assert.deepEqual(a.write(a.read({ sessionId: 's' }), { context: '' }), {});
    assert.deepEqual(a.write(a.read({ hook_event_name: 'SessionStart', session_id: 's' }), ctx), { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'memory text' } });
  });
});

describe('command line', () => {
  it('knows every platform, its aliases and auto', () => {
    assert.equal(platformArg('claude-code'), 'claude-code');
    assert.equal(platformArg('vscode'), 'vscode-agent');
    assert.equal(platformArg('gemini'), 'gemini-cli');
    assert.equal(platformArg('auto'), 'auto');
    assert.equal(platformArg('nope'), undefined);
    assert.equal(pickAdapter({}, 'auto').platform, 'claude-code');
    assert.equal(pickAdapter({ session_id: 's', hook_event_name: 'SessionStart' }, 'gemini-cli').platform, 'gemini-cli');
  });

  it('patch headers name every file once', () => {
    assert.deepEqual(patchFiles('*** Begin Patch\n*** Add File: a.ts\n+x\n*** Update File: b.ts\n*** Move to: c.ts\n*** Delete File: d.ts\n*** End Patch'), ['a.ts', 'b.ts', 'c.ts', 'd.ts']);
    assert.deepEqual(patchFiles('--- a/x.ts\n+++ b/x.ts\n@@\n-1\n+2'), ['x.ts']);
  });
});
