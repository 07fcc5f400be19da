// The stable launcher: <data dir>/bin/claude-mem (claude-mem.cmd on Windows), a few lines that run
// the current install's dist/cli.js. Installed hook commands and MCP entries point here, not into
// the versioned extension folder that the next update deletes; the extension rewrites it on every
// activation to its own install. When the install it names is gone it fails soft: one line in
// <data dir>/logs/hooks.log, `{}` on stdout for a hook, exit 0, so an agent session never breaks.
// In a remote window (SSH, WSL, containers) the extension host runs remotely, so the launcher, the
// data dir and the hooks all live on that side, where the agent runs them.
// fs and path only: imported by the extension and by the installer.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LauncherTarget {
  dataDir: string;
  /** Absolute path of the Node (or Electron) binary. */
  node: string;
  /** Absolute path of dist/cli.js of the install to run. */
  cli: string;
  /** Run the binary as Node (ELECTRON_RUN_AS_NODE=1): inside VS Code, its own runtime. */
  runAsNode: boolean;
  platform?: NodeJS.Platform;
}

export function launcherPath(dataDir: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(path.resolve(dataDir), 'bin', platform === 'win32' ? 'claude-mem.cmd' : 'claude-mem');
}

/** Is this command (a hook command's first word, an MCP entry's command) a launcher of ours? */
export function isLauncher(file: string): boolean {
  return /[\\/]bin[\\/]claude-mem(?:\.cmd)?$/.test(file.replace(/^['"]|['"]$/g, ''));
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function shScript(t: LauncherTarget): string {
  const dataDir = path.resolve(t.dataDir);
  const logFile = path.join(dataDir, 'logs', 'hooks.log');
  return [
    '#!/bin/sh',
    '# claude-mem launcher: written by the claude-mem VS Code extension on every activation (and by',
    '# `claude-mem install ... --launcher`). Hooks and the MCP server run through this file, so an',
    '# extension update (a new install folder) never breaks them. Edits are overwritten.',
    `NODE=${sq(t.node)}`,
    `CLI=${sq(t.cli)}`,
    `export CLAUDE_MEM_DATA_DIR="\${CLAUDE_MEM_DATA_DIR:-${dataDir.replace(/(["\\$`])/g, '\\$1')}}"`,
    'if [ ! -f "$CLI" ] || [ ! -x "$NODE" ]; then',
    `  mkdir -p ${sq(path.dirname(logFile))} 2>/dev/null`,
    `  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) WARN launcher: $CLI is gone (extension updated or removed); open VS Code once to repoint this launcher, or reinstall the hooks" >> ${sq(logFile)} 2>/dev/null`,
    '  if [ "$1" = hook ]; then printf "{}"; fi',
    '  exit 0',
    'fi',
    t.runAsNode ? 'ELECTRON_RUN_AS_NODE=1 exec "$NODE" "$CLI" "$@"' : 'exec "$NODE" "$CLI" "$@"',
    '',
  ].join('\n');
}

function cmdScript(t: LauncherTarget): string {
  const dataDir = path.resolve(t.dataDir);
  const logFile = path.join(dataDir, 'logs', 'hooks.log');
  return [
    '@echo off',
    'rem claude-mem launcher: rewritten by the claude-mem VS Code extension on every activation.',
    `set "NODE=${t.node}"`,
    `set "CLI=${t.cli}"`,
    `if not defined CLAUDE_MEM_DATA_DIR set "CLAUDE_MEM_DATA_DIR=${dataDir}"`,
    'if not exist "%CLI%" (',
    `  echo launcher: %CLI% is gone; open VS Code once to repoint this launcher>> "${logFile}"`,
    '  if "%1"=="hook" echo {}',
    '  exit /b 0',
    ')',
    t.runAsNode ? 'set ELECTRON_RUN_AS_NODE=1' : 'rem',
    '"%NODE%" "%CLI%" %*',
    '',
  ].join('\r\n');
}

/**
 * Writes the launcher for this install (atomically: temp file and rename, so a hook starting at
 * that moment runs the old or the new one, never half a file). Returns its path and whether it changed.
 */
export function writeLauncher(t: LauncherTarget): { file: string; changed: boolean } {
  const platform = t.platform ?? process.platform;
  const file = launcherPath(t.dataDir, platform);
  const text = platform === 'win32' ? cmdScript(t) : shScript(t);
  try {
    if (fs.readFileSync(file, 'utf8') === text) return { file, changed: false };
  } catch {
    /* not there yet */
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o755 });
  fs.renameSync(tmp, file);
  return { file, changed: true };
}
