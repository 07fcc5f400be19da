// The one gate for what comes from outside: every ingest path (HTTP bodies, hook stdin through the
// hook CLI and the spool, imports, MCP save_memory, the extension's capture, a model's reply, and
// records pulled from a team hub) passes its value through cleanIncoming before anything is
// hashed, queued, journaled, stored, logged or sent to a model. Every string at any depth, object
// keys included: private blocks stripped (an entry whose key held one is dropped with its value),
// then secrets redacted (a credential-named key holding a plain string loses the string). Ids,
// paths, branch names, hashes, tool names and notes are strings like any other. Tool inputs and
// outputs take scrubToolUse (toolUse.ts), which does the same and drops secret files' content.
// One walk, one copy: a 50 MB import is cleaned between the yields of its validation.
import { isSecretName, jsonText, plain, redactSecrets, REDACTED } from './redact';
import { stripPrivate } from './tags';

export interface Incoming<T> {
  value: T;
  /** Private blocks removed. */
  removed: number;
}

/** One string: private blocks stripped, secrets redacted. */
export function cleanIncomingText(text: string): Incoming<string> {
  return stripThenRedact(text);
}

/**
 * Private blocks stripped, then secrets redacted. Where a block is removed, the text is redacted
 * before stripping as well: removing a block can glue a key to the word after it
 * ("AKIA…<private>x</private>Z" leaves "AKIA…Z", which no pattern matches). A pattern that eats
 * part of a tag leaves the other part unmatched, and an unmatched tag hides more, never less.
 */
function stripThenRedact(text: string): Incoming<string> {
  const r = stripPrivate(text);
  if (r.removed === 0) return { value: redactSecrets(text), removed: 0 };
  return { value: redactSecrets(stripPrivate(redactSecrets(text)).text), removed: r.removed };
}

const MAX_DEPTH = 32;

/** Object keys repeat (every record of an import has the same ones): their answer is remembered. */
const secretKeys = new Map<string, boolean>();
function isSecretKey(k: string): boolean {
  if (k.length > 128) return false;
  let v = secretKeys.get(k);
  if (v === undefined) {
    v = isSecretName(k);
    if (secretKeys.size < 4096) secretKeys.set(k, v);
  }
  return v;
}

function cleanDeep(value: unknown, depth: number, n: { removed: number }): unknown {
  if (typeof value === 'string') {
    const r = stripThenRedact(value);
    n.removed += r.removed;
    return r.value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) {
    // Too deep to walk: flattened to text so nothing escapes.
    const text = jsonText(value);
    return cleanDeep(text, depth, n);
  }
  if (Array.isArray(value)) return value.map((v) => cleanDeep(v, depth + 1, n));
  const out: Record<string, unknown> = {};
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, k)) continue;
    const v = obj[k];
    const key = k.indexOf('<') < 0 ? undefined : stripPrivate(k);
    if (key && key.removed > 0) {
      n.removed += key.removed;
      continue;
    }
    if (typeof v === 'string' && isSecretKey(k)) {
      // {"password": "hunter2"}: a key that names a credential loses its string (but a plain one).
      const r = stripPrivate(v);
      n.removed += r.removed;
      out[k.length < 8 ? k : redactSecrets(k)] = plain(r.text) ? r.text : REDACTED;
    } else out[k.length < 8 ? k : redactSecrets(k)] = cleanDeep(v, depth + 1, n);
  }
  return out;
}

/**
 * A value from outside, cleaned at every depth. With `except`, those top-level keys of an object
 * are left as they are for the caller, which cleans them itself (a tool use through scrubToolUse,
 * a prompt through cleanIncomingText to tell a private prompt from an empty one).
 */
export function cleanIncoming<T>(value: T, except: readonly string[] = []): Incoming<T> {
  const n = { removed: 0 };
  if (except.length === 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return { value: cleanDeep(value, 0, n) as T, removed: n.removed };
  const kept: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) (except.includes(k) ? kept : rest)[k] = v;
  return { value: { ...(cleanDeep(rest, 0, n) as Record<string, unknown>), ...kept } as T, removed: n.removed };
}
