// One tool use (Claude Code PostToolUse, an agent hook, an editor event) made safe to keep:
// private blocks stripped (keys too), the content of secret-looking files dropped, then every
// string redacted. Used by the hook CLI before it cuts and by the worker before it journals or
// queues. Pure code.
//
// Secret files are found by what the tool does (common/toolKinds.ts), not by one key name:
// - a tool input that names a secret-looking file (any path key of any platform, every entry of a
//   file list or an edit list, however long, paths of any length) keeps its paths and loses the
//   rest, and the tool's output goes;
// - a patch (Codex and VS Code apply_patch, a unified diff) loses the hunks of secret-looking files
//   and keeps the others';
// - a shell command that names a secret-looking file (`cat .env`, `cat ~/.pgpass`) keeps the command
//   (redacted) and loses its output;
// - output lines of a search or a shell command that come from a secret-looking file
//   (`./.env:3:API_KEY=…`) are dropped.
import { COMMAND_KEYS, EDIT_LIST_KEYS, PATH_KEYS, PATH_LIST_KEYS, toolFiles, toolKind } from '../toolKinds';
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

/** Keys that name a file in tool inputs and results: the tool table's, plus results' and moves' names. */
const PATH_KEY_SET = new Set([...PATH_KEYS, 'dir_path', 'filename', 'source', 'destination', 'old_path', 'oldpath'].map((k) => k.toLowerCase()));
const LIST_KEY_SET = new Set([...PATH_LIST_KEYS, ...EDIT_LIST_KEYS].map((k) => k.toLowerCase()));
/** Case-insensitive, like the platforms' spellings (filePath, FilePath); a Set, not a RegExp, whose first use costs a hook more. */
const isPathKey = (k: string): boolean => k.length <= 16 && PATH_KEY_SET.has(k.toLowerCase());
const MAX_DEPTH = 32;

const isSecretFile = (v: string): boolean => isSecretPath(v.replace(/^file:\/\//, ''));

/** The first secret-looking path named under a path key or in a file list, at any depth and list length. */
export function secretPathIn(value: unknown, depth = 0, listed = false): string | undefined {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      if (typeof v === 'string') {
        if (listed && isSecretFile(v)) return v;
      } else {
        const found = secretPathIn(v, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') {
      if (isPathKey(k) && isSecretFile(v)) return v;
    } else {
      const found = secretPathIn(v, depth + 1, Array.isArray(v) && LIST_KEY_SET.has(k.toLowerCase()));
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
function dropContent(value: unknown, marker: string, depth = 0, listed = false): unknown {
  if (typeof value === 'string') return value === '' || listed ? value : marker;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return marker;
  if (Array.isArray(value)) return value.map((v) => dropContent(v, marker, depth + 1, listed));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && isPathKey(k) ? v : dropContent(v, marker, depth + 1, Array.isArray(v) && LIST_KEY_SET.has(k.toLowerCase()) && v.every((x) => typeof x === 'string'));
  }
  return out;
}

// ---- patches ----------------------------------------------------------------------------------

const PATCH_HINT = /^(?:\*\*\* (?:Begin Patch|Update File: |Add File: |Delete File: )|diff --git |\+\+\+ )/m;
const PATCH_FILE = /^\*\*\* (?:Update|Add|Delete) File: (.*)$/;
const PATCH_MOVE = /^\*\*\* Move to: (.*)$/;
const DIFF_GIT = /^diff --git (?:"?a\/)?(\S+)"? (?:"?b\/)?(\S+)"?$/;
const diffPath = (line: string): string => line.slice(4).replace(/\t.*$/, '').trim().replace(/^"?[ab]\//, '').replace(/"$/, '');

/**
 * A patch without the hunks of secret-looking files: their header lines stay (the file was
 * changed), their lines go, one marker in their place. Returns undefined when no file is secret.
 */
export function dropSecretHunks(patch: string): { text: string; file: string } | undefined {
  if (!PATCH_HINT.test(patch)) return undefined;
  const lines = patch.split('\n');
  const out: string[] = [];
  let secret: string | undefined;
  let first: string | undefined;
  let marked = false;
  const enter = (files: string[]) => {
    secret = files.find((f) => f !== '/dev/null' && isSecretFile(f));
    first ??= secret;
    marked = false;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m: RegExpExecArray | null;
    let header = true;
    if ((m = PATCH_FILE.exec(line))) enter([m[1].trim()]);
    else if ((m = PATCH_MOVE.exec(line))) {
      const to = m[1].trim();
      if (!secret && isSecretFile(to)) enter([to]);
    } else if ((m = DIFF_GIT.exec(line))) enter([m[1], m[2]]);
    else if (line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ')) {
      // A unified diff's file header pair: the file is secret if either name is.
      enter([diffPath(line), diffPath(lines[i + 1])]);
      out.push(line, lines[i + 1]);
      i++;
      continue;
    } else if (line === '*** End Patch' || line === '*** Begin Patch') secret = undefined;
    else header = false;
    if (header || !secret) out.push(line);
    else if (!marked) {
      out.push(secretFileMarker(secret));
      marked = true;
    }
  }
  return first ? { text: out.join('\n'), file: first } : undefined;
}

/** Every patch string inside a tool input with its secret hunks dropped. */
function scrubPatches(value: unknown, found: { file?: string }, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length < 12 || value.indexOf('\n') < 0) return value;
    const r = dropSecretHunks(value);
    if (!r) return value;
    found.file ??= r.file;
    return r.text;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => scrubPatches(v, found, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = scrubPatches(v, found, depth + 1);
  return out;
}

// ---- shell commands and search output -----------------------------------------------------------

/** The command text of a shell tool's input. */
function commandOf(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!input || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const o = input as Record<string, unknown>;
  for (const k of COMMAND_KEYS) {
    const v = o[k];
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) return v.filter((x) => typeof x === 'string').join(' ');
  }
  return undefined;
}

/** A secret-looking file a command line names (`cat .env`, `less ~/.pgpass`, `cat "$HOME/.aws/credentials"`). */
export function secretFileInCommand(command: string): string | undefined {
  for (const word of command.split(/[\s;|&<>()`'"=,]+/)) {
    if (word.length < 2 || word.startsWith('-')) continue;
    if (isSecretFile(word)) return word;
  }
  return undefined;
}

/** Where a search or shell output line names its file: `path:12:text`, `path-12-text` (grep -C), `path:text`. */
function linePath(line: string): string | undefined {
  // A Windows drive letter's colon is part of the path.
  const from = /^[A-Za-z]:[\\/]/.test(line) ? 2 : 0;
  const colon = line.indexOf(':', from);
  if (colon > 0) return line.slice(0, colon);
  const ctx = /^(.{1,4096}?)-\d{1,9}-/.exec(line.length > 4200 ? line.slice(0, 4200) : line);
  return ctx ? ctx[1] : undefined;
}

/** Output lines that come from a secret-looking file, dropped (one marker per run of them). */
export function dropSecretLines(text: string): string {
  if (text.indexOf('\n') < 0 && text.indexOf(':') < 0) return text;
  const lines = text.split('\n');
  let changed = false;
  const out: string[] = [];
  let last = '';
  for (const line of lines) {
    const p = linePath(line);
    if (p !== undefined && p.trim() !== '' && isSecretFile(p.trim())) {
      changed = true;
      const marker = secretFileMarker(p.trim());
      if (last !== marker) out.push(marker);
      last = marker;
      continue;
    }
    out.push(line);
    last = '';
  }
  return changed ? out.join('\n') : text;
}

function dropSecretLinesDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return dropSecretLines(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => dropSecretLinesDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = dropSecretLinesDeep(v, depth + 1);
  return out;
}

const emptyish = (v: unknown): boolean => v === undefined || v === null || v === '';

/**
 * Strips private blocks, drops what secret-looking files hold (by the tool's kind: reads, writes,
 * edits, patches, searches, shell commands), then redacts every string. `toolName` is the
 * platform's own tool name; without it, files are still found by their keys.
 */
export function scrubToolUse(input: unknown, response: unknown, toolName = ''): ScrubbedToolUse {
  // Redacted before stripping too where a block is removed (see stripThenRedact in incoming.ts).
  const deep = (v: unknown) => {
    const s = stripDeep(v);
    return s.removed === 0 ? s : { value: stripDeep(redactDeep(v)).value, removed: s.removed };
  };
  const i = deep(input);
  const r = deep(response);
  const kind = toolKind(toolName);
  let inValue = i.value;
  let outValue = r.value;
  const patched: { file?: string } = {};
  inValue = scrubPatches(inValue, patched);
  let secretFile =
    secretPathIn(inValue) ??
    toolFiles(toolName, inValue).find((f) => isSecretFile(f) && !patched.file) ??
    (typeof inValue === 'string' && (kind === 'read' || kind === 'edit' || kind === 'create' || kind === 'delete') && isSecretFile(inValue) ? inValue : undefined) ??
    secretPathIn(outValue);
  if (secretFile) {
    const marker = secretFileMarker(secretFile);
    inValue = dropContent(inValue, marker);
    outValue = emptyish(outValue) ? outValue : marker;
  } else if (patched.file) {
    secretFile = patched.file;
    outValue = emptyish(outValue) ? outValue : secretFileMarker(patched.file);
  } else if (kind === 'run' || kind === 'other' || kind === 'search') {
    const cmd = kind === 'run' || kind === 'other' ? commandOf(inValue) : undefined;
    const named = cmd === undefined ? undefined : secretFileInCommand(cmd);
    if (named) {
      secretFile = named;
      outValue = emptyish(outValue) ? outValue : secretFileMarker(named);
    } else outValue = dropSecretLinesDeep(outValue);
  }
  return { input: redactDeep(inValue), response: redactDeep(outValue), removed: i.removed + r.removed, ...(secretFile ? { secretFile } : {}) };
}

export { REDACTED };
