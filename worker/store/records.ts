// A journal record is one committed transaction: the write statements with their parameters,
// replayed in order on recovery. Statements must be deterministic (no now(), no random()).
export type Param = string | number | null | Uint8Array;
export type Statement = [sql: string, params: Param[]];

export function encodeTx(stmts: Statement[]): Buffer {
  return Buffer.from(
    JSON.stringify(stmts, (_k, v: unknown) => (v instanceof Uint8Array ? { b: Buffer.from(v).toString('base64') } : v)),
    'utf8',
  );
}

export function decodeTx(payload: Buffer): Statement[] {
  const parsed = JSON.parse(payload.toString('utf8'), (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { b?: unknown }).b === 'string') {
      return new Uint8Array(Buffer.from((v as { b: string }).b, 'base64'));
    }
    return v;
  }) as unknown;
  if (!Array.isArray(parsed)) throw new Error('record is not a statement list');
  return parsed as Statement[];
}
