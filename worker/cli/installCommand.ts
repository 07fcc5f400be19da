// claude-mem install|uninstall claude-code [--user|--project [dir]] [--no-mcp] [--node PATH] [--cli PATH]
import * as path from 'node:path';
import { InstallError, installClaudeCode, uninstallClaudeCode, type FileChange, type InstallOptions } from './install';

const USAGE = 'usage: claude-mem install|uninstall claude-code [--user | --project [dir]] [--no-mcp] [--node PATH] [--cli PATH]\n';

export function parseInstallArgs(args: string[]): InstallOptions {
  const [target, ...rest] = args;
  if (target !== 'claude-code') throw new InstallError(`unknown target "${target ?? ''}"; only claude-code is supported\n${USAGE}`);
  const o: InstallOptions = { scope: 'user' };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = (): string => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new InstallError(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--user') o.scope = 'user';
    else if (a === '--project') {
      o.scope = 'project';
      if (rest[i + 1] !== undefined && !rest[i + 1].startsWith('--')) o.projectDir = path.resolve(rest[++i]);
    } else if (a === '--no-mcp') o.mcp = false;
    else if (a === '--node') o.nodePath = path.resolve(value());
    else if (a === '--cli') o.cliPath = path.resolve(value());
    else throw new InstallError(`unknown option "${a}"\n${USAGE}`);
  }
  return o;
}

function describe(c: FileChange | undefined, label: string): string {
  if (!c) return '';
  if (c.skipped) return `  ${label}: ${c.skipped}\n`;
  if (!c.changed) return `  ${label}: ${c.file} (already up to date)\n`;
  return `  ${label}: ${c.file} (updated${c.backup ? `; backup at ${c.backup}` : ''})\n`;
}

export function runInstallCommand(cmd: 'install' | 'uninstall', args: string[]): number {
  try {
    const o = parseInstallArgs(args);
    if (cmd === 'install') {
      const r = installClaudeCode(o);
      process.stdout.write(`claude-mem hooks installed for Claude Code (${r.scope} settings)\n${describe(r.settings, 'hooks')}${describe(r.mcp, 'MCP server')}`);
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
