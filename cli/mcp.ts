// `claude-mem mcp`: a stdio MCP server with search_memory, get_memory_timeline, get_memories and
// save_memory (and, for one release, their old names search, timeline and get_observations).
// Built as its own bundle (dist/mcp.js) so the SDK never loads on the hook path.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { OBSERVATION_TYPES } from '../common/contract/taxonomy';
import { targetFromEnv } from './client';
import { DESCRIPTIONS, getObservationsTool, MCP_ALIASES, saveMemoryTool, searchTool, timelineTool, type ToolDeps, type ToolText } from './mcpTools';

declare const __VERSION__: string;

function result(t: ToolText): { content: Array<{ type: 'text'; text: string }>; isError?: boolean } {
  return { content: [{ type: 'text', text: t.text }], ...(t.isError ? { isError: true } : {}) };
}

async function guarded(fn: () => Promise<ToolText>) {
  try {
    return result(await fn());
  } catch (e) {
    return result({ text: `claude-mem: ${(e as Error).message}`, isError: true });
  }
}

interface ToolSpec {
  title: string;
  description: string;
  inputSchema: Record<string, z.ZodType>;
}
// The SDK checks the input against inputSchema before calling; the handlers type what it passes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (a: any) => Promise<ToolText>;

export function createMcpServer(deps: ToolDeps): McpServer {
  const server = new McpServer(
    { name: 'claude-mem', version: typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0' },
    {
      instructions:
        'Persistent memory of past coding sessions. Use it in three steps: `search_memory` for an index of matching memories, ' +
        '`get_memory_timeline` around an interesting id, then `get_memories` for full records of the few ids that matter. ' +
        '`save_memory` stores a note for later sessions. The old names search, timeline and get_observations still work for one release.',
    },
  );
  const tools: Record<keyof typeof DESCRIPTIONS, { spec: ToolSpec; run: Handler }> = {
    search_memory: {
      spec: {
        title: 'Search memory',
        description: DESCRIPTIONS.search_memory,
        inputSchema: {
          query: z.string().min(1).describe('Words to look for (keywords or a question)'),
          project: z.string().optional().describe('Project name; default the current project; "*" for all projects'),
          type: z.string().optional().describe(`Observation type: ${OBSERVATION_TYPES.join(', ')}`),
          concepts: z.string().optional().describe('Comma-separated concepts to require'),
          file: z.string().optional().describe('Only memories about this file path'),
          dateStart: z.string().optional().describe('ISO date: not before'),
          dateEnd: z.string().optional().describe('ISO date: not after'),
          limit: z.number().int().min(1).max(100).optional().describe('Rows to return (default 20)'),
          offset: z.number().int().min(0).optional(),
          mode: z.enum(['keyword', 'semantic', 'hybrid']).optional().describe('Ranking (default: the worker chooses)'),
        },
      },
      run: (a: Parameters<typeof searchTool>[1]) => searchTool(deps, a),
    },
    get_memory_timeline: {
      spec: {
        title: 'Memory timeline',
        description: DESCRIPTIONS.get_memory_timeline,
        inputSchema: {
          anchor: z.union([z.string(), z.number()]).describe('Observation id (123), summary id (S45) or ISO time'),
          depth_before: z.number().int().min(0).max(50).optional().describe('Items before the anchor (default 5)'),
          depth_after: z.number().int().min(0).max(50).optional().describe('Items after the anchor (default 5)'),
          project: z.string().optional().describe('Project name; "*" for all'),
        },
      },
      run: (a: Omit<Parameters<typeof timelineTool>[1], 'anchor'> & { anchor: string | number }) => timelineTool(deps, { ...a, anchor: String(a.anchor) }),
    },
    get_memories: {
      spec: {
        title: 'Fetch memories',
        description: DESCRIPTIONS.get_memories,
        inputSchema: {
          ids: z.array(z.union([z.number().int().positive(), z.string()])).min(1).max(100).describe('Observation ids, e.g. [12, 15]'),
        },
      },
      run: (a: Parameters<typeof getObservationsTool>[1]) => getObservationsTool(deps, a),
    },
    save_memory: {
      spec: {
        title: 'Save a memory',
        description: DESCRIPTIONS.save_memory,
        inputSchema: {
          text: z.string().min(1).describe('What to remember'),
          title: z.string().optional().describe('A short title'),
          project: z.string().optional().describe('Project name; default the current project'),
        },
      },
      run: (a: Parameters<typeof saveMemoryTool>[1]) => saveMemoryTool(deps, a),
    },
  };
  const register = (name: string, spec: ToolSpec, run: Handler) => server.registerTool(name, spec, (a: unknown) => guarded(() => run(a)));
  for (const [name, t] of Object.entries(tools)) register(name, t.spec, t.run);
  // Old names: listed (clients' allow-lists and saved prompts name them) with a short description.
  for (const [oldName, name] of Object.entries(MCP_ALIASES)) {
    const t = tools[name];
    register(oldName, { ...t.spec, title: `${t.spec.title} (old name)`, description: `Old name of ${name}, kept for one release: same input, same result. Prefer ${name}.` }, t.run);
  }
  return server;
}

export async function runMcpServer(_args: string[]): Promise<number> {
  const server = createMcpServer({ target: targetFromEnv(), cwd: process.cwd() });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
    process.stdin.on('close', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  return 0;
}
