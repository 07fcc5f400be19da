// get_memory_timeline: what happened around one observation, summary or moment.
import { routeRef } from '../../common/contract';
import { hitsText } from '../core/format';
import { ENGLISH } from '../core/l10n';
import { obj, optInt, optStr, ToolInputError, type MemoryTool } from './types';

export interface TimelineInput {
  anchor?: string;
  query?: string;
  before: number;
  after: number;
}

export const timelineTool: MemoryTool<TimelineInput> = {
  manifest: {
    name: 'get_memory_timeline',
    displayName: 'Memory Timeline',
    toolReferenceName: 'getMemoryTimeline',
    legacyToolReferenceFullNames: ['memoryTimeline'],
    canBeReferencedInPrompt: true,
    icon: '$(history)',
    tags: ['memory', 'timeline', 'claude-mem'],
    userDescription: 'Show what happened before and after a remembered event.',
    modelDescription:
      "Shows the chronological context around one point in this project's memory: the observations, prompts and summaries recorded just before and after it. Give `anchor` as an observation id from search_memory (e.g. 123), a summary id prefixed with S (e.g. S12), or an ISO date-time; or give `query` and the best search hit becomes the anchor. Use it to understand the sequence of a past change or investigation (what led to a fix, what followed a decision). Returns compact rows; fetch full records with get_memories.",
    inputSchema: {
      type: 'object',
      properties: {
        anchor: { type: 'string', description: 'Observation id (123), summary id (S12) or ISO date-time to center on.' },
        query: { type: 'string', description: 'Instead of an anchor: keywords; the best search hit is used as anchor.' },
        depth_before: { type: 'number', description: 'Rows before the anchor (default 5).' },
        depth_after: { type: 'number', description: 'Rows after the anchor (default 5).' },
      },
    },
  },
  parse(input) {
    const o = obj(input);
    const rawAnchor = o.anchor;
    const anchor = typeof rawAnchor === 'number' ? String(rawAnchor) : optStr(o, 'anchor', 100)?.trim().replace(/^#/, '');
    const query = optStr(o, 'query', 500)?.trim();
    if (!anchor && !query) throw new ToolInputError("give 'anchor' (an id like 123 or S12, or an ISO time) or 'query'");
    return { anchor, query, before: optInt(o, 'depth_before', 0, 50) ?? 5, after: optInt(o, 'depth_after', 0, 50) ?? 5 };
  },
  invocationMessage: (i, l10n = ENGLISH) => l10n.t('Reading the memory timeline around {0}', i.anchor ?? `"${i.query}"`),
  async run(i, deps) {
    let anchor = i.anchor;
    if (!anchor && i.query) {
      const s = await deps.api.search(i.query, { project: deps.project(), limit: 1 });
      const top = s.hits[0];
      if (!top) return `No memory matches "${i.query}", so there is no anchor for a timeline.`;
      anchor = routeRef(top.kind, top.id);
    }
    const r = await deps.api.timeline(anchor as string, { project: deps.project(), before: i.before, after: i.after });
    if (r.hits.length === 0) return `Nothing recorded around ${anchor}.`;
    return `Timeline around ${anchor} (oldest first):\n${hitsText(r.hits)}\n\nNext: get_memories with the ids worth reading in full.`;
  },
};
