// Removes <private>…</private> and <claude-mem-context>…</claude-mem-context> blocks.
// A hand-written linear scanner, not a regex: input is capped first, the tag count is capped,
// and every step moves forward, so adversarial input (1 MB of '<private<private…') stays linear.
// Nesting is honoured by counting depth per tag name: `<private>a <private>b</private> c</private>`
// hides a, b and c. Private is private, so where the text cannot be read one way only it hides more:
// - an opening tag that is never closed (or has no '>') hides everything after it;
// - a closing tag with no opening tag before it (the block was opened in an earlier field, or
//   before a cut) hides everything before it.
// Pure string code: no Node or vscode import (used by the worker, the hook CLI and the extension).
import { jsonText } from './redact';

export const PRIVATE_TAGS = ['private', 'claude-mem-context'] as const;
/** Inputs are cut to this many characters before scanning (callers cap earlier still). */
export const MAX_STRIP_INPUT = 4 * 1024 * 1024;
/** Past this many tags the rest of the input is dropped rather than scanned further. */
export const MAX_TAGS = 1000;

export interface StripResult {
  text: string;
  /** Blocks removed: opening tags plus closing tags with no opening (0 means the text was untouched). */
  removed: number;
}

interface TagAt {
  /** Index into PRIVATE_TAGS. */
  tag: number;
  closing: boolean;
}

export function stripPrivate(input: string): StripResult {
  const text = input.length > MAX_STRIP_INPUT ? input.slice(0, MAX_STRIP_INPUT) : input;
  if (text.indexOf('<') < 0) return { text, removed: 0 };
  // Offsets are found in text itself: a lower-cased copy can differ in length ('İ' lower-cases to
  // two characters), so its offsets would slice the original in the wrong place.
  const depth = PRIVATE_TAGS.map(() => 0);
  let open = 0; // sum of depth: > 0 while inside any block
  let out = '';
  let pos = 0; // start of the visible text not yet copied to out
  let removed = 0;
  let tags = 0;
  let scan = 0;
  while (scan < text.length) {
    const lt = text.indexOf('<', scan);
    if (lt < 0) break;
    const t = tagAt(text, lt);
    if (!t) {
      scan = lt + 1;
      continue;
    }
    tags += 1;
    if (tags > MAX_TAGS) {
      if (open === 0) out += text.slice(pos, lt);
      pos = text.length;
      removed += 1;
      break;
    }
    const nameEnd = lt + (t.closing ? 2 : 1) + PRIVATE_TAGS[t.tag].length;
    const gt = text.indexOf('>', nameEnd);
    const end = gt < 0 ? text.length : gt + 1;
    if (!t.closing) {
      if (open === 0) out += text.slice(pos, lt);
      removed += 1;
      if (gt < 0) {
        // An opening tag with no '>': the rest is the block.
        pos = text.length;
        open += 1;
        break;
      }
      depth[t.tag] += 1;
      open += 1;
    } else if (depth[t.tag] > 0) {
      depth[t.tag] -= 1;
      open -= 1;
      if (open === 0) pos = end;
    } else if (open === 0) {
      // A closing tag with no opening: everything before it was inside the block.
      out = '';
      removed += 1;
      pos = end;
    }
    // else: a stray closing tag of the other name inside a block: still hidden, ignore it.
    scan = end;
  }
  if (open === 0 && pos < text.length) out += text.slice(pos);
  return removed > 0 ? { text: out, removed } : { text, removed: 0 };
}

/** Does text hold the lower-case ASCII name at `at`, in any case? ASCII folding only: no other character lower-cases to an ASCII letter of the tag names with the same length. */
function nameAt(text: string, name: string, at: number): boolean {
  if (at + name.length > text.length) return false;
  for (let k = 0; k < name.length; k++) {
    const c = text.charCodeAt(at + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== name.charCodeAt(k)) return false;
  }
  return true;
}

/** Which of our tags starts at lt (`<private>`, `<PRIVATE attr=…>`, `</private>`), if any. */
function tagAt(text: string, lt: number): TagAt | undefined {
  const closing = text.charCodeAt(lt + 1) === 47; // '/'
  const at = lt + (closing ? 2 : 1);
  for (let i = 0; i < PRIVATE_TAGS.length; i++) {
    const name = PRIVATE_TAGS[i];
    if (nameAt(text, name, at)) {
      const after = text.charCodeAt(at + name.length);
      // '>', whitespace or '/' must follow the name, so <privateer> is not a tag.
      if (after === 62 || after === 32 || after === 9 || after === 10 || after === 13 || after === 47) return { tag: i, closing };
    }
  }
  return undefined;
}

const MAX_DEPTH = 32;

/**
 * Strips every string inside a JSON-like value, object keys included. An entry whose key held a
 * private block is dropped with its value (the value belongs to the private key). Returns the
 * cleaned value and how many blocks went.
 */
export function stripDeep(value: unknown, depth = 0): { value: unknown; removed: number } {
  if (typeof value === 'string') {
    const r = stripPrivate(value);
    return { value: r.text, removed: r.removed };
  }
  if (value === null || typeof value !== 'object') return { value, removed: 0 };
  if (depth > MAX_DEPTH) {
    // Too deep to walk: flatten to text so nothing escapes stripping.
    const text = jsonText(value);
    const r = stripPrivate(text);
    return { value: r.text, removed: r.removed };
  }
  let removed = 0;
  if (Array.isArray(value)) {
    const arr = value.map((v) => {
      const r = stripDeep(v, depth + 1);
      removed += r.removed;
      return r.value;
    });
    return { value: arr, removed };
  }
  const obj: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = stripPrivate(k);
    if (key.removed > 0) {
      removed += key.removed;
      continue;
    }
    const r = stripDeep(v, depth + 1);
    removed += r.removed;
    obj[k] = r.value;
  }
  return { value: obj, removed };
}
