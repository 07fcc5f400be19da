import { createHash } from 'node:crypto';

/** Short, stable content hash used for de-duplication. */
export function contentHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 32);
}

/** Rough token estimate (4 characters a token), the unit every token figure here uses. */
export function estimateTokens(text: string | null | undefined): number {
  return text ? Math.ceil(text.length / 4) : 0;
}
