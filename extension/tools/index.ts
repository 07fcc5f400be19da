// Every language-model tool, in the order package.json lists them. No vscode import.
import { contextTool } from './context';
import { getTool } from './get';
import { saveTool } from './save';
import { searchTool } from './search';
import { timelineTool } from './timeline';
import type { MemoryTool } from './types';

export const TOOLS: ReadonlyArray<MemoryTool<unknown>> = [searchTool, timelineTool, getTool, saveTool, contextTool];
