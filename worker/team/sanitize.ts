// The one gate between the local store and the hub: every string of a shared record passes
// through sanitizeForHub before it is pushed. Records were already cleaned at ingest by
// common/privacy; this gate runs it again (nested private tags, every secret format it knows) and
// adds a stricter list for what leaves the machine (short `password=` values, any bearer header),
// where a false positive costs a teammate a word and a miss costs a leaked credential.
import { redactSecrets as redactCommon, stripPrivate } from '../../common/privacy';

/** Secrets that must never leave the machine. Each pattern is linear (no nested quantifiers). */
const SECRET_PATTERNS: RegExp[] = [
  /\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b/g, // AWS access key ids
  /\b(?:aws_secret_access_key|aws_session_token)\s*[=:]\s*["']?[A-Za-z0-9/+=]{16,}/gi,
  /\bgh[pousr]_[A-Za-z0-9]{30,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}\b/g,
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g, // Anthropic / OpenAI keys
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^]{0,20000}?-----END [A-Z ]{0,40}PRIVATE KEY-----/g,
  /\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|redis|amqp):\/\/[^\s:/@]{1,200}:[^\s@/]{1,200}@/gi, // URLs with a password
  /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\s*[=:]\s*["']?[^\s"',;]{6,}/gi,
  /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/g,
];

export const REDACTED = '[REDACTED]';

export function redactSecrets(text: string): string {
  let out = text;
  for (const re of SECRET_PATTERNS) out = out.replace(re, REDACTED);
  return out;
}

/** Strips private blocks (nesting counted), then redacts secrets: this stricter list, then common/privacy's. */
export function sanitizeForHub(text: string): string {
  return redactCommon(redactSecrets(stripPrivate(text).text));
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
