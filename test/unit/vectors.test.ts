// A project's part of a vector file's name: safe as a file name, distinct for distinct projects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { projectFolderName } from '../../worker/search/vectors/files';

test('project names cannot escape a folder, and distinct names never share a file name', () => {
  const names = ['../../etc', '..', '.', '/abs/path', 'a/b', 'a_b', 'A_b', 'C:\\x', 'con', '.hidden', 'naïve ☃', 'x'.repeat(500), 'a\0b'];
  const parts = names.map((n) => projectFolderName(n));
  for (const f of parts) {
    assert.match(f, /^[A-Za-z0-9_-][A-Za-z0-9._-]*-[0-9a-f]{12}$/);
    assert.ok(f.length <= 53);
  }
  assert.equal(new Set(parts).size, names.length);
  assert.equal(projectFolderName('my-repo'), projectFolderName('my-repo'));
  assert.equal(projectFolderName(''), 'no-project', 'records without a project have a file too');
  assert.ok(!parts.includes('no-project'));
});
