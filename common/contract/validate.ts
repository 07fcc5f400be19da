// Request validation at the edge: a bad field is a 400 with a sentence that names it. One kit for
// every route and client; no runtime dependencies. The checks themselves (FieldChecks) are shared
// with the panel's protocol (panel.ts) and the language-model tools (extension/tools/types.ts),
// which name a field differently in their messages and throw their own error.

export class BadRequest extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** How a validator names a field in its sentences ("field 'project'", "project") and what it throws. */
export interface FieldNaming {
  name(key: string): string;
  fail(message: string): never;
}

/** The field checks every validator shares; each fails with "<name> <what is wrong>". */
export class FieldChecks {
  constructor(private readonly naming: FieldNaming) {}

  /** Fails with "<name of key> <what>". */
  fail(key: string, what: string): never {
    return this.naming.fail(`${this.naming.name(key)} ${what}`);
  }

  /** A JSON object (not null, not an array): "<what> must be a JSON object" otherwise. */
  object(v: unknown, what: string): Record<string, unknown> {
    if (!v || typeof v !== 'object' || Array.isArray(v)) this.naming.fail(`${what} must be a JSON object`);
    return v as Record<string, unknown>;
  }

  string(key: string, v: unknown, what = 'must be a string'): string {
    if (typeof v !== 'string') this.fail(key, what);
    return v as string;
  }

  /** Not empty once trimmed. */
  notBlank(key: string, v: string, what = 'must not be empty'): string {
    if (v.trim() === '') this.fail(key, what);
    return v;
  }

  maxLength(key: string, v: string, max: number): string {
    if (v.length > max) this.fail(key, `is longer than ${max} characters`);
    return v;
  }

  /** No control characters (identifiers, names, one-line fields). */
  printable(key: string, v: string): string {
    if (/[\u0000-\u001f]/.test(v)) this.fail(key, 'must not contain control characters');
    return v;
  }

  /** A safe integer in [min, max]. */
  int(key: string, v: unknown, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) this.fail(key, `must be an integer from ${min} to ${max}`);
    return v as number;
  }
}

/** The worker's routes: "field 'project' must be a string", a 400. */
const fields = new FieldChecks({
  name: (key) => `field '${key}'`,
  fail: (message) => {
    throw new BadRequest(message);
  },
});

export function asObject(body: unknown, what = 'body'): Record<string, unknown> {
  return fields.object(body, what);
}

interface StrOpts {
  max?: number;
  allowEmpty?: boolean;
}

export function reqString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string {
  return checkString(key, fields.string(key, o[key], 'is required and must be a string'), opts);
}

export function optString(o: Record<string, unknown>, key: string, opts: StrOpts = {}): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  return checkString(key, fields.string(key, v), { allowEmpty: true, ...opts });
}

function checkString(key: string, v: string, opts: StrOpts): string {
  if (!opts.allowEmpty) fields.notBlank(key, v);
  if (opts.max !== undefined) fields.maxLength(key, v, opts.max);
  return v;
}

/** Session ids, project names and similar identifiers: printable, bounded. */
export function reqId(o: Record<string, unknown>, key: string): string {
  return fields.printable(key, reqString(o, key, { max: 256 }));
}

export function optId(o: Record<string, unknown>, key: string): string | undefined {
  const v = optString(o, key, { max: 256 });
  if (v === undefined || v === '') return undefined;
  return fields.printable(key, v);
}

/**
 * Why a project name a client gives cannot be stored, or undefined when it can: not empty, not "."
 * or ".." (no route could name it: a URL parser drops a dot segment), no "/" or "\\", no control
 * characters. Names the worker derives from a folder (common/node/project.ts) are never these.
 */
export function projectNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  if (/[/\\]/.test(name)) return 'must not contain "/" or "\\"';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'must not contain control characters';
  return undefined;
}

/** A project name a client gives, refused with a 400 that names the field. */
export function checkProjectName(key: string, name: string): string {
  const why = projectNameProblem(name);
  if (why !== undefined) throw new BadRequest(`field '${key}' ${why}`);
  return name;
}

/**
 * POST /api/sessions/observations: every check that refuses the request with a 400 before the
 * worker cleans its text. The route runs it, and so does the hook before it hands a request over
 * the spool, because it stops waiting once the worker claims it (common/spool.ts): a request that
 * would be refused is refused in the hook, where it can still exit 1 and say why.
 */
export function checkObservationRequest(body: unknown): ObservationRequestFields {
  const o = asObject(body);
  return {
    o,
    contentSessionId: reqId(o, 'contentSessionId'),
    toolName: reqString(o, 'tool_name', { max: 200 }),
    toolUseId: optId(o, 'tool_use_id'),
    platform: optId(o, 'platform'),
    cwd: optString(o, 'cwd', { max: 4096 }),
    project: optId(o, 'project'),
  };
}

/** The checked fields, as sent (not yet cleaned), and the whole body for the rest. */
export interface ObservationRequestFields {
  o: Record<string, unknown>;
  contentSessionId: string;
  toolName: string;
  toolUseId?: string;
  platform?: string;
  cwd?: string;
  project?: string;
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
