// The one gate between the local store and the hub: every string of a shared record passes
// through sanitizeForHub before it is pushed. Records were already cleaned at ingest by
// common/privacy; this gate runs it again (nested private tags, every secret format it knows) with
// the stricter list for what leaves the machine (common/privacy/redact.ts, redactForSharing).
import { redactForSharing, redactSharingPatterns, REDACTED_SHARED, stripPrivate } from '../../common/privacy';

export const REDACTED = REDACTED_SHARED;

/** The stricter sharing patterns alone. */
export const redactSecrets = redactSharingPatterns;

/** Strips private blocks (nesting counted), then redacts secrets: the stricter list, then common/privacy's. */
export function sanitizeForHub(text: string): string {
  return redactForSharing(stripPrivate(text).text);
}

/** sanitizeForHub over every string of a JSON-like value. */
export function sanitizeDeep<T>(value: T): T {
  if (typeof value === 'string') return sanitizeForHub(value) as T;
  if (Array.isArray(value)) return value.map((v) => sanitizeDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = sanitizeDeep(v);
    return out as T;
  }
  return value;
}
