// The one-pass text rules of a page's rows give the same text as the rules they replaced, rule by
// rule (a copy of the whole text per rule): snippet.ts's flatten (escaped newlines, white space,
// JSON list punctuation and quotes) and records.ts's oneLine (a title on one line). Random strings
// over the characters those rules treat specially, seeded, plus the cases that interact.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { flatten, makeSnippet } from '../../worker/search/snippet';
import { oneLine } from '../../worker/search/records';

/** The rules as they were written first, one replace each. */
const flattenByRule = (text: string): string =>
  text.replace(/\\n|\s\s+|[^\S ]/g, ' ').replace(/[[\]"]/g, (c) => (c === '"' ? '' : ' ')).replace(/ {2,}/g, ' ').trim();
const oneLineByRule = (s: string): string => s.replace(/\s+/g, ' ').trim();

function randomStrings(alphabet: string[], count: number, seed: number): string[] {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  return Array.from({ length: count }, () => Array.from({ length: Math.floor(next() * 24) }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''));
}

describe('page text in one pass', () => {
  it('flatten equals the rule-by-rule text on 50,000 random strings and the edge cases', () => {
    const alphabet = ['a', 'b', ' ', '  ', '\n', '\\', 'n', '\\n', '"', '""', '[', ']', '\t', '\u00a0', '\u2028', '\ufeff', 'é', 'x'];
    const edges = ['', ' ', '"', '\\"n', '\\\\n', 'a "" b', 'a"b', '["x", "y"]', ' \n ', 'a\\nb', '[[]]', '" a "', 'a \u00a0 b'];
    for (const t of [...edges, ...randomStrings(alphabet, 50_000, 7)]) assert.equal(flatten(t), flattenByRule(t), JSON.stringify(t));
  });

  it('oneLine equals the rule-by-rule title on 50,000 random strings', () => {
    const alphabet = ['a', ' ', '  ', '\n', '\t', '\u00a0', '\u2028', '\ufeff', 'é'];
    for (const t of ['', ' a ', 'a  b', 'a\nb', ...randomStrings(alphabet, 50_000, 11)]) assert.equal(oneLine(t), oneLineByRule(t), JSON.stringify(t));
  });

  it('a snippet of an observation body is cut from the flattened text', () => {
    const body = 'The retry wrapper\nwraps fetch\n["retries three times", "backs off \\"exponentially\\""]';
    assert.equal(makeSnippet(body, ['retries']), 'The **retry** wrapper wraps fetch **retries** three times, backs off \\exponentially\\');
  });
});
