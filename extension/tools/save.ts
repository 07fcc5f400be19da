// save_memory: keeps something worth remembering, confirmed by the user first.
import { recordRef } from '../../common/contract';
import { ENGLISH } from '../core/l10n';
import { obj, optStr, ToolInputError, type MemoryTool } from './types';

export interface SaveInput {
  text: string;
  title?: string;
}

export const saveTool: MemoryTool<SaveInput> = {
  manifest: {
    name: 'save_memory',
    displayName: 'Save to Memory',
    toolReferenceName: 'saveMemory',
    legacyToolReferenceFullNames: ['memorySave'],
    canBeReferencedInPrompt: true,
    icon: '$(save)',
    tags: ['memory', 'claude-mem'],
    userDescription: 'Save a note to the project memory.',
    modelDescription:
      "Saves a note to this project's persistent memory so that later sessions (in VS Code or Claude Code) can find it with search_memory and see it in their injected context. Use it when the user asks you to remember something, or when you reach a conclusion that future work will need: a decision and its reason, the root cause of a bug, a non-obvious convention or gotcha. Write self-contained text (a future reader has none of this conversation) with a short title. Never save secrets; text inside <private>…</private> is dropped.",
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'What to remember, self-contained.' },
        title: { type: 'string', description: 'A short title (under 80 characters).' },
      },
      required: ['text'],
    },
  },
  parse(input) {
    const o = obj(input);
    const text = optStr(o, 'text', 100_000)?.trim();
    if (!text) throw new ToolInputError("'text' is required: what to remember");
    return { text, title: optStr(o, 'title', 300)?.trim() };
  },
  invocationMessage: (i, l10n = ENGLISH) => l10n.t('Saving "{0}" to memory', i.title ?? i.text.slice(0, 60)),
  confirmation: (i, l10n = ENGLISH) => ({ title: l10n.t('Save to memory?'), message: `${i.title ? `**${i.title}**\n\n` : ''}${i.text.length > 600 ? `${i.text.slice(0, 600)}…` : i.text}` }),
  async run(i, deps) {
    const r = await deps.api.save(i.text, { title: i.title, project: deps.project() });
    return r.duplicate ? `Already in memory as ${recordRef('observation', r.id)} (project ${r.project}).` : `Saved to memory as ${recordRef('observation', r.id)} (project ${r.project}).`;
  },
};
