// Cutting long text to a budget: head and tail kept, a marker with the original size between.
// Private blocks are stripped first, so a cut can never keep the tail of a block whose opening
// tag fell in the elided middle. Pure string code.
import { stripPrivate } from './tags';

/** Keeps the head (60%) and tail of text already free of private blocks. */
export function cutStripped(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 64);
  const head = Math.ceil(keep * 0.6);
  const tail = keep - head;
  return `${text.slice(0, head)}\n…[${text.length - keep} of ${text.length} characters elided]…\n${text.slice(text.length - tail)}`;
}

/** Strips private blocks, then keeps the head and tail of what is left. */
export function cutText(text: string, max: number): string {
  return cutStripped(text.indexOf('<') < 0 ? text : stripPrivate(text).text, max);
}
