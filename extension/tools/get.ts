// get_memories: full records by id, the last step after search or timeline.
import { recordRef } from '../../common/contract';
import { observationText } from '../core/format';
import { ENGLISH } from '../core/l10n';
import { obj, ToolInputError, type MemoryTool } from './types';

export interface GetInput {
  ids: number[];
}

export const getTool: MemoryTool<GetInput> = {
  manifest: {
    name: 'get_memories',
    displayName: 'Get Memories',
    toolReferenceName: 'getMemories',
    legacyToolReferenceFullNames: ['memoryGet'],
    canBeReferencedInPrompt: true,
    icon: '$(note)',
    tags: ['memory', 'claude-mem'],
    userDescription: 'Read remembered observations in full by id.',
    modelDescription:
      'Fetches full observation records from the persistent project memory by id: title, narrative, facts, concepts, files read and modified, and when it happened. Use it after search_memory or get_memory_timeline with the ids (numbers, as in `#123`) whose rows looked relevant; ask only for the ids you need (each record costs tokens). Cite the ids you used as #123 in your answer.',
    inputSchema: {
      type: 'object',
      properties: {
        ids: { type: 'array', items: { type: 'number' }, description: 'Observation ids, e.g. [123, 456]. At most 20.' },
      },
      required: ['ids'],
    },
  },
  parse(input) {
    const o = obj(input);
    let raw = o.ids;
    if (typeof raw === 'string') raw = raw.split(/[\s,]+/).filter(Boolean).map((x) => Number(x.replace(/^#/, '')));
    if (typeof raw === 'number') raw = [raw];
    if (!Array.isArray(raw) || raw.length === 0) throw new ToolInputError("'ids' must be a non-empty array of observation ids");
    const ids = raw.map((x) => (typeof x === 'string' ? Number(x.replace(/^#/, '')) : x));
    if (!ids.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x > 0)) throw new ToolInputError("'ids' must hold positive integers");
    return { ids: [...new Set(ids as number[])].slice(0, 20) };
  },
  invocationMessage: (i, l10n = ENGLISH) => l10n.t('Reading memories {0}', i.ids.map((x) => recordRef('observation', x)).join(', ')),
  async run(i, deps) {
    const found = await deps.api.get(i.ids);
    const missing = i.ids.filter((id) => !found.some((o) => o.id === id));
    const parts = found.map(observationText);
    if (missing.length) parts.push(`Not found: ${missing.map((x) => recordRef('observation', x)).join(', ')}`);
    return parts.join('\n\n---\n\n') || 'None of these ids exist.';
  },
};
