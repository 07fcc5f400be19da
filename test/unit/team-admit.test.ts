// The gate for pulled records (worker/team/admit.ts) and what may leave (shareablePayload).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIT_LIMITS, admitRecord } from '../../worker/team/admit';
import { dropAbsolutePaths, shareablePayload } from '../../worker/team/sanitize';

const base = { gid: 'm:o:1:1', origin: 'm', machine: 'box', author: 'mallory', origin_session: 'm/1', created_at: '1000' };

describe('admitRecord', () => {
  it('refuses a type outside the taxonomy and a payload over the cap', () => {
    const bad = admitRecord({ ...base, kind: 'observation', payload: { type: '<img src=x onerror=alert(1)>', title: 't' } }, 5000);
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.reason, /not an observation type/);
    const big = admitRecord({ ...base, kind: 'observation', payload: { type: 'discovery', title: 't', narrative: 'x'.repeat(ADMIT_LIMITS.payloadBytes) } }, 5000);
    assert.equal(big.ok, false);
    assert.equal(admitRecord({ ...base, kind: 'observation', payload: null, oversize: true }, 5000).ok, false);
    assert.equal(admitRecord({ ...base, kind: 'weird', payload: { text: 'x' } }, 5000).ok, false);
    assert.equal(admitRecord({ ...base, kind: 'observation', payload: { type: 'discovery', title: 't', facts: 'not a list' } }, 5000).ok, false);
  });

  it('strips private blocks, redacts secrets, cuts with a mark, caps lists and clamps the time', () => {
    const r = admitRecord(
      {
        ...base,
        kind: 'observation',
        created_at: String(Date.UTC(2999, 0, 1)),
        payload: {
          type: 'discovery',
          title: 'keys <private>PRIV-1</private>',
          narrative: `AKIAIOSFODNN7EXAMPLE ${'n'.repeat(40_000)}`,
          facts: Array.from({ length: 200 }, (_, i) => `fact ${i}`),
        },
      },
      5000,
    );
    assert.ok(r.ok);
    if (!r.ok) return;
    const text = JSON.stringify(r.payload);
    assert.doesNotMatch(text, /PRIV-1|AKIAIOSFODNN7EXAMPLE/);
    assert.ok((r.payload.narrative as string).length <= ADMIT_LIMITS.text);
    assert.match(r.payload.narrative as string, /characters elided/);
    assert.equal((r.payload.facts as string[]).length, ADMIT_LIMITS.listItems);
    assert.equal(r.createdAt, 5000);
    assert.equal(r.cut, true);
  });
});

describe('what leaves the machine', () => {
  it('drops absolute paths, keeping the last part', () => {
    assert.equal(dropAbsolutePaths('Looked at /home/alice/shop/src/retry.ts, which starts'), 'Looked at …/retry.ts, which starts');
    assert.equal(dropAbsolutePaths('C:\\Users\\bob\\repo\\a.ts and ~/.ssh/config and file:///home/x/y.txt'), '…/a.ts and …/config and …/y.txt');
    assert.equal(dropAbsolutePaths('src/retry.ts, ./a/b.ts, 1/2/3, https://example.com/a/b'), 'src/retry.ts, ./a/b.ts, 1/2/3, https://example.com/a/b');
  });

  it('keeps the prompt and the assistant message of a summary home without the prompts opt-in', () => {
    const s = { request: 'PROMPT', investigated: 'Read /home/a/x.ts', notes: 'ASSISTANT', learned: null };
    assert.deepEqual(shareablePayload('summary', s, { prompts: false }), { request: null, investigated: 'Read …/x.ts', notes: null, learned: null });
    assert.deepEqual(shareablePayload('summary', s, { prompts: true }), { ...s, investigated: 'Read …/x.ts' });
  });

  it("keeps a locally compressed observation's narrative and facts (raw tool output) home", () => {
    const o = { type: 'discovery', title: 'Read src/a.ts', narrative: 'Looked at src/a.ts, which starts with: RAW', facts: ['RAW'] };
    assert.deepEqual(shareablePayload('observation', o, { prompts: true, source: 'local' }), { ...o, narrative: null, facts: [] });
    assert.deepEqual(shareablePayload('observation', o, { prompts: false, source: 'anthropic' }), o);
  });
});
