// Snippets in JS rather than FTS4's snippet(): only the rows of the page need one, and snippet()
// inside a ranked query would run for every match. A query word matches a text word that starts
// with the word's stem (a crude suffix strip; porter stemming is for matching, not for display).

import { TOKEN_CHARS } from './ftsQuery';

const SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'es', 'ed', 'ly', 's', 'e', 'y'];

export function stem(word: string): string {
  const w = word.toLowerCase();
  for (const s of SUFFIXES) if (w.length - s.length >= 3 && w.endsWith(s)) return w.slice(0, -s.length);
  return w;
}

// Words as the index cuts them (ftsQuery.ts), so a highlighted word is a matched one.
const WORD = new RegExp(`[${TOKEN_CHARS}]+`, 'g');

/**
 * The text as one line: an escaped newline, white space, `[` and `]` (a JSON list's) are spaces,
 * double quotes go, and each run of them is one space (none for a run of quotes alone), trimmed.
 * One pass (a lone space between two words is no run: left as it is) rather than a copy of the
 * whole text per rule: a page's snippets were most of what a search allocated.
 */
const SEPARATORS = /(?:\\n|[\s[\]"])*(?:\\n|[^\S ]|[[\]"]| {2})(?:\\n|[\s[\]"])*/g;
const QUOTES = /^"+$/;

export function flatten(text: string): string {
  return text.replace(SEPARATORS, (run) => (run.charCodeAt(0) === 34 && QUOTES.test(run) ? '' : ' ')).trim();
}

/** About `width` characters of text around the densest run of query words, matches in **bold**. */
export function makeSnippet(text: string, words: string[], width = 180): string {
  const flat = flatten(text);
  if (flat === '') return '';
  const stems = [...new Set(words.map(stem).filter((s) => s.length > 0))];
  const hits = stems.length > 0 ? findHits(flat, stems) : [];
  if (hits.length === 0) return cut(flat, 0, width);
  // The window of `width` characters holding the most hits.
  let best = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    while (j < hits.length && hits[j].end - hits[i].start <= width) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      best = i;
    }
  }
  const start = Math.max(0, Math.min(hits[best].start - 30, flat.length - width));
  const windowStart = start > 0 ? flat.indexOf(' ', start) + 1 || start : 0;
  const end = Math.min(flat.length, windowStart + width);
  let out = '';
  let pos = windowStart;
  for (const h of hits) {
    if (h.start < windowStart || h.end > end) continue;
    out += flat.slice(pos, h.start) + '**' + flat.slice(h.start, h.end) + '**';
    pos = h.end;
  }
  out += flat.slice(pos, end);
  return (windowStart > 0 ? '…' : '') + out.trim() + (end < flat.length ? '…' : '');
}

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /^[A-Za-z0-9_]+$/;

/** Whether the character code is part of a word in ASCII text ([A-Za-z0-9_], TOKEN_CHARS). */
function wordCode(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** Words of flat (as WORD cuts them) that start with a stem, case aside, in order. */
function findHits(flat: string, stems: string[]): { start: number; end: number }[] {
  const hits: { start: number; end: number }[] = [];
  if (ASCII.test(flat) && stems.every((s) => ASCII_WORD.test(s))) {
    // Each stem looked for in the lower-cased text, kept where a word starts, instead of every word's
    // lower case compared with every stem: most of what building a page cost. In ASCII text the lower
    // case has the same length and words (and a regular expression of the stems would be compiled
    // again for each query).
    const lower = flat.toLowerCase();
    const byStart = new Map<number, number>();
    for (const s of stems) {
      for (let at = lower.indexOf(s); at >= 0; at = lower.indexOf(s, at + 1)) {
        if (at > 0 && wordCode(lower.charCodeAt(at - 1))) continue;
        let end = at + s.length;
        while (end < lower.length && wordCode(lower.charCodeAt(end))) end++;
        byStart.set(at, end);
      }
    }
    for (const start of [...byStart.keys()].sort((a, b) => a - b)) hits.push({ start, end: byStart.get(start) as number });
    return hits;
  }
  for (let m = WORD.exec(flat); m; m = WORD.exec(flat)) {
    const w = m[0].toLowerCase();
    if (stems.some((s) => w.startsWith(s))) hits.push({ start: m.index, end: m.index + m[0].length });
  }
  WORD.lastIndex = 0;
  return hits;
}

function cut(text: string, start: number, width: number): string {
  if (text.length <= width) return text;
  const end = text.lastIndexOf(' ', start + width);
  return text.slice(start, end > start + width / 2 ? end : start + width) + '…';
}
