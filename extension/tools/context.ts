// get_memory_context: the project's injected context, what a new session sees first.
import { ENGLISH } from '../core/l10n';
import { obj, type MemoryTool } from './types';

export type ContextInput = Record<string, never>;

export const contextTool: MemoryTool<ContextInput> = {
  manifest: {
    name: 'get_memory_context',
    displayName: 'Project Memory Context',
    toolReferenceName: 'getMemoryContext',
    legacyToolReferenceFullNames: ['memoryContext'],
    canBeReferencedInPrompt: true,
    icon: '$(book)',
    tags: ['memory', 'context', 'claude-mem'],
    userDescription: "Load this project's memory: recent work, the latest session summary, and how to dig deeper.",
    modelDescription:
      "Returns this workspace project's memory overview, the same context Claude Code sessions receive at start: a day-grouped index of recent observations (`#id time type title`), the latest session summary (what was asked, learned, completed and left as next steps), and token costs. Call it once at the start of a task in this project, or when the user refers to earlier work without details, before searching or reading code; then use search_memory / get_memories for specifics. Takes no input.",
    inputSchema: { type: 'object', properties: {} },
  },
  parse(input) {
    if (input !== undefined && input !== null) obj(input);
    return {};
  },
  invocationMessage: (_i, l10n = ENGLISH) => l10n.t('Loading the project memory'),
  async run(_i, deps) {
    return deps.context();
  },
};
