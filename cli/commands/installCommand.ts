// claude-mem install|uninstall claude-code [--user|--project [dir]] [--no-mcp] [--node PATH] [--cli PATH] [--launcher]
// claude-mem install|uninstall vscode-agent [--user|--workspace [dir]] [--node PATH] [--cli PATH] [--launcher]
import * as path from 'node:path';
import { defaultDataDir } from '../../common/node/config';
import {
  InstallError,
  installClaudeCode,
  installVscodeAgent,
  uninstallClaudeCode,
  uninstallVscodeAgent,
  type FileChange,
  type InstallOptions,
  type VscodeInstallOptions,
} from '../../common/node/install';
import { writeLauncher } from '../../common/node/launcher';

const USAGE =
  'usage: claude-mem install|uninstall claude-code [--user | --project [dir]] [--no-mcp] [--node PATH] [--cli PATH] [--launcher]\n' +
  '       claude-mem install|uninstall vscode-agent [--user | --workspace [dir]] [--node PATH] [--cli PATH] [--launcher]\n';

type Parsed = { target: 'claude-code'; o: InstallOptions; launcher: boolean } | { target: 'vscode-agent'; o: VscodeInstallOptions; launcher: boolean };

function parseArgs(args: string[]): Parsed {
  const [target, ...rest] = args;
  if (target !== 'claude-code' && target !== 'vscode-agent') throw new InstallError(`unknown target "${target ?? ''}"; expected claude-code or vscode-agent\n${USAGE}`);
  const o: { scope: string; projectDir?: string; mcp?: boolean; nodePath?: string; cliPath?: string } = { scope: 'user' };
  let launcher = false;
  const dirScope = target === 'claude-code' ? '--project' : '--workspace';
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new InstallError(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--user') o.scope = 'user';
    else if (a === dirScope) {
      o.scope = target === 'claude-code' ? 'project' : 'workspace';
      if (rest[i + 1] !== undefined && !rest[i + 1].startsWith('--')) o.projectDir = path.resolve(rest[++i]);
    } else if (a === '--no-mcp' && target === 'claude-code') o.mcp = false;
    else if (a === '--node') o.nodePath = path.resolve(value());
    else if (a === '--cli') o.cliPath = path.resolve(value());
    else if (a === '--launcher') launcher = true;
    else throw new InstallError(`unknown option "${a}"\n${USAGE}`);
  }
  return target === 'claude-code'
    ? { target, o: o as InstallOptions, launcher }
    : { target, o: o as VscodeInstallOptions, launcher };
}

/** --launcher: (re)write <data dir>/bin/claude-mem for this install and point the entries at it. */
function withLauncher<T extends { nodePath?: string; cliPath?: string; launcher?: string }>(o: T): T {
  const { file } = writeLauncher({
    dataDir: defaultDataDir(process.env),
    node: o.nodePath ?? process.execPath,
    cli: o.cliPath ?? path.join(__dirname, 'cli.js'),
    runAsNode: typeof process.versions.electron === 'string',
  });
  return { ...o, launcher: file };
}

function describe(c: FileChange | undefined, label: string): string {
  if (!c) return '';
  if (c.skipped) return `  ${label}: ${c.skipped}\n`;
  if (!c.changed) return `  ${label}: ${c.file} (already up to date)\n`;
  return `  ${label}: ${c.file} (updated${c.backup ? `; backup at ${c.backup}` : ''})\n`;
}

export function runInstallCommand(cmd: 'install' | 'uninstall', args: string[]): number {
  try {
    const p = parseArgs(args);
    if (p.target === 'vscode-agent') {
      if (cmd === 'install') {
        const r = installVscodeAgent(p.launcher ? withLauncher(p.o) : p.o);
        process.stdout.write(`claude-mem hooks installed for VS Code agent sessions (${r.scope})\n${describe(r.file, 'hooks')}`);
        process.stdout.write('  run by: VS Code agent sessions (Local harness), Copilot on the VS Code Agent Host, Copilot CLI\n');
        process.stdout.write(`  hook command: ${r.commands[0]}\n  undo: claude-mem uninstall vscode-agent --${r.scope}\n`);
      } else {
        const r = uninstallVscodeAgent(p.o);
        process.stdout.write(`claude-mem removed from VS Code agent hooks (${r.scope}): ${r.file.removed} hook command(s)\n${describe(r.file, 'hooks')}`);
      }
      return 0;
    }
    const o = p.launcher && cmd === 'install' ? withLauncher(p.o) : p.o;
    if (cmd === 'install') {
      const r = installClaudeCode(o);
      process.stdout.write(`claude-mem hooks installed for Claude Code (${r.scope} settings)\n${describe(r.settings, 'hooks')}${describe(r.mcp, 'MCP server')}`);
      process.stdout.write('  run by: Claude Code; VS Code agent sessions too when chat.useClaudeHooks is on (off by default)\n');
      process.stdout.write(`  hook command: ${r.commands[0]}\n  undo: claude-mem uninstall claude-code --${r.scope}\n`);
    } else {
      const r = uninstallClaudeCode(o);
      process.stdout.write(`claude-mem removed from Claude Code (${r.scope} settings): ${r.settings.removed} hook command(s)\n${describe(r.settings, 'hooks')}${describe(r.mcp, 'MCP server')}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof InstallError) {
      process.stderr.write(`claude-mem ${cmd}: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
