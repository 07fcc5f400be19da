import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { observeToolUse } from '../../worker/compression/local';
import { projectFromCwd } from '../../common/node/project';
import { tempDir } from '../helpers/worker';

describe('local heuristic', () => {
  it('maps Claude Code tools', () => {
    const edit = observeToolUse({ toolName: 'Edit', toolInput: JSON.stringify({ file_path: '/r/src/a.ts', old_string: 'x', new_string: 'fix the crash\ny' }), toolResponse: '', cwd: '/r' });
    assert.equal(edit.type, 'change', 'code that names a crash is not a stated fix');
    assert.deepEqual(edit.filesModified, ['src/a.ts']);
    const bash = observeToolUse({ toolName: 'Bash', toolInput: JSON.stringify({ command: 'npm test' }), toolResponse: 'Error: expected 1\nexit code 1', cwd: '/r' });
    assert.equal(bash.title, 'Ran `npm test` (exit 1)');
    assert.deepEqual(bash.concepts, ['gotcha']);
    const read = observeToolUse({ toolName: 'Read', toolInput: JSON.stringify({ file_path: '/r/README.md' }), toolResponse: '# Title', cwd: '/r' });
    assert.deepEqual([read.type, read.filesRead], ['discovery', ['README.md']]);
    const other = observeToolUse({ toolName: 'mcp__x__y', toolInput: 'not json', toolResponse: '', cwd: '/r' });
    assert.equal(other.title, 'Used mcp__x__y');
  });

  it('maps VS Code events', () => {
    const save = observeToolUse({ toolName: 'FileSave', toolInput: JSON.stringify({ file: '/r/a.ts', added: 3, removed: 1, excerpt: '+const a = 1' }), toolResponse: '', cwd: '/r' });
    assert.equal(save.title, 'Saved a.ts (+3 −1)');
    assert.deepEqual(save.facts, ['a.ts: 3 lines added, 1 removed', 'changed: const a = 1']);
    // The diff's hunk header is not what changed; the typed text is (so a search for it finds the save).
    const hunk = observeToolUse({ toolName: 'FileSave', toolInput: JSON.stringify({ file: '/r/n.txt', added: 1, removed: 1, excerpt: '@@ -2 +2 @@\n-old line\n+remember the blue widget\n' }), toolResponse: '', cwd: '/r' });
    assert.deepEqual(hunk.facts, ['n.txt: 1 lines added, 1 removed', 'changed: remember the blue widget']);
    const term = observeToolUse({ toolName: 'TerminalCommand', toolInput: JSON.stringify({ commandLine: 'make', exitCode: 0 }), toolResponse: 'ok' });
    assert.equal(term.title, 'Ran `make` (exit 0)');
  });
});

describe('project identity', () => {
  it('uses the git root name, maps a worktree to its main repo, else the folder', () => {
    const root = tempDir();
    const main = path.join(root, 'mainrepo');
    fs.mkdirSync(path.join(main, '.git', 'worktrees', 'wt'), { recursive: true });
    fs.mkdirSync(path.join(main, 'src', 'deep'), { recursive: true });
    assert.equal(projectFromCwd(path.join(main, 'src', 'deep')), 'mainrepo');
    const wt = path.join(root, 'feature-wt');
    fs.mkdirSync(wt);
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(main, '.git', 'worktrees', 'wt')}\n`);
    assert.equal(projectFromCwd(wt), 'mainrepo');
    const plain = path.join(root, 'plain');
    fs.mkdirSync(plain);
    // tempDir is not inside a git repo, so the folder name wins
    assert.equal(projectFromCwd(plain), 'plain');
    assert.equal(projectFromCwd(undefined), 'unknown');
  });
});
