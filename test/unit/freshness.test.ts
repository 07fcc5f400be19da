// Pure pieces of freshness: input validation, the model's verdict, labels in the editor, the
// freshness note in chat and tool results.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freshnessNote, hitLine } from '../../extension/core/format';
import { lensTitle, statusText } from '../../extension/freshness/labels';
import { parseCheck, parseCitations } from '../../worker/freshness/parse';
import { parseVerdict, verifyPrompt } from '../../worker/freshness/verify';
import type { MemoryFreshness } from '../../common/contract';

const blob = 'a'.repeat(40);
const mem = (o: Partial<MemoryFreshness>): MemoryFreshness => ({ id: 1, title: 't', type: 'change', project: 'p', createdAt: '', status: 'fresh', branch: 'main', citations: [], ...o });

describe('freshness inputs', () => {
  it('citations: optional, bounded, each file a blob or gone', () => {
    assert.equal(parseCitations(undefined), undefined);
    assert.deepEqual(parseCitations({ branch: 'main', files: [{ path: 'a\\b.ts', blob }, { path: 'c', gone: true }] }), {
      commit: null,
      branch: 'main',
      bases: [],
      files: [
        { path: 'a/b.ts', blob, tracked: false },
        { path: 'c', blob: null, tracked: false, gone: true },
      ],
    });
    assert.throws(() => parseCitations({ files: Array.from({ length: 201 }, () => ({ path: 'a', blob })) }), /at most 200/);
    assert.throws(() => parseCitations({ files: [{ path: '', blob }] }), /path/);
    assert.throws(() => parseCitations({ bases: 'main', files: [] }), /'bases'/);
    assert.throws(() => parseCheck({ project: 'p', files: [{ path: 'a', blob, movedTo: 5 }] }), /movedTo/);
  });
});

describe('verdicts', () => {
  it('reads still-true, changed (with the corrected memory) and wrong; anything else is none', () => {
    assert.deepEqual(parseVerdict('<verdict>Still True</verdict><reason>ok</reason>'), { verdict: 'still-true', reason: 'ok' });
    assert.deepEqual(parseVerdict('<verdict>changed</verdict><reason>r</reason><title>T</title><facts><fact>f1</fact><fact>f2</fact></facts>'), { verdict: 'changed', reason: 'r', title: 'T', narrative: undefined, facts: ['f1', 'f2'] });
    assert.equal(parseVerdict('<verdict>changed</verdict>'), undefined, 'changed without the corrected memory');
    assert.equal(parseVerdict('I think it is fine'), undefined);
    const p = verifyPrompt({ title: 'Retry is 3', subtitle: null, narrative: null, facts: ['f'] }, [{ path: 'a.ts', diff: '-3\n+5' }, { path: 'b.ts' }]);
    assert.match(p, /<file path="a.ts" kind="diff">\n-3\n\+5/);
    assert.match(p, /<file path="b.ts" kind="deleted"\/>/);
  });
});

describe('freshness labels', () => {
  it('CodeLens counts live memories and the stale ones; text says what changed and where from', () => {
    assert.equal(lensTitle([]), undefined);
    assert.equal(lensTitle([mem({ status: 'retired' })]), undefined);
    assert.equal(lensTitle([mem({}), mem({ status: 'stale' }), mem({ status: 'retired' })]), '$(history) 2 memories · $(warning) 1 may be stale');
    assert.equal(statusText(mem({ status: 'stale', reason: 'a.ts changed on main', otherBranch: true, branch: 'x' })), 'may be stale: a.ts changed on main · from branch x');
    assert.equal(statusText(mem({ status: 'retired', replacedBy: 9 })), 'retired (replaced by #9)');
  });
  it('chat and tool lines say a memory may be stale', () => {
    const h = { id: 3, kind: 'observation', type: 'change', title: 'Retry is 3', freshness: 'stale', staleReason: 'a.ts changed' };
    assert.match(hitLine(h), /#3 .*Retry is 3 \[MAY BE STALE: a\.ts changed; verify before relying on it\]$/);
    assert.equal(freshnessNote({ otherBranch: true, branch: 'x' }), '[from branch x]');
    assert.equal(freshnessNote({}), '');
  });
});
