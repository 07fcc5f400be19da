import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cutText as capText } from '../../common/privacy/cut';
import { globToRegExp, isExcludedProject } from '../../worker/privacy/filters';
import { MAX_TAGS, stripDeep, stripPrivate } from '../../common/privacy';
import { assertLinear, repeated } from '../helpers/linear';

describe('stripPrivate', () => {
  const cases: [string, string][] = [
    ['a <private>b</private> c', 'a  c'],
    ['a <private>\nmulti\nline\n</private> c', 'a  c'],
    ['a <private reason="x" other=\'y\'>b</private> c', 'a  c'],
    ['A <PRIVATE>b</Private> C', 'A  C'],
    ['<claude-mem-context>\n# ctx\n</claude-mem-context>rest', 'rest'],
    ['keep <privateer>this</privateer>', 'keep <privateer>this</privateer>'],
    ['x <private>never closed', 'x '],
    ['x <private never closed', 'x '],
    ['1<private>a</private>2<private>b</private>3', '123'],
    ['no tags at all', 'no tags at all'],
  ];
  for (const [input, want] of cases) {
    it(JSON.stringify(input), () => assert.equal(stripPrivate(input).text, want));
  }

  it('counts removed tags', () => assert.equal(stripPrivate('<private>a</private><private>b</private>').removed, 2));

  it('caps the tag count and drops the rest', () => {
    const many = '<private>x</private>y'.repeat(MAX_TAGS + 50);
    const r = stripPrivate(many);
    assert.ok(!r.text.includes('x'));
    assert.ok(r.text.length <= MAX_TAGS);
  });

  // Each with what stripPrivate leaves: no tag at all (the text as it is), or an open block to the end.
  for (const [name, unit, count, kept] of [
    ['unterminated openings', '<private', 131072, 'all'],
    ['open tags without close', '<private>', 116508, 'nothing'],
    ['angle brackets', '<', 1 << 20, 'all'],
    ['near misses', '<privat', 149796, 'all'],
    ['closes only', '</private>', 104857, 'nothing'],
  ] as const) {
    it(`1 MB of ${name}: ${kept} kept, in time linear in the input (against 1/16 of it)`, () => {
      const evil = unit.repeat(count);
      assert.equal(stripPrivate(evil).text, kept === 'all' ? evil : '');
      assertLinear(repeated(unit, count), (evil) => stripPrivate(evil));
    });
  }

  it('strips inside nested JSON, even past the depth limit', () => {
    let deep: unknown = { secret: '<private>hidden</private>ok' };
    for (let i = 0; i < 50; i++) deep = { next: deep };
    const out = JSON.stringify(stripDeep({ a: ['<private>x</private>1', { b: '<private>y</private>2' }], deep }).value);
    assert.ok(!out.includes('hidden') && !out.includes('>x<') && !out.includes('"y'));
  });
});

describe('filters', () => {
  it('globs', () => {
    assert.ok(globToRegExp('secret-*').test('secret-app'));
    assert.ok(!globToRegExp('secret-*').test('secret-app/x'));
    assert.ok(globToRegExp('/home/**/clients/*').test('/home/u/work/clients/acme'));
    assert.ok(isExcludedProject('acme', '/home/u/clients/acme', ['/home/u/clients/**']));
    assert.ok(!isExcludedProject('mine', '/home/u/mine', ['/home/u/clients/**']));
  });

  it('capText keeps head and tail with the original size', () => {
    const t = 'a'.repeat(1000) + 'b'.repeat(1000);
    const c = capText(t, 200);
    assert.ok(c.length <= 260);
    assert.ok(c.startsWith('aaa') && c.endsWith('bbb'));
    assert.match(c, /of 2000 characters elided/);
    assert.equal(capText('short', 200), 'short');
  });
});
