// Doc expansion: the phrases a compression model expects a later question to use ("why is the list
// slow on later pages") are stored with the observation as one fact, "search phrases: a; b; c".
// A fact, so it needs no new column: the full-text index already weights facts (1.5), the detail
// view already shows them, exports carry them; the embedded text appends the phrases (embedText.ts).
const SEARCH_PHRASES_PREFIX = 'search phrases: ';

/** The fact to store for the model's phrases (none when there are none). */
export function searchPhrasesFact(phrases: readonly string[] | undefined): string[] {
  const clean = (phrases ?? []).map((p) => p.replace(/[;\s]+/g, ' ').trim()).filter((p) => p !== '');
  return clean.length > 0 ? [SEARCH_PHRASES_PREFIX + clean.join('; ')] : [];
}

/** The phrases back out of an observation's facts (JSON text or a list). */
export function phrasesFromFacts(facts: string | readonly string[] | null | undefined): string[] {
  let list: unknown = facts;
  if (typeof facts === 'string') {
    try {
      list = JSON.parse(facts);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  return list
    .filter((f): f is string => typeof f === 'string' && f.startsWith(SEARCH_PHRASES_PREFIX))
    .flatMap((f) => f.slice(SEARCH_PHRASES_PREFIX.length).split(';'))
    .map((p) => p.trim())
    .filter((p) => p !== '');
}
