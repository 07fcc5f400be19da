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

// An absolute path (POSIX, Windows drive or UNC, file:// URI, home-relative): it names the user's
// machine layout (user name, home, mount points), never the project's. Bounded quantifiers only.
const ABSOLUTE_PATH = /(?:file:\/\/|(?<![\w.\-~/\\]))(?:(?:\/|~\/|[A-Za-z]:[\\/]|\\\\)(?:[^\s/\\'"`<>()[\]{},;:]{1,255}[/\\]){1,64})([^\s/\\'"`<>()[\]{},;:]{0,255})/g;

/** Replaces every absolute path in a text by its last part ("…/retry.ts"). */
export function dropAbsolutePaths(text: string): string {
  if (!/[/\\]/.test(text)) return text;
  return text.replace(ABSOLUTE_PATH, (_m, last: string) => `…/${last}`);
}

export interface ShareableOptions {
  /** The project is shared with its prompts (the --prompts opt-in). */
  prompts: boolean;
  /**
   * The record's compressor. 'local' observations quote the raw tool output in their narrative and
   * facts; 'local' summaries build what was learned, done and left from the prompts and the
   * assistant's last message.
   */
  source?: string;
}

/**
 * What of a record may leave the machine (docs/team.md, "What is pushed"): for observations the
 * compressed fields only (a locally compressed one keeps type, title, subtitle, concepts, files:
 * its narrative and facts quote the tool's raw output); for summaries everything but `request`
 * (the prompt) and `notes` (the assistant's last message) unless prompts are shared; no absolute
 * path anywhere; then sanitizeForHub over every string.
 */
export function shareablePayload(kind: string, payload: Record<string, unknown>, opts: ShareableOptions): Record<string, unknown> {
  const p: Record<string, unknown> = { ...payload };
  if (kind === 'observation' && opts.source === 'local') {
    p.narrative = null;
    p.facts = [];
  }
  if (kind === 'summary' && !opts.prompts) {
    p.request = null;
    p.notes = null;
    if (opts.source === 'local') {
      p.learned = null;
      p.completed = null;
      p.nextSteps = null;
    }
  }
  return sanitizeDeep(pathsOut(p));
}

function pathsOut<T>(value: T): T {
  if (typeof value === 'string') return dropAbsolutePaths(value) as T;
  if (Array.isArray(value)) return value.map((v) => pathsOut(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = pathsOut(v);
    return out as T;
  }
  return value;
}
