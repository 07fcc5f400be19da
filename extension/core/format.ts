// Plain-text and markdown renderings of memory for chat, tools and the palette. No vscode import.
import { recordRef, typeEmoji, type Observation } from '../../common/contract';
import type { SearchHit } from './memoryApi';

/** The emoji of an observation type or record kind (common/contract/taxonomy.ts). */
export const typeIcon = typeEmoji;

export function shortTime(iso: string | undefined): string {
  if (!iso) return '';
  return iso.slice(0, 16).replace('T', ' ');
}

/** `#12` for an observation, `S4` for a summary, `P9` for a prompt (common/contract/refs.ts). */
export function ref(h: Pick<SearchHit, 'id' | 'kind'>): string {
  return recordRef(h.kind, h.id);
}

export function hitLine(h: SearchHit): string {
  const bits = [ref(h), shortTime(h.time), `[${h.type}]`, h.title];
  if (h.tokens !== undefined) bits.push(`(~${h.tokens} tokens)`);
  bits.push(freshnessNote(h));
  return bits.filter(Boolean).join(' ');
}

/** Freshness said wherever a hit is shown (chat, tools): a stale memory is never passed off as fact. */
export function freshnessNote(h: Pick<SearchHit, 'freshness' | 'staleReason' | 'branch' | 'otherBranch'>): string {
  const parts: string[] = [];
  if (h.freshness === 'stale') parts.push(`MAY BE STALE: ${h.staleReason ?? 'a cited file changed since'}; verify before relying on it`);
  else if (h.freshness === 'retired') parts.push('RETIRED: no longer true');
  if (h.otherBranch && h.branch) parts.push(`from branch ${h.branch}`);
  return parts.length ? `[${parts.join('; ')}]` : '';
}

export function hitsText(hits: SearchHit[]): string {
  return hits.map(hitLine).join('\n');
}

export function hitsMarkdown(hits: SearchHit[]): string {
  return hits.map((h) => `- ${typeIcon(h.type)} **${ref(h)}** ${escapeMd(h.title)}${h.time ? ` _(${shortTime(h.time)}${h.project ? `, ${escapeMd(h.project)}` : ''}${h.platform ? `, ${escapeMd(h.platform)}` : ''})_` : ''}${freshnessNote(h) ? ` ⚠️ ${escapeMd(freshnessNote(h))}` : ''}`).join('\n');
}

export function observationText(o: Observation): string {
  const lines = [`${recordRef('observation', o.id)} [${o.type}] ${o.title}`, `project: ${o.project} · ${shortTime(o.createdAt)}${o.toolName ? ` · from ${o.toolName}` : ''}`];
  const f = o.freshness;
  if (f?.status === 'stale') lines.push(`MAY BE STALE: ${f.reason ?? 'a cited file changed since'}; verify against the code before relying on it.`);
  else if (f?.status === 'retired') lines.push(`RETIRED: no longer true${f.replacedBy ? `; see #${f.replacedBy}` : ''}.`);
  if (f?.otherBranch && f.branch) lines.push(`Recorded on branch ${f.branch}, not the current one.`);
  if (o.subtitle) lines.push(o.subtitle);
  if (o.narrative) lines.push(o.narrative);
  if (o.facts.length) lines.push('facts:', ...o.facts.map((f) => `- ${f}`));
  if (o.concepts.length) lines.push(`concepts: ${o.concepts.join(', ')}`);
  if (o.filesRead.length) lines.push(`files read: ${o.filesRead.join(', ')}`);
  if (o.filesModified.length) lines.push(`files modified: ${o.filesModified.join(', ')}`);
  return lines.join('\n');
}

export function observationMarkdown(o: Observation): string {
  const out = [`### ${typeIcon(o.type)} ${recordRef('observation', o.id)} ${escapeMd(o.title)}`, `_${o.type} · ${escapeMd(o.project)} · ${shortTime(o.createdAt)}${o.toolName ? ` · ${o.toolName}` : ''}_`, ''];
  if (o.subtitle) out.push(escapeMd(o.subtitle), '');
  if (o.narrative) out.push(escapeMd(o.narrative), '');
  if (o.facts.length) out.push(...o.facts.map((f) => `- ${escapeMd(f)}`), '');
  if (o.concepts.length) out.push(`**Concepts:** ${o.concepts.map(escapeMd).join(', ')}`);
  if (o.filesRead.length) out.push(`**Read:** ${o.filesRead.map((f) => `\`${f}\``).join(', ')}`);
  if (o.filesModified.length) out.push(`**Modified:** ${o.filesModified.map((f) => `\`${f}\``).join(', ')}`);
  return out.join('\n');
}

/** Escapes markdown control characters (and HTML) in text that came from memory. */
export function escapeMd(s: string): string {
  return s.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

/** Observation ids cited as `#123` (or `[#123]`) in a model's answer, in order, without repeats. */
export function citedIds(text: string): number[] {
  const seen = new Set<number>();
  for (const m of text.matchAll(/(?<![\w&])#(\d{1,9})\b/g)) seen.add(Number(m[1]));
  return [...seen];
}
