// Removes <private>…</private> and <claude-mem-context>…</claude-mem-context> blocks.
// A hand-written linear scanner, not a regex: input is capped first, the tag count is capped,
// and every step moves forward, so adversarial input (1 MB of '<private<private…') stays linear.
// An opening tag with no closing tag hides everything after it: private is private.

export const PRIVATE_TAGS = ['private', 'claude-mem-context'] as const;
/** Inputs are cut to this many characters before scanning (callers cap earlier still). */
export const MAX_STRIP_INPUT = 4 * 1024 * 1024;
/** Past this many tags the rest of the input is dropped rather than scanned further. */
export const MAX_TAGS = 1000;

export interface StripResult {
  text: string;
  removed: number;
}

export function stripPrivate(input: string): StripResult {
  let text = input.length > MAX_STRIP_INPUT ? input.slice(0, MAX_STRIP_INPUT) : input;
  if (text.indexOf('<') < 0) return { text, removed: 0 };
  const lower = text.toLowerCase();
  let out = '';
  let pos = 0;
  let removed = 0;
  let scan = 0;
  while (scan < text.length) {
    const lt = lower.indexOf('<', scan);
    if (lt < 0) break;
    const tag = openingTagAt(lower, lt);
    if (!tag) {
      scan = lt + 1;
      continue;
    }
    out += text.slice(pos, lt);
    removed += 1;
    if (removed > MAX_TAGS) {
      pos = text.length;
      break;
    }
    const gt = lower.indexOf('>', lt + 1 + tag.length);
    if (gt < 0) {
      pos = text.length; // unterminated opening tag: drop the rest
      break;
    }
    const close = lower.indexOf(`</${tag}`, gt + 1);
    if (close < 0) {
      pos = text.length;
      break;
    }
    const closeEnd = lower.indexOf('>', close + 2 + tag.length);
    pos = closeEnd < 0 ? text.length : closeEnd + 1;
    scan = pos;
  }
  if (pos < text.length) out += text.slice(pos);
  text = removed > 0 ? out : text;
  return { text, removed };
}

/** The tag name at lt if it opens one of ours (`<private>`, `<private attr=…>`), else undefined. */
function openingTagAt(lower: string, lt: number): string | undefined {
  for (const t of PRIVATE_TAGS) {
    if (lower.startsWith(t, lt + 1)) {
      const after = lower.charCodeAt(lt + 1 + t.length);
      // '>' , whitespace or '/' must follow the name, so <privateer> is not a tag.
      if (after === 62 || after === 32 || after === 9 || after === 10 || after === 13 || after === 47) return t;
    }
  }
  return undefined;
}

/** Strips every string inside a JSON-like value; returns the cleaned value and how many tags went. */
export function stripDeep(value: unknown, depth = 0): { value: unknown; removed: number } {
  if (typeof value === 'string') {
    const r = stripPrivate(value);
    return { value: r.text, removed: r.removed };
  }
  if (value === null || typeof value !== 'object') return { value, removed: 0 };
  if (depth > 32) {
    // Too deep to walk: flatten to text so nothing escapes stripping.
    let text: string;
    try {
      text = JSON.stringify(value) ?? '';
    } catch {
      text = '';
    }
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
    const r = stripDeep(v, depth + 1);
    removed += r.removed;
    obj[k] = r.value;
  }
  return { value: obj, removed };
}
