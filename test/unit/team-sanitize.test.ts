import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { redactSecrets, sanitizeDeep, sanitizeForHub } from '../../worker/team/sanitize';
import { assertLinear, FACTOR } from '../helpers/linear';

describe('team: the hub gate (strip + redact)', () => {
  it('removes private blocks and redacts common secrets', () => {
    const cases: [string, RegExp][] = [
      ['key AKIAIOSFODNN7EXAMPLE here', /AKIA/],
      ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', /wJalr/],
      ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB', /ghp_/],
      ['ANTHROPIC sk-ant-api03-abcdefghijklmnopqrstuvwxyz', /sk-ant/],
      ['slack xoxb-1234567890-abcdefghij', /xoxb/],
      ['url postgres://alice:s3cretpw@db.example.com:5432/hub', /s3cretpw/],
      ['password: hunter2hunter2', /hunter2/],
      ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz.0123456789', /abcdefghijklmnop/],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', /MIIEow/],
    ];
    for (const [text, leak] of cases) {
      const out = sanitizeForHub(text);
      assert.doesNotMatch(out, leak, text);
      assert.match(out, /\[REDACTED\]/, text);
    }
    assert.equal(sanitizeForHub('keep <private>gone</private>this'), 'keep this');
    assert.equal(redactSecrets('plain words about a cache'), 'plain words about a cache');
  });

  it('walks every string of a payload', () => {
    const out = sanitizeDeep({ title: 'AKIAIOSFODNN7EXAMPLE', facts: ['ok', '<private>x</private>y'], n: 3, nested: { t: 'password=abcdefgh' } });
    assert.deepEqual(out, { title: '[REDACTED]', facts: ['ok', 'y'], n: 3, nested: { t: '[REDACTED]' } });
  });

  it('pathological input: the right text, in time linear in the input (against 1/16 of it)', () => {
    // At k = FACTOR (16): 400 KB of 'password', 200 KB of 'AKIA', 4,000 unclosed key blocks.
    const make = (k: number) => 'password'.repeat(3_125 * k) + 'AKIA'.repeat(3_125 * k) + '-----BEGIN PRIVATE KEY-----'.repeat(250 * k);
    // The text before the first key block stays (no secret follows the cues); the first unclosed
    // key block hides the rest.
    assert.equal(sanitizeForHub(make(FACTOR)), 'password'.repeat(50_000) + 'AKIA'.repeat(50_000) + '-----BEGIN PRIVATE KEY-----[redacted]');
    assertLinear(make, (evil) => sanitizeForHub(evil));
  });
});
