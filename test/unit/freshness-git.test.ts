// Reading git by its files (common/node/freshness/gitRepo.ts) and the hook-side fingerprints
// (common/node/freshness/fingerprint.ts), checked against git itself on real repositories in temp dirs.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { fingerprintToolUse, toolFiles } from '../../common/node/freshness/fingerprint';
import { baseBranches, blobId, findRepo, fingerprint, indexLookup, pathsByBlob, readHead, readIndex } from '../../common/node/freshness/gitRepo';
import { makeRepo } from '../helpers/gitRepo';

describe('gitRepo', () => {
  it('blob ids, HEAD, packed refs and the index agree with git', () => {
    const r = makeRepo();
    r.write('src/a.ts', 'export const retries = 3;\n');
    r.write('src/deep/b.ts', 'b\n');
    r.write('README.md', '# x\n');
    const commit = r.commit('one');
    const repo = findRepo(path.join(r.root, 'src', 'deep'));
    assert.ok(repo);
    assert.equal(repo.root, r.root);
    assert.deepEqual(readHead(repo), { branch: 'main', commit });
    assert.equal(blobId(fs.readFileSync(path.join(r.root, 'src/a.ts'))), r.git('hash-object', 'src/a.ts'));
    const index = readIndex(repo);
    assert.ok(index);
    const lsFiles = r.git('ls-files', '-s').split('\n').map((l) => l.split(/\s+/));
    assert.equal(index.size, lsFiles.length);
    for (const [, sha, , p] of lsFiles) assert.equal(index.get(p)?.blob, sha, p);
    assert.deepEqual(pathsByBlob(index).get(r.git('hash-object', 'src/a.ts')), ['src/a.ts']);
    // Fingerprints: clean from the index, a changed file hashed, a missing one gone, an untracked one hashed.
    assert.deepEqual(fingerprint(r.root, 'src/a.ts', index), { path: 'src/a.ts', blob: r.git('hash-object', 'src/a.ts'), tracked: true });
    r.write('src/a.ts', 'export const retries = 5;\n');
    assert.equal(fingerprint(r.root, 'src/a.ts', index).blob, r.git('hash-object', 'src/a.ts'));
    r.write('new.txt', 'n');
    assert.deepEqual(fingerprint(r.root, 'new.txt', index), { path: 'new.txt', blob: r.git('hash-object', 'new.txt'), tracked: false });
    assert.equal(fingerprint(r.root, 'nope.ts', index).gone, true);
    // Packed refs (after gc) and a detached HEAD.
    r.git('pack-refs', '--all');
    assert.deepEqual(readHead(repo), { branch: 'main', commit });
    r.git('checkout', '-q', '--detach');
    assert.deepEqual(readHead(repo), { branch: null, commit });
  });

  it('one path is found in the index without parsing it (versions 2 and 3; 4 declines)', () => {
    const r = makeRepo();
    for (const p of ['lib/alpha/one.ts', 'lib/alpha/two.ts', 'one.ts', 'lib/beta.ts', 'z.md']) r.write(p, p);
    r.commit('files');
    r.write('added.ts', 'new');
    r.git('add', '--intent-to-add', 'added.ts'); // an extended-flags entry: version 3
    const repo = findRepo(r.root)!;
    const buf = fs.readFileSync(path.join(repo.gitDir, 'index'));
    assert.equal(buf.readUInt32BE(4), 3);
    const all = readIndex(repo)!;
    for (const [p, e] of all) assert.deepEqual(indexLookup(buf, p), e, p);
    assert.equal(indexLookup(buf, 'alpha/one.ts'), undefined);
    assert.equal(indexLookup(buf, 'missing.ts'), undefined);
    r.git('update-index', '--index-version', '4');
    assert.equal(indexLookup(fs.readFileSync(path.join(repo.gitDir, 'index')), 'one.ts'), undefined);
  });

  it('index version 4 (prefix-compressed paths) reads the same', () => {
    const r = makeRepo();
    for (const p of ['lib/alpha/one.ts', 'lib/alpha/two.ts', 'lib/beta.ts', 'z.md']) r.write(p, p);
    r.commit('files');
    r.git('update-index', '--index-version', '4');
    const index = readIndex(findRepo(r.root)!);
    assert.ok(index);
    for (const [, sha, , p] of r.git('ls-files', '-s').split('\n').map((l) => l.split(/\s+/))) assert.equal(index.get(p)?.blob, sha, p);
  });

  it('branches say where they came from; linked worktrees resolve', () => {
    const r = makeRepo();
    r.write('a', 'a');
    r.commit('a');
    r.git('checkout', '-q', '-b', 'feature');
    r.git('checkout', '-q', '-b', 'feature-2');
    const repo = findRepo(r.root)!;
    assert.deepEqual(baseBranches(repo, 'feature-2'), ['feature', 'main']);
    assert.deepEqual(baseBranches(repo, 'main'), []);
    const wt = r.root + '-wt';
    r.git('worktree', 'add', '-q', '-b', 'side', wt, 'feature-2');
    const w = findRepo(wt)!;
    assert.equal(w.root, wt);
    assert.equal(readHead(w).branch, 'side');
    assert.equal(readHead(w).commit, r.git('rev-parse', 'HEAD'));
    assert.deepEqual(baseBranches(w, 'side'), ['feature-2', 'feature', 'main']);
  });
});

describe('fingerprintToolUse (hook side)', () => {
  it('fingerprints the files a tool input names, with branch, commit and bases', () => {
    const r = makeRepo();
    r.write('src/a.ts', 'a\n');
    const commit = r.commit('a');
    r.git('checkout', '-q', '-b', 'fix', 'main');
    // Unchanged since the index: the index's blob id (tracked); changed: hashed.
    const c = fingerprintToolUse({ cwd: r.root, tool_name: 'Read', tool_input: { file_path: 'src/a.ts' } });
    assert.deepEqual(c, { commit, branch: 'fix', bases: ['main'], files: [{ path: 'src/a.ts', blob: r.git('hash-object', 'src/a.ts'), tracked: true }] });
    r.write('src/a.ts', 'a changed\n');
    const e = fingerprintToolUse({ cwd: r.root, tool_name: 'Edit', tool_input: { file_path: 'src/a.ts', old_string: 'x', new_string: 'y' } });
    assert.deepEqual(e?.files, [{ path: 'src/a.ts', blob: r.git('hash-object', 'src/a.ts'), tracked: true }]);
    // Absolute paths, a deleted file, nothing for a directory or a glob, nothing when turned off.
    fs.rmSync(path.join(r.root, 'src/a.ts'));
    assert.deepEqual(fingerprintToolUse({ cwd: '/', tool_input: { file_path: path.join(r.root, 'src/a.ts') } })?.files, [{ path: 'src/a.ts', blob: null, gone: true }]);
    assert.equal(fingerprintToolUse({ cwd: r.root, tool_input: { path: 'src' } }), undefined);
    assert.deepEqual(toolFiles({ pattern: '**/*.ts', path: 'src/*.ts' }, r.root), []);
    assert.equal(fingerprintToolUse({ cwd: r.root, tool_input: { file_path: 'src/a.ts' } }, { CLAUDE_MEM_FRESHNESS: '0' }), undefined);
    assert.equal(fingerprintToolUse({ cwd: r.root, tool_input: { command: 'ls' } }), undefined);
  });

  it('outside a repository: an absolute path and a content hash, no branch', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'no-git-')));
    fs.writeFileSync(path.join(dir, 'f.txt'), 'hello');
    const c = fingerprintToolUse({ cwd: dir, tool_input: { filePath: 'f.txt' } });
    assert.deepEqual(c, { commit: null, branch: null, bases: [], files: [{ path: path.join(dir, 'f.txt'), blob: blobId(Buffer.from('hello')) }] });
  });
});

describe('sha1 in JS', () => {
  it('matches node:crypto at every padding boundary and for big inputs', () => {
    const { createHash } = require('node:crypto') as typeof import('node:crypto');
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 16_384, 16_385, 600_000]) {
      const buf = Buffer.alloc(n, 0);
      for (let i = 0; i < n; i++) buf[i] = (i * 31 + 7) & 0xff;
      const want = createHash('sha1').update(`blob ${n}\0`).update(buf).digest('hex');
      assert.equal(blobId(buf), want, `length ${n}`);
    }
  });
});

describe('extension captures cite their files', () => {
  it('a save names its file; terminal commands cite nothing; off sends none', () => {
    const { withCitations } = require('../../extension/freshness/cite') as typeof import('../../extension/freshness/cite');
    const r = makeRepo();
    r.write('s.ts', 'saved\n');
    r.commit('s');
    const save = withCitations({ tool_name: 'FileSave', tool_input: { file: path.join(r.root, 's.ts'), added: 1 }, tool_response: '', cwd: r.root }, true);
    assert.deepEqual(save.citations?.files, [{ path: 's.ts', blob: r.git('hash-object', 's.ts'), tracked: true }]);
    assert.equal(save.citations?.branch, 'main');
    assert.equal(withCitations({ tool_name: 'TerminalCommand', tool_input: { commandLine: 'ls' }, tool_response: '' }, true).citations, undefined);
    assert.equal(withCitations({ tool_name: 'FileSave', tool_input: { file: path.join(r.root, 's.ts') }, tool_response: '' }, false).citations, undefined);
  });
});
