// The first pass of the check at use kept with git's answers (common/node/freshness/worktree.ts,
// keptQuick): a hook whose cited files and index are as they were gets the same verdicts without
// parsing the index or hashing a file again; any write to a file (even one that keeps its size and
// sets its mtime back), `git add` or a commit is seen. Real git repository.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { gitAnswersFile, type GitAnswers } from '../../common/node/freshness/gitAnswers';
import { checkWorktree } from '../../common/node/freshness/worktree';
import { makeRepo } from '../helpers/gitRepo';

/** gitAnswersFile, counting what is stored. */
function counted(file: string): GitAnswers & { sets: string[] } {
  const inner = gitAnswersFile(file);
  const sets: string[] = [];
  return { sets, get: (k) => inner.get(k), set: (k, v) => (sets.push(k.split('\0')[0]), inner.set(k, v)) };
}

describe('the kept first pass of the check at use', () => {
  it('gives the verdicts of a full check, stores nothing when nothing changed, and sees every change', async () => {
    const r = makeRepo('kept-quick-');
    for (const f of ['same', 'uncommitted', 'committed']) r.write(`src/${f}.ts`, `export const ${f} = 1;\n`);
    r.commit('initial');
    const blob = (f: string) => r.git('hash-object', `src/${f}.ts`);
    const cited = ['same', 'uncommitted', 'committed'].map((f) => ({ path: `src/${f}.ts`, blobs: [blob(f)] }));
    r.write('src/committed.ts', 'export const committed = 2;\n');
    r.commit('change committed');
    r.write('src/uncommitted.ts', 'export const uncommitted = 2;\n');
    await new Promise((res) => setTimeout(res, 2200)); // past the settle time: results may be kept
    const answers = counted(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kept-quick-answers-')), 'git-answers.json'));
    const full = () => checkWorktree('p', r.root, cited).files;

    const first = checkWorktree('p', r.root, cited, { answers });
    assert.deepEqual(first.files, full());
    assert.ok(answers.sets.includes('quick'), `the first pass is kept (${answers.sets.join(',')})`);
    answers.sets.length = 0;
    const second = checkWorktree('p', r.root, cited, { answers });
    assert.deepEqual(second.files, first.files);
    assert.deepEqual(answers.sets, [], 'nothing recomputed, so nothing stored');

    // Same size, mtime set back: the ctime still moves.
    const file = path.join(r.root, 'src/uncommitted.ts');
    const st = fs.statSync(file);
    fs.writeFileSync(file, 'export const uncommitted = 3;\n');
    fs.utimesSync(file, st.atime, st.mtime);
    assert.equal(fs.statSync(file).size, st.size);
    const third = checkWorktree('p', r.root, cited, { answers });
    assert.deepEqual(third.files.find((f) => f.path === 'src/uncommitted.ts'), { path: 'src/uncommitted.ts', blob: blob('uncommitted'), tracked: true, change: 'uncommitted' });
    assert.deepEqual(third.files, full());

    // git add rewrites the index: the kept pass no longer fits.
    r.git('add', 'src/uncommitted.ts');
    assert.deepEqual(checkWorktree('p', r.root, cited, { answers }).files, full());
    r.commit('commit uncommitted');
    const after = checkWorktree('p', r.root, cited, { answers }).files;
    assert.deepEqual(after, full());
    assert.deepEqual(after.find((f) => f.path === 'src/uncommitted.ts'), { path: 'src/uncommitted.ts', blob: blob('uncommitted'), tracked: true, change: 'committed' });
  });

  it('a file written within the settle time is not kept', () => {
    const r = makeRepo('kept-quick-new-');
    r.write('src/a.ts', 'export const a = 1;\n');
    r.commit('initial');
    const cited = [{ path: 'src/a.ts', blobs: [r.git('hash-object', 'src/a.ts')] }];
    r.write('src/a.ts', 'export const a = 2;\n');
    const answers = counted(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kept-quick-answers-')), 'git-answers.json'));
    assert.deepEqual(checkWorktree('p', r.root, cited, { answers }).files, [{ path: 'src/a.ts', blob: r.git('hash-object', 'src/a.ts'), tracked: true, change: 'uncommitted' }]);
    assert.equal(answers.sets.includes('quick'), false);
  });
});
