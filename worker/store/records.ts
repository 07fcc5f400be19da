// A journal record is one committed transaction: the write statements with their parameters,
// replayed in order on recovery. Statements must be deterministic (no now(), no random()).
export type Param = string | number | null | Uint8Array;
export type Statement = [sql: string, params: Param[]];

// Blobs are written as {"b": base64}. A replacer or reviver makes JSON several times slower, so
// they run only for records that hold a blob: the only objects a record can contain.
const hasBlob = (stmts: Statement[]) => stmts.some(([, params]) => params.some((v) => v instanceof Uint8Array));
const BLOB_MARK = Buffer.from('{"b":');

export function encodeTx(stmts: Statement[]): Buffer {
  if (!hasBlob(stmts)) return Buffer.from(JSON.stringify(stmts), 'utf8');
  return Buffer.from(
    JSON.stringify(stmts, (_k, v: unknown) => (v instanceof Uint8Array ? { b: Buffer.from(v).toString('base64') } : v)),
    'utf8',
  );
}

export function decodeTx(payload: Buffer): Statement[] {
  const text = payload.toString('utf8');
  const parsed = (payload.includes(BLOB_MARK) ? JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as { b?: unknown }).b === 'string') {
      return new Uint8Array(Buffer.from((v as { b: string }).b, 'base64'));
    }
    return v;
  }) : JSON.parse(text)) as unknown;
  if (!Array.isArray(parsed)) throw new Error('record is not a statement list');
  return parsed as Statement[];
}
