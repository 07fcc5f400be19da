// The check at the moment of use on a real git repository (common/node/freshness/worktree.ts):
// unchanged, changed committed or uncommitted, staged, deleted, renamed (staged and committed),
// touched with the same content, and the parser of `git status --porcelain=v2 -z`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { gitAnswersFile } from '../../common/node/freshness/gitAnswers';
import { checkWorktree, parseRenames, parseStatus } from '../../common/node/freshness/worktree';
import { makeRepo } from '../helpers/gitRepo';

describe('checkWorktree', () => {
  it('tells unchanged, committed, uncommitted, staged, deleted and renamed apart with one git status', () => {
    const r = makeRepo('worktree-check-');
    for (const f of ['same', 'committed', 'uncommitted', 'staged', 'deleted', 'gitrm', 'staged-mv', 'committed-mv', 'touched']) r.write(`src/${f}.ts`, `export const ${f.replace('-', '_')} = 1;\n`);
    r.commit('initial');
    const blob = (f: string) => r.git('hash-object', `src/${f}.ts`);
    const cited = ['same', 'committed', 'uncommitted', 'staged', 'deleted', 'gitrm', 'staged-mv', 'committed-mv', 'touched'].map((f) => ({ path: `src/${f}.ts`, blobs: [blob(f)] }));
    r.write('src/committed.ts', 'export const committed = 2;\n');
    r.git('mv', 'src/committed-mv.ts', 'src/committed-moved.ts');
    r.commit('change and move');
    r.write('src/uncommitted.ts', 'export const uncommitted = 2;\n');
    r.write('src/staged.ts', 'export const staged = 2;\n');
    r.git('add', 'src/staged.ts');
    fs.rmSync(path.join(r.root, 'src/deleted.ts'));
    r.git('rm', '-q', 'src/gitrm.ts');
    r.git('mv', 'src/staged-mv.ts', 'src/staged-moved.ts');
    const future = new Date(Date.now() + 3600_000);
    fs.utimesSync(path.join(r.root, 'src/touched.ts'), future, future);

    const c = checkWorktree('p', r.root, cited);
    assert.equal(c.branch, 'main');
    assert.equal(c.commit, r.git('rev-parse', 'HEAD'));
    const by = new Map(c.files.map((f) => [f.path, f]));
    assert.deepEqual(by.get('src/same.ts'), { path: 'src/same.ts', blob: cited[0].blobs[0], tracked: true });
    assert.deepEqual(by.get('src/touched.ts'), { path: 'src/touched.ts', blob: cited[8].blobs[0], tracked: true }, 'same content, new mtime: unchanged');
    assert.deepEqual(by.get('src/committed.ts'), { path: 'src/committed.ts', blob: r.git('hash-object', 'src/committed.ts'), tracked: true, change: 'committed' });
    assert.deepEqual(by.get('src/uncommitted.ts'), { path: 'src/uncommitted.ts', blob: r.git('hash-object', 'src/uncommitted.ts'), tracked: true, change: 'uncommitted' });
    assert.deepEqual(by.get('src/staged.ts'), { path: 'src/staged.ts', blob: r.git('hash-object', 'src/staged.ts'), tracked: true, change: 'uncommitted' });
    assert.deepEqual(by.get('src/deleted.ts'), { path: 'src/deleted.ts', blob: null, gone: true, change: 'uncommitted' });
    assert.deepEqual(by.get('src/gitrm.ts'), { path: 'src/gitrm.ts', blob: null, gone: true, change: 'uncommitted' });
    assert.deepEqual(by.get('src/staged-mv.ts'), { path: 'src/staged-mv.ts', blob: null, gone: true, movedTo: 'src/staged-moved.ts', change: 'uncommitted' });
    assert.deepEqual(by.get('src/committed-mv.ts'), { path: 'src/committed-mv.ts', blob: null, gone: true, movedTo: 'src/committed-moved.ts', change: 'committed' });
  });

  it('a file renamed and edited in one commit: git diff -M from the cited commit finds it, and its new path is checked', () => {
    const r = makeRepo('worktree-rename-edit-');
    const lines = Array.from({ length: 40 }, (_, i) => `export const line${i} = ${i};`).join('\n');
    r.write('src/old.ts', `${lines}\nexport const value = 1;\n`);
    const cited = r.commit('initial');
    const blob = r.git('hash-object', 'src/old.ts');
    r.git('mv', 'src/old.ts', 'src/new.ts');
    r.write('src/new.ts', `${lines}\nexport const value = 2;\n`);
    r.commit('rename and edit');
    const c = checkWorktree('p', r.root, [{ path: 'src/old.ts', blobs: [blob], commit: cited }]);
    assert.deepEqual(c.files, [
      { path: 'src/old.ts', blob: null, gone: true, movedTo: 'src/new.ts', change: 'committed' },
      { path: 'src/new.ts', blob: r.git('hash-object', 'src/new.ts'), tracked: true, change: 'committed' },
    ]);
    // Without the cited commit git cannot pair them: deleted.
    assert.deepEqual(checkWorktree('p', r.root, [{ path: 'src/old.ts', blobs: [blob] }]).files, [{ path: 'src/old.ts', blob: null, gone: true, change: 'committed' }]);
  });

  it('runs no git process when every cited file is at its cited content', () => {
    const r = makeRepo('worktree-nogit-');
    r.write('a.ts', 'a\n');
    r.commit('a');
    const cited = [{ path: 'a.ts', blobs: [r.git('hash-object', 'a.ts')] }];
    // git is not on the PATH: an unchanged file and a change only in the work tree are told without it.
    const pathBefore = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      assert.deepEqual(checkWorktree('p', r.root, cited).files, [{ path: 'a.ts', blob: cited[0].blobs[0], tracked: true }]);
      r.write('a.ts', 'b\n');
      assert.deepEqual(checkWorktree('p', r.root, cited).files.map((f) => [f.path, f.change]), [['a.ts', 'uncommitted']]);
    } finally {
      process.env.PATH = pathBefore;
    }
  });

  it("git's kept answers: the same check again starts no git process; a commit, git add, git rm or git mv asks git again", () => {
    const r = makeRepo('worktree-answers-');
    for (const f of ['a', 'b', 'c', 'd']) r.write(`src/${f}.ts`, `export const ${f} = 1;\n`);
    r.commit('initial');
    const cited = ['a', 'b', 'c', 'd'].map((f) => ({ path: `src/${f}.ts`, blobs: [r.git('hash-object', `src/${f}.ts`)] }));
    r.write('src/a.ts', 'export const a = 2;\n');
    r.commit('a changed');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'answers-')), 'hooks', 'git-answers.json');
    const kept = () => ({ answers: gitAnswersFile(file) }); // a new process each time, as a hook is
    const withoutGit = <T>(fn: () => T): T => {
      const pathBefore = process.env.PATH;
      process.env.PATH = '/nonexistent';
      try {
        return fn();
      } finally {
        process.env.PATH = pathBefore;
      }
    };
    const first = checkWorktree('p', r.root, cited, kept());
    assert.deepEqual(first.files.find((f) => f.path === 'src/a.ts')?.change, 'committed');
    assert.ok(fs.existsSync(file), 'the answer is kept in the data dir');
    assert.deepEqual(withoutGit(() => checkWorktree('p', r.root, cited, kept())), first, 'kept: git is not needed');
    // Each of these changes what git says: the kept answer is not used (without git, no change kind).
    const steps: [string, () => void][] = [
      ['git add', () => (r.write('src/b.ts', 'export const b = 2;\n'), r.git('add', 'src/b.ts'))],
      ['commit', () => r.commit('b changed')],
      ['git rm', () => r.git('rm', '-q', 'src/c.ts')],
      ['git mv', () => r.git('mv', 'src/d.ts', 'src/e.ts')],
    ];
    for (const [name, step] of steps) {
      step();
      const blind = withoutGit(() => checkWorktree('p', r.root, cited, kept()));
      assert.ok(blind.files.some((f) => f.change === undefined), `${name}: the old answer was not reused`);
      const fresh = checkWorktree('p', r.root, cited);
      assert.deepEqual(checkWorktree('p', r.root, cited, kept()), fresh, `${name}: with answers as without`);
      assert.deepEqual(withoutGit(() => checkWorktree('p', r.root, cited, kept())), fresh, `${name}: then kept`);
    }
  });

  it('outside a repository: nothing to check, no branch', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-repo-'));
    assert.deepEqual(checkWorktree('p', dir, [{ path: 'a.ts', blobs: [] }]), { project: 'p', branch: null, bases: [], commit: null, files: [] });
  });
});

describe('parseStatus', () => {
  it('reads ordinary, renamed and unmerged entries, paths with spaces', () => {
    const h = 'a'.repeat(40);
    const out = [`1 .M N... 100644 100644 100644 ${h} ${h} src/a b.ts`, `2 R. N... 100644 100644 100644 ${h} ${'b'.repeat(40)} R100 src/new.ts`, 'src/old.ts', `u UU N... 100644 100644 100644 100644 ${h} ${h} ${h} src/c.ts`, ''].join('\0');
    const s = parseStatus(out);
    assert.deepEqual(s.byPath.get('src/a b.ts'), { x: '.', y: 'M', hI: h });
    assert.deepEqual(s.byPath.get('src/new.ts'), { x: 'R', y: '.', hI: 'b'.repeat(40) });
    assert.equal(s.renamed.get('src/old.ts'), 'src/new.ts');
    assert.equal(s.byPath.get('src/c.ts')?.x, 'U');
  });
});

describe('parseRenames', () => {
  it('reads the renames of git diff --name-status -z and skips the other entries', () => {
    const out = ['M', 'src/a.ts', 'R087', 'src/old name.ts', 'src/new name.ts', 'D', 'src/gone.ts', 'C100', 'src/x.ts', 'src/y.ts', 'R100', 'b.ts', 'c.ts', ''].join('\0');
    assert.deepEqual([...parseRenames(out)], [['src/old name.ts', 'src/new name.ts'], ['b.ts', 'c.ts']]);
  });
});
