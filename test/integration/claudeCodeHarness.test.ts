// Runs the real Claude Code (`claude -p`) against the fake Anthropic server in a
// temp project whose hooks record their stdin. Proves the harness works and
// keeps test/fixtures/claude-code-hooks/ true to what Claude Code sends.
// UPDATE_FIXTURES=1 rewrites the fixtures from this run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { allText, startFakeAnthropic, text, toolUse, type FakeAnthropic, type MessagesBody } from '../helpers/fakeAnthropic';
import { ensureClaudeCode, runClaude, type RunClaudeResult } from '../helpers/claudeCode';

const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'] as const;
type HookEvent = (typeof EVENTS)[number];
interface HookRecord {
  event: HookEvent;
  input: Record<string, unknown>;
}

const fixturesDir = path.resolve(path.dirname(__filename), '..', 'fixtures', 'claude-code-hooks');
const MARKER = 'zebra-marker-4711';
const CONTEXT = 'memory-context: the project mascot is a zebra';
const FINAL = 'The file says the mascot is a zebra.';
const PROMPT = 'What does notes.txt say?';

// Appends {event, input} per call; SessionStart also answers with context to inject.
const RECORDER = `
const fs = require('node:fs');
const [event, log] = process.argv.slice(2);
let s = '';
process.stdin.setEncoding('utf8').on('data', (d) => (s += d)).on('end', () => {
  fs.appendFileSync(log, JSON.stringify({ event, input: JSON.parse(s) }) + '\\n');
  if (event === 'SessionStart') {
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: ${JSON.stringify(CONTEXT)} } }));
  }
});
`;

let fake: FakeAnthropic;
let tmp: string;
let project: string;
let home: string;
let hookLog: string;
let run: RunClaudeResult;
let records: HookRecord[] = [];

const hasToolResult = (body: MessagesBody): boolean =>
  body.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));

const messageRequests = (): MessagesBody[] =>
  fake.requests.filter((r) => r.path === '/v1/messages').map((r) => r.body as MessagesBody);

function hookSettings(recorder: string): Record<string, unknown> {
  const cmd = (event: HookEvent) => ({ type: 'command', command: `"${process.execPath}" "${recorder}" ${event} "${hookLog}"` });
  const hooks: Record<string, unknown> = {};
  for (const e of EVENTS) hooks[e] = [{ ...(e === 'PreToolUse' ? { matcher: 'Read' } : {}), hooks: [cmd(e)] }];
  return { hooks };
}

/** Replaces run-specific values with placeholders so fixtures are stable. */
function placeholders(input: Record<string, unknown>, sessionId: string, promptId: string): Record<string, unknown> {
  const slug = project.replace(/[^A-Za-z0-9]/g, '-');
  let s = JSON.stringify(input)
    .split(project).join('{{PROJECT_DIR}}')
    .split(home).join('{{HOME}}')
    .split(slug).join('{{PROJECT_SLUG}}')
    .split(sessionId).join('{{SESSION_ID}}');
  if (promptId) s = s.split(promptId).join('{{PROMPT_ID}}');
  return JSON.parse(s) as Record<string, unknown>;
}

const find = (event: HookEvent): HookRecord => {
  const r = records.find((x) => x.event === event);
  assert.ok(r, `hook ${event} did not fire; fired: ${records.map((x) => x.event).join(', ')}\nstderr: ${run.stderr}`);
  return r;
};

before(async () => {
  // No skip: a failed install fails the suite with the script's output.
  await ensureClaudeCode();
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cc-harness-')));
  project = path.join(tmp, 'project');
  home = path.join(tmp, 'home');
  fs.mkdirSync(project);
  fs.mkdirSync(home);
  hookLog = path.join(tmp, 'hooks.jsonl');
  const recorder = path.join(tmp, 'record-hook.cjs');
  fs.writeFileSync(recorder, RECORDER);
  fs.writeFileSync(path.join(project, 'notes.txt'), `The mascot is a zebra. ${MARKER}\n`);

  fake = await startFakeAnthropic(({ body }) => {
    // Side requests without tools (if any) get plain text; the main loop reads, then answers.
    if (!body.tools?.length) return text('ok');
    return hasToolResult(body) ? text(FINAL) : toolUse('Read', { file_path: path.join(project, 'notes.txt') });
  });
  run = await runClaude({
    cwd: project, prompt: PROMPT, baseUrl: fake.url, home, settings: hookSettings(recorder),
    args: ['--allowedTools', 'Read'], timeoutMs: 120_000,
  });
  records = fs.existsSync(hookLog)
    ? fs.readFileSync(hookLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as HookRecord)
    : [];
});

after(async () => {
  await fake?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('claude -p completes with the final answer after a Read tool call', (t) => {
  t.diagnostic(`claude -p run took ${run.durationMs} ms`);
  assert.equal(run.timedOut, false, 'claude -p timed out');
  assert.equal(run.code, 0, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.ok(run.json, `stdout is not a result JSON: ${run.stdout}`);
  assert.equal(run.json.is_error, false);
  assert.equal(run.json.result, FINAL);
  assert.equal(run.json.num_turns, 2);
  assert.deepEqual(run.json.permission_denials, []);
});

test('the Read tool ran: its output reached the second request', () => {
  const bodies = messageRequests().filter((b) => b.tools?.length);
  assert.equal(bodies.length, 2);
  assert.ok(hasToolResult(bodies[1]), 'second request carries a tool_result');
  assert.match(allText(bodies[1]), new RegExp(MARKER));
  assert.equal(bodies[0].stream, true, 'Claude Code streams');
});

test('Claude Code calls only routes the fake serves, with x-api-key', () => {
  for (const r of fake.requests) {
    assert.equal(`${r.method} ${r.path}`, 'POST /v1/messages', `unexpected call ${r.method} ${r.url}`);
    assert.equal(r.headers['x-api-key'], 'sk-ant-fake-key');
  }
});

test('SessionStart additionalContext is injected into the first request', (t) => {
  const first = messageRequests()[0];
  assert.ok(first, 'no request reached the fake');
  // 2.1.x puts it in a role "system" turn inside messages, not in the system prompt.
  const turn = first.messages.find((m) => JSON.stringify(m.content).includes(CONTEXT));
  assert.ok(turn, `additionalContext missing from messages: ${allText(first).slice(0, 2000)}`);
  t.diagnostic(`additionalContext arrived in a messages[] turn with role "${turn.role}"`);
});

test('every hook fired once, in lifecycle order, with the expected fields', () => {
  assert.deepEqual(records.map((r) => r.event), [...EVENTS]);
  const sid = run.json?.session_id;
  for (const r of records) {
    assert.equal(r.input.hook_event_name, r.event);
    assert.equal(r.input.session_id, sid);
    assert.equal(r.input.cwd, project);
    assert.equal(typeof r.input.transcript_path, 'string');
  }
  assert.equal(find('SessionStart').input.source, 'startup');
  assert.equal(find('UserPromptSubmit').input.prompt, PROMPT);
  const notes = path.join(project, 'notes.txt');
  for (const e of ['PreToolUse', 'PostToolUse'] as const) {
    const input = find(e).input;
    assert.equal(input.tool_name, 'Read');
    assert.deepEqual(input.tool_input, { file_path: notes });
    assert.equal(input.tool_use_id, 'toolu_fake0000');
  }
  assert.match(JSON.stringify(find('PostToolUse').input.tool_response), new RegExp(MARKER));
  assert.equal(find('Stop').input.stop_hook_active, false);
  assert.equal(typeof find('SessionEnd').input.reason, 'string');
});

test('fixtures match the live hook inputs', () => {
  const sid = String(run.json?.session_id);
  const promptId = String(find('UserPromptSubmit').input.prompt_id ?? '');
  if (process.env.UPDATE_FIXTURES === '1') {
    fs.mkdirSync(fixturesDir, { recursive: true });
    for (const r of records) {
      const fixture = placeholders(r.input, sid, promptId);
      fs.writeFileSync(path.join(fixturesDir, `${r.event}.json`), JSON.stringify(fixture, null, 2) + '\n');
    }
  }
  for (const e of EVENTS) {
    const file = path.join(fixturesDir, `${e}.json`);
    assert.ok(fs.existsSync(file), `missing fixture ${file}; run with UPDATE_FIXTURES=1`);
    const fixture = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    // Fields the fixture has must still be sent; new fields from a newer 2.1.x are fine.
    const live = Object.keys(find(e).input);
    for (const k of Object.keys(fixture)) assert.ok(live.includes(k), `${e}: Claude Code no longer sends "${k}"`);
  }
});
