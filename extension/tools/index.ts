// Every language-model tool, in the order package.json lists them. No vscode import.
// Names follow VS Code's {verb}_{noun} guidance; the 0.1 names (memory_search, ...) stay as
// aliases for one release: same tool, hidden from the tool picker and agent mode
// (canBeReferencedInPrompt: false), still callable by name through vscode.lm.invokeTool.
import { contextTool } from './context';
import { getTool } from './get';
import { saveTool } from './save';
import { searchTool } from './search';
import { timelineTool } from './timeline';
import type { MemoryTool } from './types';

const CURRENT: ReadonlyArray<MemoryTool<unknown>> = [searchTool, timelineTool, getTool, saveTool, contextTool] as ReadonlyArray<MemoryTool<unknown>>;

/** Old name -> current name. Remove after the next release (CHANGELOG says so). */
export const TOOL_ALIASES: Readonly<Record<string, string>> = {
  memory_search: 'search_memory',
  memory_timeline: 'get_memory_timeline',
  memory_get: 'get_memories',
  memory_save: 'save_memory',
  memory_context: 'get_memory_context',
};

function alias(oldName: string, tool: MemoryTool<unknown>): MemoryTool<unknown> {
  const { toolReferenceName: _ref, legacyToolReferenceFullNames: _legacy, icon: _icon, ...rest } = tool.manifest;
  return {
    ...tool,
    manifest: {
      ...rest,
      name: oldName,
      displayName: `${tool.manifest.displayName} (old name)`,
      toolReferenceName: oldName.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
      canBeReferencedInPrompt: false,
      tags: [...tool.manifest.tags, 'deprecated'],
      userDescription: `Old name of ${tool.manifest.name}, kept for one release.`,
      modelDescription: `Deprecated: old name of ${tool.manifest.name} (removed in the next release); call ${tool.manifest.name} instead. ${tool.manifest.modelDescription}`,
    },
  };
}

const byName = new Map(CURRENT.map((t) => [t.manifest.name, t]));

/** The current tools, then their old-name aliases. */
export const TOOLS: ReadonlyArray<MemoryTool<unknown>> = [
  ...CURRENT,
  ...Object.entries(TOOL_ALIASES).map(([oldName, name]) => alias(oldName, byName.get(name)!)),
];
