// Small formatting pieces of the injected context: icons, the legend, local day and time, and
// text cleaning (one line, bounded, and never a tag that could close or open our wrapper early).
import { typeEmoji, typeLegend } from '../../common/contract/taxonomy';

/** The legend of the injected context's icons (common/contract/taxonomy.ts). */
export const LEGEND = `${typeLegend()} · rows are \`#id time icon title (~tokens to read in full)\``;

/** The icon of an observation type, or of a summary. */
export const iconOf = typeEmoji;

const pad = (n: number) => String(n).padStart(2, '0');

/** Local date, YYYY-MM-DD. */
export function dayOf(epoch: number): string {
  const d = new Date(epoch);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Local time, HH:MM. */
export function timeOf(epoch: number): string {
  const d = new Date(epoch);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** One line, at most max characters, with our wrapper tags defused. */
export function clean(text: string, max: number): string {
  const one = text
    .replace(/<(\/?)\s*(claude-mem-context|private)/gi, '‹$1$2')
    .replace(/\s+/g, ' ')
    .trim();
  return one.length > max ? one.slice(0, Math.max(0, max - 1)).trimEnd() + '…' : one;
}
