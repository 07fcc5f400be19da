import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTx, encodeTx, type Statement } from '../../worker/store/records';

describe('journal records', () => {
  it('round-trips statements with and without blobs, including text that looks like a blob', () => {
    const cases: Statement[][] = [
      [['INSERT INTO t VALUES (?, ?, ?)', ['plain', 42, null]]],
      [['INSERT INTO t VALUES (?)', ['{"b":"AAAA"}']]],
      [['INSERT INTO t VALUES (?)', [' {"b": "x"} and \u2028 \ud83d\ude00']]],
      [
        ['INSERT INTO v VALUES (?, ?)', [1, new Uint8Array([0, 1, 254, 255])]],
        ['INSERT INTO t VALUES (?)', ['{"b":"not a blob"}']],
      ],
      [],
    ];
    for (const stmts of cases) {
      const back = decodeTx(encodeTx(stmts));
      assert.deepEqual(back, stmts);
    }
  });

  it('refuses a record that is not a statement list', () => {
    assert.throws(() => decodeTx(Buffer.from('{"b":"AAAA"}')), /not a statement list/);
    assert.throws(() => decodeTx(Buffer.from('"text"')), /not a statement list/);
  });
});
