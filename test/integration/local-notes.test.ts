// The notes the local compressor writes (no model) for one real-shaped Claude Code session, replayed
// through the hook CLI against a real worker: the prompt asks for exponential backoff with jitter and
// a 30 s cap because the retry helper hammers the payment API; the agent reads src/retry.ts, edits
// it, runs the tests (2 passed) and closes with a sentence in the transcript. The notes and the next
// session's injected context must state the reason, the decision, the cap, the test result and the
// closing sentence, with no raw JSON and no absolute path. Needs `npm run build`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { drained, hookEnv, injected, runHook } from '../helpers/replay';
import { startWorker, tempDir, type RunningWorker } from '../helpers/worker';

const PROMPT = 'Add exponential backoff with jitter to retry(), cap at 30s, because the retry helper hammers the payment API when it is down.';
const CLOSING = 'Added exponential backoff with full jitter to retry(), capped at 30 s; tests pass.';
const OLD = 'export async function retry<T>(fn: () => Promise<T>, n = 3): Promise<T> {\n  for (let i = 0; ; i++) {\n    try {\n      return await fn();\n    } catch (e) {\n      if (i >= n) throw e;\n    }\n  }\n}\n';
const NEW_LINES = ['      const delay = Math.random() * Math.min(30_000, 100 * 2 ** i);', '      await new Promise((r) => setTimeout(r, delay));'];

describe('local notes of the retry session (hook CLI, no model)', () => {
  let w: RunningWorker;
  let dir: string;
  let env: Record<string, string>;
  let next = '';
  let notes: { type: string; title: string; subtitle: string | null; narrative: string | null; facts: string[] }[] = [];
  let summary: Record<string, string | null> = {};

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_PROVIDER: 'local' } });
    env = hookEnv(w);
    dir = path.join(tempDir(), 'payments');
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'retry.ts'), OLD);
    const file = path.join(dir, 'src', 'retry.ts');
    const transcript = path.join(dir, 'transcript.jsonl');
    const base = { session_id: 'sess-retry', transcript_path: transcript, cwd: dir, permission_mode: 'default' };
    const post = (tool_name: string, tool_input: unknown, tool_response: unknown, id: string) => runHook('claude-code', 'observation', { ...base, hook_event_name: 'PostToolUse', tool_name, tool_input, tool_response, tool_use_id: id }, env);

    await runHook('claude-code', 'context', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, env);
    await runHook('claude-code', 'session-init', { ...base, hook_event_name: 'UserPromptSubmit', prompt: PROMPT }, env);
    await post('Read', { file_path: file }, { type: 'text', file: { filePath: file, content: OLD, numLines: 9, startLine: 1, totalLines: 9 } }, 'toolu_1');
    const oldString = '    } catch (e) {\n      if (i >= n) throw e;\n    }';
    const newString = `    } catch (e) {\n      if (i >= n) throw e;\n${NEW_LINES.join('\n')}\n    }`;
    await post(
      'Edit',
      { file_path: file, old_string: oldString, new_string: newString },
      { filePath: file, oldString, newString, originalFile: OLD, structuredPatch: [{ oldStart: 5, oldLines: 3, newStart: 5, newLines: 5, lines: ['     } catch (e) {', '       if (i >= n) throw e;', ...NEW_LINES.map((l) => `+${l}`), '     }'] }], userModified: false, replaceAll: false },
      'toolu_2',
    );
    await post(
      'Bash',
      { command: 'npm test -- retry', description: 'Run the retry tests' },
      { stdout: '> payments@1.0.0 test\n> vitest run retry\n\n ✓ backs off exponentially, ✓ caps the delay at 30s, Tests: 2 passed\n', stderr: '', interrupted: false, isImage: false },
      'toolu_3',
    );
    fs.writeFileSync(
      transcript,
      [
        { type: 'user', message: { role: 'user', content: PROMPT } },
        { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'Bash', input: { command: 'npm test -- retry' } }] } },
        { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'Tests: 2 passed' }] } },
        { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: CLOSING }] } },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    await runHook('claude-code', 'summarize', { ...base, hook_event_name: 'Stop', stop_hook_active: false }, env);
    await runHook('claude-code', 'session-end', { ...base, hook_event_name: 'SessionEnd', reason: 'other' }, env);
    await drained(w);
    const list = await w.req('GET', '/api/observations?project=payments&limit=50');
    notes = list.body.items;
    const exp = await w.req('GET', '/api/export?project=payments');
    summary = exp.body.sessions?.[0]?.summaries?.[0] ?? {};
    next = injected(await runHook('claude-code', 'context', { ...base, session_id: 'sess-next', hook_event_name: 'SessionStart', source: 'startup' }, env));
  });

  after(async () => {
    await w?.stop();
  });

  it('reads the file as text with its real line count, never as JSON or an absolute path', () => {
    const read = notes.find((n) => n.title === 'Read src/retry.ts');
    assert.ok(read, JSON.stringify(notes.map((n) => n.title)));
    const text = JSON.stringify(read);
    assert.match(text, /9 lines/);
    assert.match(text, /retry/);
    assert.doesNotMatch(text, /"type":"text"|filePath|\{\\"/);
    assert.ok(!text.includes(dir), text);
  });

  it('the edit says what changed, and the test run is a verification with its result', () => {
    const edit = notes.find((n) => n.title === 'Edited src/retry.ts');
    assert.ok(edit);
    assert.match(JSON.stringify(edit), /Math\.min\(30_000/);
    assert.doesNotMatch(JSON.stringify(edit), /replaced 0 lines with 0/);
    const run = notes.find((n) => n.title.startsWith('Ran `npm test -- retry`'));
    assert.ok(run);
    assert.equal(run.title, 'Ran `npm test -- retry`: 2 passed');
    assert.notEqual(run.type, 'change');
    assert.match(run.facts.join('\n'), /tests: 2 passed/);
    assert.match(run.facts.join('\n'), /passing: backs off exponentially/);
  });

  it('the summary states the reason, the decision, the cap, the test result and the closing sentence', () => {
    const all = Object.values(summary).filter(Boolean).join('\n');
    assert.match(summary.learned ?? '', /Why: the retry helper hammers the payment API when it is down/);
    assert.match(summary.learned ?? '', /Decided: Added exponential backoff with full jitter to retry\(\), capped at 30 s/);
    assert.match(all, /cap at 30s|capped at 30 s/);
    assert.match(summary.completed ?? '', /2 passed/);
    assert.ok((summary.completed ?? '').includes(CLOSING), summary.completed ?? '');
  });

  it("the next session's injected context leads with them, with no raw JSON or absolute path", () => {
    assert.match(next, /## Decided[^\n]*\n- Decided: Added exponential backoff with full jitter to retry\(\), capped at 30 s[^\n]*Why: the retry helper hammers the payment API when it is down/);
    assert.ok(next.indexOf('## Decided') < next.indexOf('## Latest activity'), next);
    assert.match(next, /exponential backoff with (full )?jitter/);
    assert.match(next, /30 ?s/);
    assert.match(next, /2 passed/);
    assert.ok(next.includes(CLOSING), next);
    assert.ok(!next.includes(dir), next);
    assert.doesNotMatch(next, /\{"type"|"filePath"/);
  });
});
