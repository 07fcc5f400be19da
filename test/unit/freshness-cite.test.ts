// The extension's citations (extension/freshness/cite.ts): a file with unsaved edits is cited at
// the editor's text, not the disk's. Otherwise a capture of a file being edited (a focus "Read")
// counted as a check that found the memories the edit made stale fresh again (the e2e saw the
// CodeLens flip back from "may be stale").
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { withCitations } from '../../extension/freshness/cite';
import { blobId } from '../../common/node/freshness/gitRepo';
import { makeRepo } from '../helpers/gitRepo';

describe('extension citations', () => {
  const r = makeRepo();
  r.write('src/retry.ts', 'export const RETRIES = 3;\n');
  r.commit('retry');
  const abs = path.join(r.root, 'src', 'retry.ts');
  const req = { tool_name: 'FileFocus', tool_input: { file_path: abs }, tool_response: '', cwd: r.root };

  it('cites the file on disk when it has no unsaved edits', () => {
    const c = withCitations(req, true).citations;
    assert.deepEqual(c?.files.map((f) => [f.path, f.blob]), [['src/retry.ts', r.git('hash-object', 'src/retry.ts')]]);
    assert.equal(c?.branch, 'main');
  });

  it('cites the editor text of a file with unsaved edits', () => {
    const live = 'export const RETRIES = 5;\n';
    const c = withCitations(req, true, (p) => (p === abs ? live : undefined)).citations;
    assert.deepEqual(c?.files.map((f) => [f.path, f.blob]), [['src/retry.ts', blobId(Buffer.from(live, 'utf8'))]]);
    assert.notEqual(c?.files[0].blob, r.git('hash-object', 'src/retry.ts'));
  });

  it('cites nothing when freshness is off, and every named file of a rename', () => {
    assert.equal(withCitations(req, false).citations, undefined);
    r.write('src/other.ts', 'x\n');
    const both = withCitations({ ...req, tool_input: { file: abs, new_path: path.join(r.root, 'src', 'other.ts') } }, true).citations;
    assert.deepEqual(both?.files.map((f) => f.path), ['src/retry.ts', 'src/other.ts']);
  });
});
