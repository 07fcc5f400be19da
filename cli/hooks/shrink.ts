// Bounds what a hook sends: Claude Code can hand us megabytes of tool output, and the worker keeps
// only maxFieldChars of each field anyway. Long strings keep their head and tail (as the worker's
// capText does) so the structure stays valid JSON for the compressor. The cutter strips private
// blocks first (common/privacy/cut.ts): a block whose opening falls in the cut leaves no tail behind.
import { cutText as capText } from '../../common/privacy/cut';

/** Caps every string inside value at maxChars; also bounds depth and array length. */
export function shrinkDeep(value: unknown, maxChars: number, depth = 0): unknown {
  if (typeof value === 'string') return value.length > maxChars ? capText(value, maxChars) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32) return '[nested too deep]';
  if (Array.isArray(value)) {
    const out = value.slice(0, 1000).map((v) => shrinkDeep(v, maxChars, depth + 1));
    if (value.length > 1000) out.push(`…[${value.length - 1000} more items elided]`);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = shrinkDeep(v, maxChars, depth + 1);
  return out;
}

/**
 * A tool field ready to send: strings capped at maxChars, and if the whole field is still larger
 * than maxTotal characters once serialised, its JSON text capped instead.
 */
export function boundField(value: unknown, maxChars: number, maxTotal: number): unknown {
  if (value === undefined) return undefined;
  const v = shrinkDeep(value, maxChars);
  if (typeof v === 'string') return v;
  let text: string;
  try {
    text = JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
  return text.length > maxTotal ? capText(text, maxTotal) : v;
}
