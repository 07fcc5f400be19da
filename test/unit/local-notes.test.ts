// What the local compressor makes of real tool response shapes: test-runner result lines of each
// common runner, compiler and linter errors, failures, fetch status, multi-file edits, and the
// session summary's outcome (first failure and final result) and open items.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { observeToolUse, summarizeLocally } from '../../worker/compression/local';
import { errorLines, readOutput, testResults } from '../../worker/compression/toolOutput';

const bash = (command: string, response: unknown, toolName = 'Bash') => observeToolUse({ toolName, toolInput: JSON.stringify({ command }), toolResponse: typeof response === 'string' ? response : JSON.stringify(response), cwd: '/home/dev/shop' });

describe('test-runner results', () => {
  const cases: [string, string, { passed: number; failed: number }][] = [
    ['node:test spec', '✔ adds (0.5ms)\n✖ subtracts (1.2ms)\nℹ tests 2\nℹ pass 1\nℹ fail 1\nℹ duration_ms 40', { passed: 1, failed: 1 }],
    ['node:test tap', 'ok 1 - adds\nnot ok 2 - subtracts\n# tests 2\n# pass 1\n# fail 1', { passed: 1, failed: 1 }],
    ['jest', 'FAIL src/cart.test.ts\n  ● cart › totals with tax\n\nTests:       1 failed, 4 passed, 5 total\nSnapshots:   0 total', { passed: 4, failed: 1 }],
    ['vitest', ' ✓ src/a.test.ts (3)\n Test Files  1 passed (1)\n      Tests  3 passed (3)\n', { passed: 3, failed: 0 }],
    ['pytest', 'tests/test_upload.py .F.\nFAILED tests/test_upload.py::test_resume - AssertionError: 3 != 4\n==== 1 failed, 2 passed in 0.31s ====', { passed: 2, failed: 1 }],
    ['go test -v', '=== RUN   TestParse\n--- PASS: TestParse (0.00s)\n=== RUN   TestLimit\n--- FAIL: TestLimit (0.00s)\nFAIL\nFAIL\texample.com/x\t0.012s', { passed: 1, failed: 1 }],
    ['go test', 'ok  \texample.com/x\t0.010s\nok  \texample.com/y\t(cached)', { passed: 2, failed: 0 }],
    ['cargo test', 'running 3 tests\ntest a ... ok\ntest b ... ok\ntest c::d ... FAILED\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out', { passed: 2, failed: 1 }],
    ['mocha', '  3 passing (12ms)\n  1 failing', { passed: 3, failed: 1 }],
  ];
  for (const [name, text, want] of cases) {
    it(`reads ${name}`, () => {
      const r = testResults(text);
      assert.ok(r, name);
      assert.deepEqual({ passed: r.passed, failed: r.failed }, want);
    });
  }

  it('names the failing tests', () => {
    assert.deepEqual(testResults(cases[4][1])?.failures, ['tests/test_upload.py::test_resume - AssertionError: 3 != 4']);
    assert.deepEqual(testResults(cases[5][1])?.failures, ['TestLimit']);
    assert.deepEqual(testResults(cases[2][1])?.failures, ['cart › totals with tax']);
  });

  it('a test run is a verification with its result; a failing one is not a change', () => {
    const ok = bash('npm test', { stdout: 'Tests:       4 passed, 4 total', stderr: '', interrupted: false });
    assert.equal(ok.title, 'Ran `npm test`: 4 passed');
    assert.equal(ok.type, 'discovery');
    const bad = bash('pytest -q', { error: 'Exit code 1\n' + cases[4][1] });
    assert.equal(bad.title, 'Ran `pytest -q` (exit 1): 1 failed, 2 passed');
    assert.ok(bad.facts?.includes('tests: 1 failed, 2 passed'));
    assert.ok(bad.facts?.some((f) => f.startsWith('failing: tests/test_upload.py::test_resume')));
    assert.deepEqual(bad.concepts, ['gotcha']);
  });
});

describe('command output', () => {
  it('keeps compiler and linter error lines, with paths made relative', () => {
    const tsc = bash('npx tsc --noEmit', { error: 'Exit code 2\n/home/dev/shop/src/cart.ts(12,5): error TS2322: Type string is not assignable to type number.\nFound 1 error.' });
    assert.equal(tsc.title, 'Ran `npx tsc --noEmit` (exit 2)');
    assert.ok(tsc.facts?.includes('error: src/cart.ts(12,5): error TS2322: Type string is not assignable to type number.'), JSON.stringify(tsc.facts));
    assert.ok(!JSON.stringify(tsc).includes('/home/dev'));
    assert.deepEqual(errorLines('src/a.ts\n  3:7  error  \'x\' is assigned a value but never used  no-unused-vars\n✖ 1 problem (1 error, 0 warnings)'), [
      "3:7  error  'x' is assigned a value but never used  no-unused-vars",
      '✖ 1 problem (1 error, 0 warnings)',
    ]);
    assert.deepEqual(errorLines('error[E0308]: mismatched types\n --> src/main.rs:4:5'), ['error[E0308]: mismatched types']);
  });

  it('reads exit codes of Codex, Copilot CLI, Gemini CLI and VS Code shapes', () => {
    assert.equal(readOutput(JSON.stringify({ output: 'boom', metadata: { exit_code: 3 } })).exit, 3);
    assert.equal(readOutput('Command exited with code 2\nnope').exit, 2);
    assert.deepEqual(readOutput(JSON.stringify({ result: 'failure', output: 'Missing script: nope' })), { text: 'Missing script: nope', failed: true, error: 'Missing script: nope', hunks: undefined, exit: undefined });
    const gem = readOutput(JSON.stringify({ llmContent: '', returnDisplay: '', error: 'Missing script: nope' }));
    assert.equal(gem.failed, true);
    assert.equal(gem.error, 'Missing script: nope');
    const cut = readOutput('{"stdout":"Tests: 3 passed\\nmore…[cut 9000 chars]…tail","stderr":"');
    assert.match(cut.text, /Tests: 3 passed/);
  });

  it('a command that only looks is a finding; one that fails says why', () => {
    assert.equal(bash('git status', { stdout: 'On branch main', stderr: '' }).type, 'discovery');
    assert.equal(bash('npm install left-pad', { stdout: 'added 1 package', stderr: '' }).type, 'change');
    const nope = bash('npm run nope', { error: 'Missing script: nope' }, 'bash');
    assert.equal(nope.title, 'Ran `npm run nope`: failed');
    assert.ok(nope.facts?.includes('failed: Missing script: nope'), JSON.stringify(nope.facts));
  });
});

describe('what a command printed', () => {
  it('a short output is kept whole: the count, the figure, the summary line', () => {
    const count = bash(`python -c "from app.s3 import list_keys; print(len(list_keys('raw/', year=2024)))"`, { stdout: '8761', stderr: '', interrupted: false, isImage: false });
    assert.ok(count.facts?.includes('8761'), JSON.stringify(count.facts));
    assert.match(count.narrative ?? '', /printed: 8761/);
    const sql = bash(`psql "$DATABASE_URL" -tc "SELECT count(*) FROM invoices"`, '       212\n\n');
    assert.deepEqual(sql.facts, ['212']);
    assert.equal(sql.title, 'Ran `psql "$DATABASE_URL" -tc "SELECT count(*) FROM invoices"`: 212');
    assert.doesNotMatch(bash('git log --oneline -3', { stdout: 'a1 Third\nb2 Second', stderr: '' }).title, /:/, 'several lines stay in the facts');
    const peak = bash("/usr/bin/time -v python scripts/backfill.py --month 1 2>&1 | grep -E '2024-01|Maximum resident'", '2024-01: 744 files\n\tMaximum resident set size (kbytes): 1398212', 'run_in_terminal');
    assert.deepEqual(peak.facts, ['2024-01: 744 files', 'Maximum resident set size (kbytes): 1398212']);
  });

  it('a long output keeps its first lines and its last, with no rule lines', () => {
    const plan = ['Limit  (cost=12.41..12.42 rows=3 width=412) (actual time=0.088..0.090 rows=3 loops=1)', '  ->  Sort  (cost=12.41..12.42 rows=3 width=412)', '        Sort Key: due_at DESC', '        ->  Index Scan using invoices_tenant_status_idx on invoices', '-------------------------', 'Planning Time: 0.311 ms', 'Execution Time: 0.121 ms'];
    const d = bash(`psql "$DATABASE_URL" -c "EXPLAIN ANALYZE SELECT * FROM invoices"`, plan.join('\n'));
    assert.deepEqual(d.facts, [plan[0], '-> Sort (cost=12.41..12.42 rows=3 width=412)', 'Execution Time: 0.121 ms'].map((l) => l.replace(/\s+/g, ' ').trim()));
    const pull = bash('docker pull redis:7', { stdout: 'Pulling 10%\rPulling 55%\rPulling 100%\r\n\x1b[32mStatus: Downloaded newer image for redis:7\x1b[0m', stderr: '' });
    assert.deepEqual(pull.facts, ['Pulling 100%', 'Status: Downloaded newer image for redis:7']);
    const log = bash('git log --oneline -3', { stdout: 'a1 Third\nb2 Second\nc3 First', stderr: '' });
    assert.deepEqual(log.facts, ['a1 Third', 'b2 Second', 'c3 First']);
  });

  it('a test command whose result lines are not a known runner\'s keeps what it printed', () => {
    const loop = bash('for i in $(seq 1 30); do python -m pytest tests/test_s3.py -q 2>&1 | tail -n 1; done | sort | uniq -c', { stdout: '     30 3 passed in 1.31s', stderr: '' });
    assert.deepEqual(loop.facts, ['30 3 passed in 1.31s']);
  });

  it('a build that passed keeps no chatter; a command that printed nothing claims no output', () => {
    const build = bash('npm run build', { stdout: '> shop@1.0.0 build\n> tsc -p .\n', stderr: '' });
    assert.deepEqual(build.facts, []);
    const quiet = bash('mkdir -p out/reports', { stdout: '', stderr: '' });
    assert.deepEqual(quiet.facts, []);
    assert.equal(quiet.narrative, 'Ran mkdir -p out/reports.');
  });
});

describe("Gemini CLI's shell report and searches that found nothing", () => {
  // run_shell_command's llmContent: labelled lines, "(empty)" / "(none)" for nothing; returnDisplay repeats the output.
  const report = (command: string, output: string, exit: number | string, error = '(none)') =>
    [`Command: ${command}`, 'Directory: (root)', `Output: ${output}`, `Error: ${error}`, `Exit Code: ${exit}`, 'Signal: (none)', 'Background PIDs: (none)', 'Process Group PGID: 48213'].join('\n');
  const gemini = (command: string, llmContent: string, returnDisplay = '') => observeToolUse({ toolName: 'run_shell_command', toolInput: JSON.stringify({ command }), toolResponse: JSON.stringify({ llmContent, returnDisplay }), cwd: '/home/dev/shop' });

  it('is read as the output, the error and the exit code, not as its labels', () => {
    const count = gemini('psql -tc "SELECT count(*) FROM orders"', report('psql -tc "SELECT count(*) FROM orders"', '  4127', 0), '  4127');
    assert.deepEqual(count.facts, ['exit code 0', '4127']);
    assert.doesNotMatch(JSON.stringify(count), /Directory|PGID|\(none\)/);
    const out = readOutput(JSON.stringify({ llmContent: report('make deploy', 'Error: target missing\nmake: *** [deploy] Error 2', 2, 'Command failed with exit code 2'), returnDisplay: 'make: *** [deploy] Error 2' }));
    assert.deepEqual([out.failed, out.exit, out.error], [true, 2, 'Command failed with exit code 2']);
    assert.equal(out.text, 'Error: target missing\nmake: *** [deploy] Error 2');
    const quiet = readOutput(JSON.stringify({ llmContent: report('mkdir -p out', '(empty)', 0), returnDisplay: '' }));
    assert.deepEqual([quiet.failed, quiet.exit, quiet.text, quiet.error], [false, 0, '', undefined]);
  });

  it('a grep, rg or git grep that exited 1 with no output found nothing; it did not fail', () => {
    const notes = [
      gemini('grep -rn pandera src', report('grep -rn pandera src', '(empty)', 1)),
      observeToolUse({ toolName: 'shell', toolInput: JSON.stringify({ command: ['bash', '-lc', "rg -n 'pandera' src"] }), toolResponse: JSON.stringify({ output: '', metadata: { exit_code: 1 } }) }),
      observeToolUse({ toolName: 'run_in_terminal', toolInput: JSON.stringify({ command: 'git grep -n pandera' }), toolResponse: 'Command exited with code 1' }),
      bash("rg -n 'pandera|quarantine' src tests", { error: 'Exit code 1' }),
    ];
    for (const d of notes) {
      assert.match(d.title, /: no matches$/, d.title);
      assert.deepEqual(d.facts, ['no matches']);
      assert.doesNotMatch(`${d.narrative}`, /fail/i);
    }
    // Exit 2 is grep's error; a pipeline's status is its last command's.
    assert.match(gemini('grep -rn pandera nope/', report('grep -rn pandera nope/', 'grep: nope/: No such file or directory', 2)).narrative ?? '', /failed/);
    assert.doesNotMatch(bash('grep -c TODO src/a.ts | sort', { error: 'Exit code 1' }).title, /no matches/);
  });
});

describe('what kind of change an edit is', () => {
  const edit = (toolName: string, input: Record<string, unknown>) => observeToolUse({ toolName, toolInput: JSON.stringify(input), toolResponse: 'The file was edited successfully.', cwd: '/home/dev/shop' });

  it('is a bug fix when its stated reason says so, not when its code mentions an error', () => {
    const headers = edit('replace_string_in_file', { filePath: '/home/dev/shop/src/rateLimit.ts', oldString: "  if (!take(key)) {\n    return c.json({ error: 'rate limited' }, 429);", newString: "  const allowed = take(key);\n  c.header('X-RateLimit-Limit', '600');\n  if (!allowed) return c.json({ error: 'rate limited' }, 429);", explanation: 'Expose the limit and remaining tokens as headers' });
    assert.equal(headers.type, 'change');
    assert.equal(edit('Edit', { file_path: '/home/dev/shop/src/a.ts', old_string: 'x', new_string: "throw new Error('fix the crash first');" }).type, 'change');
    assert.equal(edit('replace_string_in_file', { filePath: '/home/dev/shop/src/page.ts', oldString: 'i <= n', newString: 'i < n', explanation: 'Fix the off-by-one in paging' }).type, 'bugfix');
    assert.equal(edit('apply_patch', { input: '*** Begin Patch\n*** Update File: /home/dev/shop/src/b.ts\n@@\n-const e = 1;\n+const e = new Error("x");\n*** End Patch', explanation: 'Build the error once' }).type, 'change');
  });
});

describe('reads, edits, fetches and failures', () => {
  it('a Read is the file text and its line count, never JSON', () => {
    const content = Array.from({ length: 28 }, (_, i) => (i === 0 ? 'export function retry(fn, n = 3) {' : `  // line ${i}`)).join('\n');
    const r = observeToolUse({ toolName: 'Read', toolInput: JSON.stringify({ file_path: '/home/dev/shop/src/retry.ts' }), toolResponse: JSON.stringify({ type: 'text', file: { filePath: '/home/dev/shop/src/retry.ts', content, numLines: 28, totalLines: 28 } }), cwd: '/home/dev/shop' });
    assert.deepEqual(r.facts, ['src/retry.ts: 28 lines', 'defines: retry']);
    assert.doesNotMatch(JSON.stringify(r), /filePath|\/home\/dev/);
  });

  it('a failed tool use is a failure, not a fresh read or edit', () => {
    const r = observeToolUse({ toolName: 'Read', toolInput: JSON.stringify({ file_path: '/home/dev/shop/src/gone.ts' }), toolResponse: JSON.stringify({ error: 'File does not exist.' }), cwd: '/home/dev/shop' });
    assert.equal(r.title, 'Could not read src/gone.ts: File does not exist.');
    assert.deepEqual([r.filesRead, r.concepts], [[], ['gotcha']]);
    assert.doesNotMatch(JSON.stringify(r), /lines looked at/);
    const e = observeToolUse({ toolName: 'Edit', toolInput: JSON.stringify({ file_path: '/home/dev/shop/a.ts', old_string: 'x', new_string: 'y' }), toolResponse: JSON.stringify({ error: 'String to replace not found in file.' }), cwd: '/home/dev/shop' });
    assert.equal(e.title, 'Edit failed on a.ts: String to replace not found in file.');
    assert.deepEqual(e.filesModified, []);
  });

  it('apply_patch and multi_replace_string_in_file count hunks and files, titled by their files', () => {
    const patch = '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-const a = 1;\n+const a = 2;\n@@\n-let b;\n+let b = 0;\n*** Update File: src/b.ts\n@@\n-old\n+export const limit = 5;\n*** End Patch';
    const p = observeToolUse({ toolName: 'apply_patch', toolInput: JSON.stringify({ command: patch }), toolResponse: 'Success. Updated the following files:\nM src/a.ts\nM src/b.ts', cwd: '/r' });
    assert.equal(p.title, 'Edited src/a.ts, src/b.ts');
    assert.equal(p.subtitle, '3 hunks in 2 files (+3 −3)');
    assert.deepEqual(p.filesModified, ['src/a.ts', 'src/b.ts']);
    assert.ok(!JSON.stringify(p).includes('replaced 0 lines with 0'));
    const m = observeToolUse({
      toolName: 'multi_replace_string_in_file',
      toolInput: JSON.stringify({ explanation: 'Rename foo to bar', replacements: [{ filePath: '/r/a.ts', oldString: 'foo()', newString: 'bar()' }, { filePath: '/r/a.ts', oldString: 'foo', newString: 'bar' }, { filePath: '/r/b.ts', oldString: 'foo', newString: 'bar' }] }),
      toolResponse: '3 replacements applied',
      cwd: '/r',
    });
    assert.equal(m.title, 'Edited a.ts, b.ts');
    assert.equal(m.subtitle, '3 hunks in 2 files (+3 −3)');
    assert.match(m.narrative ?? '', /^Rename foo to bar: changed a\.ts, b\.ts/);
  });

  it('a fetch says its status; a 404 is a failure', () => {
    const ok = observeToolUse({ toolName: 'WebFetch', toolInput: JSON.stringify({ url: 'https://docs.example.com/api', prompt: 'limits' }), toolResponse: JSON.stringify({ bytes: 10, code: 200, codeText: 'OK', result: 'Rate limit is 100/min', durationMs: 5, url: 'https://docs.example.com/api' }) });
    assert.equal(ok.title, 'Fetched https://docs.example.com/api (200 OK)');
    assert.ok(ok.facts?.includes('Rate limit is 100/min'));
    const gone = observeToolUse({ toolName: 'WebFetch', toolInput: JSON.stringify({ url: 'https://docs.example.com/x' }), toolResponse: JSON.stringify({ code: 404, codeText: 'Not Found', result: '' }) });
    assert.equal(gone.title, 'Could not fetch https://docs.example.com/x: HTTP 404 Not Found');
  });
});

describe('the local session summary', () => {
  const obs = (o: ReturnType<typeof observeToolUse>) => ({ type: o.type, title: o.title, subtitle: o.subtitle, facts: JSON.stringify(o.facts ?? []), narrative: o.narrative, files_read: JSON.stringify(o.filesRead ?? []), files_modified: JSON.stringify(o.filesModified ?? []) });

  it('keeps the first failing run and the final result, and what is left', () => {
    const fail = bash('npx jest upload', { error: 'Exit code 1\n  ● upload › resumes after a dropped connection\nTests:       1 failed, 6 passed, 7 total' });
    const fail2 = bash('npx jest upload', { error: 'Exit code 1\n  ● upload › resumes after a dropped connection\nTests:       1 failed, 6 passed, 7 total' });
    const pass = bash('npx jest upload', { stdout: 'Tests:       7 passed, 7 total', stderr: '' });
    const s = summarizeLocally({
      request: undefined,
      prompts: ['Fix the flaky upload test; we should use a fake clock instead of real timers since CI is slow.', 'Also keep the 3 retry limit.'],
      lastAssistantMessage: 'Switched the upload test to a fake clock; it passes now. The download test still uses real timers and needs the same fix later.',
      observations: [obs(fail), obs(fail2), obs(pass)],
    });
    assert.match(s.completed ?? '', /first test run failed \(1 failed, 6 passed: upload › resumes after a dropped connection\)/);
    assert.match(s.completed ?? '', /tests passed: 7 passed \(`npx jest upload`\)/);
    assert.match(s.learned ?? '', /Why: CI is slow/);
    assert.match(s.learned ?? '', /Switched the upload test to a fake clock/);
    assert.match(s.learned ?? '', /keep the 3 retry limit/);
    assert.match(s.nextSteps ?? '', /download test still uses real timers/);
    assert.match(s.request ?? '', /then: Also keep the 3 retry limit/);
  });

  it('a command that only names a test folder is not a test run', () => {
    const look = bash('ls tests/fixtures', { stdout: 'a.json\nb.json', stderr: '' });
    const search = bash("rg -n 'retry' src tests", { stdout: 'src/a.ts:3: retry()', stderr: '' });
    const s = summarizeLocally({ request: 'where is retry used?', lastAssistantMessage: 'It is used in src/a.ts.', observations: [obs(search), obs(look)] });
    assert.doesNotMatch(s.completed ?? '', /tests? (?:passed|failing)/);
  });

  it('tests still failing at the end are an open item', () => {
    const fail = bash('go test ./...', '--- FAIL: TestCheckoutTotals (0.00s)\nFAIL\texample.com/shop\t0.02s\nexit code 1');
    const s = summarizeLocally({ request: 'make checkout totals include tax', lastAssistantMessage: undefined, observations: [obs(fail)] });
    assert.match(s.nextSteps ?? '', /Tests still failing: TestCheckoutTotals/);
  });
});

describe('Codex shell reads and quiet runners', () => {
  it('a command that prints one file is a read of it, line numbers stripped', () => {
    const r = bash("nl -ba src/webhooks/deliver.ts | sed -n '1,80p'", '     1\texport async function deliver(job: Job) {\n     2\t  return send(job);\n     3\t}\n');
    assert.equal(r.title, 'Read src/webhooks/deliver.ts');
    assert.deepEqual(r.filesRead, ['src/webhooks/deliver.ts']);
    assert.deepEqual(r.facts, ['src/webhooks/deliver.ts: 3 lines', 'defines: deliver']);
  });

  it('reads pytest -q and piped tails', () => {
    assert.equal(bash('python -m pytest -q 2>&1 | tail -n 1', { stdout: '23 passed in 0.84s\n', stderr: '' }).title, 'Ran `python -m pytest -q 2>&1 | tail -n 1`: 23 passed');
  });
});

// Claude Code's Grep answers every output mode with a `filenames` list; in content and count mode
// it is empty and the findings are in `content` (its GrepTool output schema).
describe('searches', () => {
  const grep = (input: unknown, response: unknown) => observeToolUse({ toolName: 'Grep', toolInput: JSON.stringify(input), toolResponse: JSON.stringify(response), cwd: '/home/dev/shop' });

  it('a content-mode Grep that found lines keeps them, not "no matches"', () => {
    const d = grep({ pattern: 'retryLimit', output_mode: 'content', '-n': true }, { mode: 'content', numFiles: 0, filenames: [], content: 'src/upload.ts:12:const retryLimit = 5; // capped after the outage\nsrc/upload.test.ts:40:expect(retryLimit).toBe(5)', numLines: 2 });
    assert.equal(d.title, 'Searched for `retryLimit`');
    assert.deepEqual(d.facts, ['2 result lines', 'src/upload.ts:12:const retryLimit = 5; // capped after the outage', 'src/upload.test.ts:40:expect(retryLimit).toBe(5)']);
  });

  it('a count-mode Grep keeps its counts', () => {
    const d = grep({ pattern: 'TODO', output_mode: 'count' }, { mode: 'count', numFiles: 2, filenames: [], content: 'src/a.ts:3\nsrc/b.ts:1', numMatches: 4 });
    assert.equal(d.title, 'Searched for `TODO`');
    assert.deepEqual(d.facts, ['2 result lines', 'src/a.ts:3', 'src/b.ts:1']);
  });

  it('a files-with-matches Grep lists its files, and one that found nothing says so', () => {
    const found = grep({ pattern: 'retryLimit' }, { mode: 'files_with_matches', numFiles: 2, filenames: ['/home/dev/shop/src/upload.ts', '/home/dev/shop/src/upload.test.ts'] });
    assert.deepEqual(found.facts, ['2 result lines', 'src/upload.ts', 'src/upload.test.ts']);
    const none = grep({ pattern: 'chunkSize', output_mode: 'content' }, { mode: 'content', numFiles: 0, filenames: [], content: 'No matches found', numLines: 0 });
    assert.equal(none.title, 'Searched for `chunkSize`: no matches');
    const noFiles = grep({ pattern: 'chunkSize' }, { mode: 'files_with_matches', numFiles: 0, filenames: [] });
    assert.equal(noFiles.title, 'Searched for `chunkSize`: no matches');
  });
});

// Claude Code's Read answers an image or a PDF with its bytes in base64 and a notebook with its
// cells, none of them as `file.content`: none of them is an empty file.
describe('reads of images, PDFs and notebooks', () => {
  const readOf = (file: string, response: unknown) => observeToolUse({ toolName: 'Read', toolInput: JSON.stringify({ file_path: `/home/dev/shop/${file}` }), toolResponse: JSON.stringify(response), cwd: '/home/dev/shop' });
  const b64 = 'iVBORw0KGgoAAAANSUhEUgAA'.repeat(50);

  it('an image is an image of its size, not "empty", and its bytes are not text', () => {
    const d = readOf('docs/logo.png', { type: 'image', file: { base64: b64, type: 'image/png', originalSize: 9216, dimensions: { originalWidth: 64, originalHeight: 64 } } });
    assert.deepEqual(d.facts, ['docs/logo.png: image (image/png, 9 KB)']);
    assert.equal(d.narrative, 'Looked at docs/logo.png (image).');
    assert.ok(!JSON.stringify(d).includes('iVBOR'));
  });

  it('a PDF is a PDF', () => {
    const d = readOf('spec.pdf', { type: 'pdf', file: { filePath: '/home/dev/shop/spec.pdf', base64: b64, originalSize: 204800 } });
    assert.deepEqual(d.facts, ['spec.pdf: pdf (200 KB)']);
  });

  // Gemini CLI's read_file answers an image or a PDF with a Gemini API part ({inlineData: {mimeType,
  // data}}) and a line for display; an MCP tool with an image content block ({type: "image"}).
  it('an inline-data image of Gemini CLI is an image, not "1 line" of its display text', () => {
    const d = observeToolUse({ toolName: 'read_file', toolInput: JSON.stringify({ absolute_path: '/home/dev/shop/docs/logo.png' }), toolResponse: JSON.stringify({ llmContent: { inlineData: { mimeType: 'image/png', data: b64 } }, returnDisplay: 'Read image file: docs/logo.png' }), cwd: '/home/dev/shop' });
    assert.equal(d.title, 'Read docs/logo.png');
    assert.deepEqual(d.facts, ['docs/logo.png: image (image/png, 1 KB)']);
    const mcp = readOf('shot.png', { content: [{ type: 'image', mimeType: 'image/png', data: b64 }] });
    assert.deepEqual(mcp.facts, ['shot.png: image (image/png, 1 KB)']);
  });

  it("a notebook's cells are its text", () => {
    const d = readOf('eda.ipynb', { type: 'notebook', file: { filePath: '/home/dev/shop/eda.ipynb', cells: [{ cellType: 'markdown', source: '# Churn by region', cell_id: 'a' }, { cellType: 'code', source: 'import pandas as pd\ndf = pd.read_csv("churn.csv")', cell_id: 'b' }] } });
    assert.deepEqual(d.facts, ['eda.ipynb: 3 lines']);
    assert.equal(d.narrative, 'Looked at eda.ipynb (3 lines), which starts with: # Churn by region.');
  });
});

// Claude Code's Bash with run_in_background answers at once with a background task id and no
// output: the command has started, not finished, so nothing about its result is known.
describe('a command run in the background', () => {
  const started = (command: string) => bash(command, { stdout: '', stderr: '', interrupted: false, isImage: false, backgroundTaskId: 'bash_3' });
  const startedInput = (command: string) => observeToolUse({ toolName: 'Bash', toolInput: JSON.stringify({ command, run_in_background: true }), toolResponse: JSON.stringify({ stdout: '', stderr: '', interrupted: false, isImage: false }), cwd: '/home/dev/shop' });

  it('a test run started in the background has passed nothing yet', () => {
    for (const d of [started('npm test'), startedInput('npx vitest run')]) {
      assert.match(d.title, /^Started `[^`]+` in the background$/);
      assert.ok(!/passed|failed|no errors/i.test(`${d.subtitle ?? ''} ${d.narrative ?? ''} ${d.facts?.join(' ')}`), JSON.stringify(d));
    }
  });

  it('a build or server started in the background is not "checked: no errors"', () => {
    const d = started('npm run build -- --watch');
    assert.equal(d.title, 'Started `npm run build -- --watch` in the background');
    assert.equal(d.narrative, 'Started npm run build -- --watch in the background; its result is not known yet.');
  });
});
