// Request validation at the edge: a bad field is a 400 with a sentence that names it. One kit for
// every route and client; no runtime dependencies.

export class BadRequest extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function asObject(body: unknown, what = 'body'): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest(`${what} must be a JSON object`);
  return body as Record<string, unknown>;
}

interface StrOpts {
  max?: number;
  allowEmpty?: boolean;
}

export function reqString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string {
  const v = o[key];
  if (typeof v !== 'string') throw new BadRequest(`field '${key}' is required and must be a string`);
  return checkString(key, v, opts);
}

export function optString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequest(`field '${key}' must be a string`);
  return checkString(key, v, { allowEmpty: true, ...opts });
}

function checkString(key: string, v: string, opts: StrOpts): string {
  if (!opts.allowEmpty && v.trim() === '') throw new BadRequest(`field '${key}' must not be empty`);
  if (opts.max !== undefined && v.length > opts.max) throw new BadRequest(`field '${key}' is longer than ${opts.max} characters`);
  return v;
}

/** Session ids, project names and similar identifiers: printable, bounded. */
export function reqId(o: Record<string, unknown>, key: string): string {
  const v = reqString(o, key, { max: 256 });
  if (/[\u0000-\u001f]/.test(v)) throw new BadRequest(`field '${key}' must not contain control characters`);
  return v;
}

export function optId(o: Record<string, unknown>, key: string): string | undefined {
  const v = optString(o, key, { max: 256 });
  if (v === undefined || v === '') return undefined;
  if (/[\u0000-\u001f]/.test(v)) throw new BadRequest(`field '${key}' must not contain control characters`);
  return v;
}

/** Integer query parameter with bounds; absent gives the default. */
export function intParam(raw: string | undefined, name: string, def: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return def;
  if (!/^-?\d+$/.test(raw)) throw new BadRequest(`query '${name}' must be an integer`);
  const n = Number(raw);
  if (n < min || n > max) throw new BadRequest(`query '${name}' must be between ${min} and ${max}`);
  return n;
}

export function parseIdList(raw: unknown): number[] {
  let list: unknown = raw;
  if (typeof raw === 'string') {
    const s = raw.trim();
    if (s.startsWith('[')) {
      try {
        list = JSON.parse(s);
      } catch {
        throw new BadRequest('ids must be an array of integers, "1,2" or "[1,2]"');
      }
    } else {
      list = s === '' ? [] : s.split(',').map((x) => (/^\s*\d+\s*$/.test(x) ? Number(x) : NaN));
    }
  }
  if (!Array.isArray(list) || !list.every((x) => Number.isSafeInteger(x) && (x as number) > 0)) {
    throw new BadRequest('ids must be an array of positive integers, "1,2" or "[1,2]"');
  }
  if (list.length > 500) throw new BadRequest('at most 500 ids per request');
  return list as number[];
}
