// The model's prompts in scope `worth` say each thing once: the summary's draft leaves out what the
// prompts and the closing message (shown in full beside it) already say, keeping its own figures;
// a note beside a failure's output leaves out the lines the output shows; a loop's repeated lines
// are shown once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { distinctLines, observerPrompt, summaryPrompt, unsaid, wordSet } from '../../worker/compression/prompts';

const FINAL =
  "Decision: pin pyarrow to >=15,<17 for now, and close Dependabot's 17.0.0 PR. With 17.0.0, 2 tests fail with ArrowTypeError 'Unable to merge: Field buoy has incompatible types'. With 16.1.0 all 23 tests pass.";
const count = (hay: string, needle: string) => hay.split(needle).length - 1;

test('the summary prompt shows the closing message once, and the draft only for what it adds', () => {
  const p = summaryPrompt(
    {
      project: 'tidepool',
      request: 'Dependabot bumps pyarrow to 17.0.0 and CI fails: fix our code or pin.',
      lastAssistantMessage: FINAL,
      observations: [{ type: 'change', title: 'Edited pyproject.toml' }],
      draft: {
        investigated: 'read tidepool/lake.py',
        learned: "Decision: pin pyarrow to >=15,<17 for now, and close Dependabot's 17.0.0 PR. Why: Dependabot bumps pyarrow to 17.0.0 and CI fails.",
        completed: "Decision: pin pyarrow to >=15,<17 for now, and close Dependabot's 17.0.0 PR. Changed tidepool/lake.py, pyproject.toml. Outcome: first test run failed (2 failed, 21 passed); tests passed: 23 passed.",
      },
    },
    4000,
  );
  assert.equal(count(p, 'pin pyarrow to >=15,<17'), 1, p);
  assert.ok(!p.includes('Why: Dependabot'), 'the request is not repeated by the draft');
  // What the messages do not say stays: the files read and changed, the first run's counts.
  assert.match(p, /<investigated>read tidepool\/lake\.py<\/investigated>/);
  assert.match(p, /Changed tidepool\/lake\.py, pyproject\.toml\./);
  assert.match(p, /2 failed, 21 passed/);
  assert.ok(p.indexOf('<completed>') < p.indexOf("The assistant's last message:\n" + FINAL));
});

test('a clause is kept for a figure the messages do not have, even when its words are all there', () => {
  const seen = wordSet('the tests pass; 2 tests failed at first');
  assert.equal(unsaid('2 tests failed at first.', seen), '');
  assert.equal(unsaid('3 tests failed at first.', seen), '3 tests failed at first.');
  // A figure is said beside its word: "2 passed" is not said by "2 ** n".
  assert.equal(unsaid('tests passed: 2 passed.', wordSet('tests passed; base * 2 ** n')), 'tests passed: 2 passed.');
  assert.equal(unsaid('tests pass. Renamed the config file.', wordSet('tests pass')), 'Renamed the config file.');
  // A clause cut with "…" is judged without its cut word.
  assert.equal(unsaid('the tests pa…', wordSet('the tests pass')), '');
});

test("a failure's note leaves out what its output shows; its title stays", () => {
  const out = 'E   TypeError: cannot read x\nFAILED tests/test_a.py::test_x - TypeError: cannot read x\n1 failed, 3 passed in 0.2s';
  const note = ['Ran `pytest -q`: 1 failed, 3 passed', 'tests failed', '- failing: tests/test_a.py::test_x - TypeError: cannot read x', 'Tests failed with pytest -q: 1 failed, 3 passed; failing: tests/test_a.py::test_x - TypeError: cannot read x.'].join('\n');
  const p = observerPrompt({ project: 'p', uses: [{ toolName: 'Bash', toolInput: JSON.stringify({ command: 'pytest -q' }), toolResponse: out }], notes: [note], failed: [true], fieldChars: 4000 });
  const shown = /<note>\n([\s\S]*?)\n<\/note>/.exec(p)?.[1];
  assert.equal(shown, 'Ran `pytest -q`: 1 failed, 3 passed');
  assert.match(p, /<output>\nE {3}TypeError: cannot read x\nFAILED tests\/test_a\.py::test_x/);
});

test("a note's reason is kept beside an edit's input", () => {
  const input = JSON.stringify({ file_path: '/repo/src/retry.ts', old_string: 'const d = b;', new_string: 'const d = Math.min(30_000, b);' });
  const note = ['Edited src/retry.ts', '- changed: const d = Math.min(30_000, b);', 'Cap the delay at 30 s so that a down API is not hammered: changed src/retry.ts.'].join('\n');
  const p = observerPrompt({ project: 'p', uses: [{ toolName: 'Edit', toolInput: input, toolResponse: '{}' }], notes: [note], failed: [false], fieldChars: 4000 });
  const shown = /<note>\n([\s\S]*?)\n<\/note>/.exec(p)?.[1] ?? '';
  assert.ok(!shown.includes('- changed:'), shown);
  assert.match(shown, /so that a down API is not hammered/);
});

test("a loop's repeated lines are shown once, lines that differ stay", () => {
  assert.equal(distinctLines('✔ a (1ms)\nℹ pass 4\nℹ fail 0\n✖ a (2ms)\nℹ pass 3\nℹ fail 1\n✔ a (3ms)\nℹ pass 4\nℹ fail 0'), '✔ a (1ms)\nℹ pass 4\nℹ fail 0\n✖ a (2ms)\nℹ pass 3\nℹ fail 1\n✔ a (3ms)');
});
