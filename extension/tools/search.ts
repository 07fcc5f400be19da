// search_memory: the first step of "search, then timeline, then fetch by id".
import { RERANK_TOP } from '../chat/modelRerank';
import { OBSERVATION_TYPES } from '../../common/contract';
import { hitsText } from '../core/format';
import { ENGLISH } from '../core/l10n';
import { obj, optInt, optStr, ToolInputError, type MemoryTool } from './types';

export interface SearchInput {
  query: string;
  type?: string;
  limit: number;
  allProjects: boolean;
}

export const searchTool: MemoryTool<SearchInput> = {
  manifest: {
    name: 'search_memory',
    displayName: 'Search Memory',
    toolReferenceName: 'searchMemory',
    legacyToolReferenceFullNames: ['memorySearch'],
    canBeReferencedInPrompt: true,
    icon: '$(search)',
    tags: ['memory', 'search', 'claude-mem'],
    userDescription: 'Search what past coding sessions in this project did and learned.',
    modelDescription:
      "Searches the persistent memory of past coding sessions in this workspace's project: observations of edits, bug fixes, decisions, commands run and their failures, and session summaries, recorded across earlier chats, editor sessions and Claude Code runs. Use it BEFORE exploring the code when the user asks about earlier work, why something is the way it is, how a past bug was fixed, what was decided, or what happened to a file, and when starting on a task that may have history. Returns compact index rows (`#id date [type] title (~tokens to read)`), not full records: pick the relevant ids, then call get_memories for full details or get_memory_timeline to see what happened around one. Queries work best as a few keywords (file names, function names, error text, topics).",
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Keywords to search for: file or symbol names, error text, topics.' },
        type: {
          type: 'string',
          enum: [...OBSERVATION_TYPES],
          description: 'Only observations of this type.',
        },
        limit: { type: 'number', description: 'Most rows to return (default 10, at most 50).' },
        allProjects: { type: 'boolean', description: 'Search every project, not just this workspace (default false).' },
      },
      required: ['query'],
    },
  },
  parse(input) {
    const o = obj(input);
    const query = optStr(o, 'query', 500)?.trim();
    if (!query) throw new ToolInputError("'query' is required: a few keywords to search for");
    return { query, type: optStr(o, 'type', 40), limit: optInt(o, 'limit', 1, 50) ?? 10, allProjects: o.allProjects === true };
  },
  invocationMessage: (i, l10n = ENGLISH) => l10n.t('Searching memory for "{0}"', i.query),
  async run(i, deps, signal) {
    const searched = await deps.api.search(i.query, { project: i.allProjects ? undefined : deps.project(), type: i.type, limit: deps.rerank ? Math.max(RERANK_TOP, i.limit) : i.limit });
    // Only when it decides which hits are shown (more than the limit came back).
    const r = deps.rerank && searched.hits.length > i.limit ? { ...searched, hits: (await deps.rerank(i.query, searched.hits, signal)).slice(0, i.limit) } : searched;
    const head = r.notice ? `(${r.notice})\n` : '';
    if (r.hits.length === 0) return `${head}No memory matches "${i.query}"${i.allProjects ? '' : ` in project ${deps.project()}`}. Try other keywords or allProjects: true.`;
    return `${head}${r.hits.length} result(s) for "${i.query}":\n${hitsText(r.hits)}\n\nNext: get_memories with the ids that look relevant, or get_memory_timeline with an id as anchor.`;
  },
};
