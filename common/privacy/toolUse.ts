// One tool use (Claude Code PostToolUse, an agent hook, an editor event) made safe to keep:
// private blocks stripped (keys too), the content of secret-looking files dropped (a Read of .env
// keeps its path, loses its text), then every string redacted. Used by the hook CLI before it cuts
// and by the worker before it journals. Pure code.
import { redactDeep, REDACTED } from './redact';
import { isSecretPath } from './secretPaths';
import { stripDeep } from './tags';

export interface ScrubbedToolUse {
  input: unknown;
  response: unknown;
  /** Private blocks removed. */
  removed: number;
  /** The secret-looking file the tool read or wrote, when its content was dropped. */
  secretFile?: string;
}

/** Keys that name a file in the tool inputs and results of the platforms we serve. */
const PATH_KEYS = new Set(['filepath', 'file_path', 'path', 'file', 'filename', 'uri', 'notebook_path', 'target_file', 'targetfile', 'source', 'destination', 'new_path', 'old_path']);
/** Case-insensitive, like the platforms' spellings (filePath, FilePath); a Set, not a RegExp, whose first use costs a hook more. */
const isPathKey = (k: string): boolean => k.length <= 16 && PATH_KEYS.has(k.toLowerCase());

/** The first secret-looking path named under a path key, searched a few levels deep. */
export function secretPathIn(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value !== 'object' || depth > 4) return undefined;
  const entries = Array.isArray(value) ? value.slice(0, 100).map((v) => ['', v] as const) : Object.entries(value as Record<string, unknown>).slice(0, 200);
  for (const [k, v] of entries) {
    if (typeof v === 'string') {
      if (k !== '' && isPathKey(k) && v.length <= 4096 && isSecretPath(v.replace(/^file:\/\//, ''))) return v;
    } else {
      const found = secretPathIn(v, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

export function secretFileMarker(file: string): string {
  const base = file.replace(/\\/g, '/').split('/').filter(Boolean).pop() ?? file;
  return `[redacted: content of ${base}, a secret-looking file]`;
}

/** Replaces every string but the path fields with the marker (Write's content, Edit's old and new strings). */
function dropContent(value: unknown, marker: string, depth = 0): unknown {
  if (typeof value === 'string') return value === '' ? value : marker;
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32) return marker;
  if (Array.isArray(value)) return value.map((v) => dropContent(v, marker, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = typeof v === 'string' && isPathKey(k) ? v : dropContent(v, marker, depth + 1);
  return out;
}

export function scrubToolUse(input: unknown, response: unknown): ScrubbedToolUse {
  const i = stripDeep(input);
  const r = stripDeep(response);
  const secretFile = secretPathIn(i.value) ?? secretPathIn(r.value);
  let inValue = i.value;
  let outValue = r.value;
  if (secretFile) {
    const marker = secretFileMarker(secretFile);
    inValue = dropContent(inValue, marker);
    outValue = outValue === undefined || outValue === null || outValue === '' ? outValue : marker;
  }
  return { input: redactDeep(inValue), response: redactDeep(outValue), removed: i.removed + r.removed, ...(secretFile ? { secretFile } : {}) };
}

export { REDACTED };
