// The text embedded for a record: what it is about, most telling parts first (the encoder
// averages over its input, and long inputs are cut at about 2,000 characters). Facts are left
// out: they are mostly file paths and figures, which a sentence encoder reads as noise (on the
// search fixture, title + subtitle + narrative ranks answers better than with facts: recall@5
// 0.79 vs 0.72). t2 puts the type in words before the title (dev set semantic 0.846 -> 0.885;
// splitting identifiers and paths into words was tried too and lowered it to 0.808), and appends
// the search phrases a compression model wrote (doc expansion, expansion.ts) when there are any.
// Changing the recipe changes EMBED_TEXT_VERSION, which re-embeds everything.

import { phrasesFromFacts } from './expansion';
import { OBSERVATION_TYPE_INFO, OBSERVATION_TYPES } from '../../common/contract/taxonomy';
import type { ObservationRow } from '../store/repos/observations';
import type { SummaryRow } from '../store/repos/summaries';

/** Part of the model id stored with each vector (see vectorModelId). */
const EMBED_TEXT_VERSION = 't2';

/** What `vectors.model` holds: the embedder and the text recipe. */
export function vectorModelId(embedderName: string): string {
  return `${embedderName}#${EMBED_TEXT_VERSION}`;
}

/** The columns an observation's text is made of; of its facts (a JSON list) only the search phrases (expansion.ts). */
export type ObservationText = Pick<ObservationRow, 'type' | 'facts' | 'title' | 'subtitle' | 'narrative'>;
export type SummaryText = Pick<SummaryRow, 'request' | 'investigated' | 'learned' | 'completed' | 'next_steps' | 'notes'>;

const MAX = 2000;

/** The type as words in front of the title: "Decision: …" moves a decision towards "why did we …" questions. */
const LABEL: Record<string, string> = Object.fromEntries(OBSERVATION_TYPES.map((t) => [t, OBSERVATION_TYPE_INFO[t].label]));

export function observationEmbedText(o: ObservationText): string {
  const label = o.type && LABEL[o.type] ? `${LABEL[o.type]}: ` : '';
  const phrases = phrasesFromFacts(o.facts);
  return join([label + o.title, o.subtitle ?? '', o.narrative ?? '', phrases.length > 0 ? `Search: ${phrases.join('; ')}` : '']);
}

export function summaryEmbedText(s: SummaryText): string {
  return join([s.request ?? '', s.completed ?? '', s.learned ?? '', s.investigated ?? '', s.next_steps ?? '', s.notes ?? '']);
}

function join(parts: string[]): string {
  const text = parts
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p !== '')
    .join('. ');
  return text.length > MAX ? text.slice(0, MAX) : text;
}
