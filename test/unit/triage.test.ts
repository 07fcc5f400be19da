// triage.ts on the local notes of real tool-use shapes: which go to a model, which are noise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { observeToolUse } from '../../worker/compression/local';
import { noteOfDraft, triage, type TriageNote } from '../../worker/compression/triage';

const cwd = '/repo';
const note = (toolName: string, input: unknown, response: unknown): TriageNote =>
  noteOfDraft(observeToolUse({ toolName, toolInput: JSON.stringify(input), toolResponse: JSON.stringify(response), cwd }));
const read = (file: string, content: string) => note('Read', { file_path: `${cwd}/${file}` }, { type: 'text', file: { filePath: `${cwd}/${file}`, content, numLines: 2, startLine: 1, totalLines: 2 } });
const run = (stdout: string) => note('Bash', { command: 'npx jest upload' }, { stdout, stderr: '', interrupted: false, isImage: false });
const FAIL = 'FAIL upload.test.ts\n  ✕ retries a dropped chunk (5 ms)\n\nTests:       1 failed, 3 passed, 4 total\n';
const PASS = 'PASS upload.test.ts\n\nTests:       4 passed, 4 total\n';
const edit = (why?: string) => note('Edit', { file_path: `${cwd}/src/upload.ts`, old_string: 'const n = 1;', new_string: 'const n = 3;', ...(why ? { description: why } : {}) }, { filePath: `${cwd}/src/upload.ts` });
const grepNone = note('Grep', { pattern: 'chunkSize' }, { mode: 'content', content: 'No matches found', numFiles: 0 });

test('a failure, the edit while it is open and the passing run that closes it go to the model; reads do not', () => {
  const batch = [read('src/upload.ts', 'export const n = 1;\nexport function upload() {}\n'), run(FAIL), edit(), run(PASS), edit()];
  const t = triage([], batch);
  assert.deepEqual(t.worth, [false, true, true, true, false]);
  assert.deepEqual(t.quiet, [false, false, false, false, false]);
});

test('the same judgement across batches, from the earlier notes', () => {
  const earlier = [run(FAIL)];
  assert.deepEqual(triage(earlier, [edit()]).worth, [true], 'an edit while a failure is open');
  assert.deepEqual(triage([...earlier, edit(), run(PASS)], [edit()]).worth, [false], 'once the failure is closed, an edit is routine');
});

test('an edit whose stated reason names a choice goes to the model', () => {
  assert.deepEqual(triage([], [edit('use 3 attempts instead of 1 because uploads drop on mobile')]).worth, [true]);
  assert.deepEqual(triage([], [edit('tidy')]).worth, [false]);
});

test('noise: an empty search, a re-read of an unchanged file, a repeated run with the same result', () => {
  const r = read('src/upload.ts', 'export const n = 1;\nexport function upload() {}\n');
  const t = triage([], [grepNone, r, r, run(PASS), run(PASS), run(FAIL), run(FAIL)]);
  assert.deepEqual(t.quiet, [true, false, true, false, true, false, true]);
  assert.deepEqual(t.worth, [false, false, false, false, false, true, false], 'a repeated failure is not sent again');
});

test('a shell search that found nothing is an empty search, not a failure to fix', () => {
  const rgNone = note('shell', { command: ['bash', '-lc', "rg -n 'chunkSize' src"] }, { output: '', metadata: { exit_code: 1 } });
  const t = triage([], [rgNone, edit()]);
  assert.deepEqual(t.quiet, [true, false]);
  assert.deepEqual(t.worth, [false, false], 'no failure is open, so the edit is routine');
});

test('a re-read after the file was edited is not noise', () => {
  const r = read('src/upload.ts', 'export const n = 1;\nexport function upload() {}\n');
  assert.deepEqual(triage([], [r, edit(), r]).quiet, [false, false, false]);
});
