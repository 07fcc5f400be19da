// `claude-mem` command line. dist/cli.js holds only this dispatcher and the hook path, which must
// start as fast as bare node (bench/hooks.mjs). The terminal commands live in dist/cli-tools.js and
// the MCP server (which needs the SDK) in dist/mcp.js; both are loaded only when asked for.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HOOK_NAMES } from '../common/contract/hooks';

declare const __VERSION__: string;

const TOOLS = ['start', 'stop', 'status', 'install', 'uninstall', 'viewer', 'search', 'reindex', 'recover', 'team'];

/** Loads a bundle that sits beside this one. A computed path, so esbuild leaves it out of cli.js. */
function beside<T>(file: string): T | undefined {
  const p = join(__dirname, file);
  if (!existsSync(p)) {
    process.stderr.write(`claude-mem: ${p} is missing; rebuild with npm run build\n`);
    return undefined;
  }
  const load = require;
  return load(p) as T;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === 'hook') return (await import('./hooks/run')).runHook(rest);
  if (cmd !== undefined && TOOLS.includes(cmd)) {
    const tools = beside<{ runTool(cmd: string, args: string[]): Promise<number | undefined> }>('cli-tools.js');
    return tools ? ((await tools.runTool(cmd, rest)) ?? 2) : 1;
  }
  if (cmd === 'mcp') {
    const mcp = beside<{ runMcpServer(args: string[]): Promise<number> }>('mcp.js');
    return mcp ? mcp.runMcpServer(rest) : 1;
  }
  if (cmd === undefined || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (cmd === 'version' || cmd === '--version') {
    process.stdout.write(`${typeof __VERSION__ === 'string' ? __VERSION__ : 'dev'}\n`);
    return 0;
  }
  process.stderr.write(`unknown command "${cmd}"\n${USAGE}`);
  return 2;
}

const USAGE = `usage: claude-mem <command>
  start                     start the worker in the background and wait until it is healthy
  stop                      stop the worker gracefully (the journal already holds every write)
  status                    print the worker's health
  viewer [--print]          open the browser viewer (a single-use link, never the token)
  search <query> [--project P | --all] [--limit N] [--type T] [--mode keyword|semantic|hybrid] [--json]
                            search memory from the terminal
  reindex [--project P] [--reembed] [--json]
                            rebuild the semantic-search vector indexes from the database (every
                            project unless --project); --reembed embeds every record again
  recover [--accept-loss] [--json]
                            with the worker stopped: rebuild the database from db/ and report what is
                            lost; --accept-loss makes the worker start (ready) with what was rebuilt
  install claude-code [--user | --project [dir]] [--no-mcp]
                            add claude-mem's hooks (and MCP server) to Claude Code's settings
  uninstall claude-code [--user | --project [dir]]
                            remove exactly what install added
  install vscode-agent [--user | --workspace [dir]] [--launcher]
                            add claude-mem's hooks to VS Code's agent hooks (~/.copilot/hooks/claude-mem.json,
                            or .github/hooks/claude-mem.json); --launcher runs them through <data dir>/bin/claude-mem
  uninstall vscode-agent [--user | --workspace [dir]]
  team <status|share|unshare|sync|connect> [project] [--team T]
                            share chosen projects' memory through a PostgreSQL hub (docs/team.md)
  mcp                       run the MCP server on stdio (Claude Code starts it)
  hook <claude-code|vscode-agent|copilot-cli|codex|gemini-cli|auto> <${HOOK_NAMES.join('|')}>
                            one hook event; reads the platform's JSON on stdin (a payload of another
                            platform is recognised: VS Code runs Claude Code's hooks too)
`;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`claude-mem: ${e.message}\n`);
    process.exit(1);
  },
);
