// Installs claude-mem into Claude Code: hook commands merged into settings.json (user or project),
// and the MCP server registered (~/.claude.json for the user, .mcp.json for a project). And into
// VS Code's agent hooks: ~/.copilot/hooks/claude-mem.json (user) or .github/hooks/claude-mem.json
// (workspace), with the same guarantees.
// Imported by the CLI and by the VS Code commands "Install Claude Code Hooks" and "Install Agent
// Hooks": fs, path and os only.
//
// Rules: every other key, hook and server is kept; installing twice changes nothing; a changed file
// gets a timestamped backup first and is replaced atomically; uninstall removes exactly our entries
// (recognised by their `hook claude-code <event>` command); a file that is not valid JSON, or whose
// shape we would have to guess at, is refused before anything is written.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultDataDir } from './config';
import { isLauncher } from './launcher';
import { HOOK_NAMES, type HookName } from '../contract/hooks';

export type Scope = 'user' | 'project';

export type { HookName };

export interface HookSpec {
  event: string;
  matcher?: string;
  hook: HookName;
  /** Seconds; Claude Code kills the command after this. Our own budgets are shorter. */
  timeout: number;
}

/** What we add. Synchronous on purpose: Claude Code kills `async` hooks in `-p` mode. */
export const CLAUDE_CODE_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', matcher: 'startup|resume|clear|compact', hook: 'context', timeout: 20 },
  { event: 'UserPromptSubmit', hook: 'session-init', timeout: 10 },
  { event: 'PreToolUse', matcher: 'Read', hook: 'file-context', timeout: 10 },
  { event: 'PostToolUse', matcher: '*', hook: 'observation', timeout: 10 },
  { event: 'PostToolUseFailure', matcher: '*', hook: 'observation', timeout: 10 },
  { event: 'Stop', hook: 'summarize', timeout: 10 },
  { event: 'SessionEnd', hook: 'session-end', timeout: 10 },
];

export const MCP_SERVER_NAME = 'claude-mem';

const HANDLERS = `(?:${HOOK_NAMES.join('|')})`;
const OURS = new RegExp(`(?:^|\\s)hook claude-code ${HANDLERS}\\s*$`);
/** Ours in a VS Code hook file: written for vscode-agent, or a Claude Code entry copied there. */
const OURS_VSCODE = new RegExp(`(?:^|\\s)hook (?:vscode-agent|claude-code|auto) ${HANDLERS}\\s*$`);

/** What `install vscode-agent` adds: VS Code's flat entries (it ignores matchers anyway). */
export const VSCODE_AGENT_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', hook: 'context', timeout: 20 },
  { event: 'SubagentStart', hook: 'context', timeout: 20 },
  { event: 'UserPromptSubmit', hook: 'session-init', timeout: 10 },
  { event: 'PreToolUse', hook: 'file-context', timeout: 10 },
  { event: 'PostToolUse', hook: 'observation', timeout: 10 },
  { event: 'PreCompact', hook: 'summarize', timeout: 10 },
  { event: 'Stop', hook: 'summarize', timeout: 15 },
];

export const VSCODE_HOOK_FILE = 'claude-mem.json';

export interface InstallOptions {
  scope: Scope;
  /** Project root for scope "project" (default: the current directory). */
  projectDir?: string;
  /** Home directory (default: os.homedir()); CLAUDE_CONFIG_DIR in env still wins, as in Claude Code. */
  homeDir?: string;
  /** Absolute path of the Node (or Electron) binary that runs the hooks (default: process.execPath). */
  nodePath?: string;
  /** Absolute path of dist/cli.js (default: cli.js beside this bundle). */
  cliPath?: string;
  /** Run the binary as Node with ELECTRON_RUN_AS_NODE=1 (default: when running inside Electron). */
  runAsNode?: boolean;
  /**
   * Absolute path of the stable launcher (launcher.ts) to run instead of node + cli.js: what the
   * extension installs, so that an update (a new install folder) does not break the hooks.
   */
  launcher?: string;
  /** Register the MCP server too (default true). */
  mcp?: boolean;
  /** Extra environment for the MCP server entry (e.g. CLAUDE_MEM_DATA_DIR), since MCP clients may not pass theirs on. */
  mcpEnv?: Record<string, string>;
  /** Where backups of changed files go (default: <data dir>/backups/claude-code). */
  backupDir?: string;
  env?: NodeJS.ProcessEnv;
  now?: Date;
}

export interface FileChange {
  file: string;
  changed: boolean;
  backup?: string;
  /** Why this file was left alone, when it was. */
  skipped?: string;
}

export interface InstallResult {
  scope: Scope;
  settings: FileChange;
  mcp?: FileChange;
  commands: string[];
}

export class InstallError extends Error {}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

function configDir(o: InstallOptions): { claudeDir: string; globalConfig: string } {
  const env = o.env ?? process.env;
  const custom = env.CLAUDE_CONFIG_DIR?.trim();
  const home = o.homeDir ?? os.homedir();
  return { claudeDir: custom || path.join(home, '.claude'), globalConfig: path.join(custom || home, '.claude.json') };
}

/** Where the hooks go for a scope. */
export function settingsPath(o: InstallOptions): string {
  if (o.scope === 'user') return path.join(configDir(o).claudeDir, 'settings.json');
  return path.join(path.resolve(o.projectDir ?? process.cwd()), '.claude', 'settings.json');
}

/** Where the MCP server goes for a scope. */
export function mcpConfigPath(o: InstallOptions): string {
  if (o.scope === 'user') return configDir(o).globalConfig;
  return path.join(path.resolve(o.projectDir ?? process.cwd()), '.mcp.json');
}

function shellQuote(s: string): string {
  if (process.platform === 'win32') return `"${s.replace(/"/g, '\\"')}"`;
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

interface Runtime {
  node: string;
  cli: string;
  runAsNode: boolean;
  launcher?: string;
}

function runtime(o: InstallOptions): Runtime {
  const node = o.nodePath ?? process.execPath;
  const cli = o.cliPath ?? path.join(__dirname, 'cli.js');
  const runAsNode = o.runAsNode ?? (typeof process.versions.electron === 'string');
  if (o.launcher !== undefined) {
    if (!path.isAbsolute(o.launcher) || !fs.existsSync(o.launcher)) throw new InstallError(`no claude-mem launcher at "${o.launcher}"`);
    return { node, cli, runAsNode, launcher: o.launcher };
  }
  if (!path.isAbsolute(node) || !fs.existsSync(node)) throw new InstallError(`no Node binary at "${node}"; pass an absolute path to one that exists`);
  if (!path.isAbsolute(cli) || !fs.existsSync(cli)) throw new InstallError(`no claude-mem CLI at "${cli}"; build it first (npm run build)`);
  return { node, cli, runAsNode };
}

/** The shell command a host runs for one hook. */
export function hookCommand(rt: Runtime, hook: HookName, platform = 'claude-code'): string {
  if (rt.launcher) return `${shellQuote(rt.launcher)} hook ${platform} ${hook}`;
  return `${rt.runAsNode ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}${shellQuote(rt.node)} ${shellQuote(rt.cli)} hook ${platform} ${hook}`;
}

export function isOurHook(h: unknown, re: RegExp = OURS): boolean {
  return isObj(h) && typeof h.command === 'string' && re.test(h.command);
}

// ---- JSON files ---------------------------------------------------------------------------------

interface Loaded {
  file: string;
  exists: boolean;
  text: string;
  data: Obj;
  mode: number;
}

function load(file: string, what: string): Loaded {
  let text: string;
  let mode = 0o644;
  try {
    text = fs.readFileSync(file, 'utf8');
    mode = fs.statSync(file).mode & 0o777;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { file, exists: false, text: '', data: {}, mode };
    throw new InstallError(`cannot read ${what} ${file}: ${(e as Error).message}`);
  }
  if (text.trim() === '') return { file, exists: true, text, data: {}, mode };
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new InstallError(`${what} ${file} is not valid JSON (${(e as Error).message}); fix or move it and try again. Nothing was changed.`);
  }
  if (!isObj(data)) throw new InstallError(`${what} ${file} does not hold a JSON object; fix or move it and try again. Nothing was changed.`);
  return { file, exists: true, text, data, mode };
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

function backupDir(o: InstallOptions): string {
  return o.backupDir ?? path.join(path.resolve(defaultDataDir(o.env ?? process.env)), 'backups', 'claude-code');
}

function sameJson(a: unknown, l: Loaded): boolean {
  if (!l.exists) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(l.text.trim() === '' ? {} : JSON.parse(l.text.replace(/^\uFEFF/, '')));
  } catch {
    return false;
  }
}

/**
 * Backs up the old text (if any) and replaces the file atomically; no-op when nothing changed.
 * With removeIfEmpty, an object left empty removes the file (uninstall of a file install created).
 */
function save(l: Loaded, data: Obj, o: InstallOptions, removeIfEmpty = false): FileChange {
  const empty = Object.keys(data).length === 0;
  if (!l.exists && empty) return { file: l.file, changed: false };
  if (sameJson(data, l) && !(removeIfEmpty && empty)) return { file: l.file, changed: false };
  let backup: string | undefined;
  if (l.exists && l.text.trim() !== '') {
    const dir = backupDir(o);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const slug = l.file.replace(/^[A-Za-z]:/, '').replace(/[\\/]+/g, '_').replace(/^_+/, '');
    backup = path.join(dir, `${slug}.${stamp(o.now ?? new Date())}.json`);
    fs.writeFileSync(backup, l.text, { mode: 0o600 });
  }
  if (removeIfEmpty && empty) {
    fs.rmSync(l.file, { force: true });
    return { file: l.file, changed: true, backup };
  }
  fs.mkdirSync(path.dirname(l.file), { recursive: true });
  const tmp = `${l.file}.claude-mem-${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: l.mode });
  fs.renameSync(tmp, l.file);
  return { file: l.file, changed: true, backup };
}

// ---- hooks ---------------------------------------------------------------------------------------

/** Checks the parts of settings we will edit; refuses shapes we would have to guess at. */
function hooksOf(settings: Obj, file: string): Obj | undefined {
  const hooks = settings.hooks;
  if (hooks === undefined) return undefined;
  if (!isObj(hooks)) throw new InstallError(`"hooks" in ${file} is not an object; fix it and try again. Nothing was changed.`);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) throw new InstallError(`"hooks.${event}" in ${file} is not an array; fix it and try again. Nothing was changed.`);
    for (const g of groups) {
      if (!isObj(g) || (g.hooks !== undefined && !Array.isArray(g.hooks))) {
        throw new InstallError(`an entry of "hooks.${event}" in ${file} is not a {matcher, hooks: [...]} object; fix it and try again. Nothing was changed.`);
      }
    }
  }
  return hooks;
}

/**
 * Removes our hook commands (any path, any version); drops groups, events and `hooks` left empty by
 * that. Entries are Claude Code's groups ({matcher, hooks: [...]}) or VS Code's flat commands.
 */
function stripOurs(settings: Obj, file: string, re: RegExp = OURS): number {
  const hooks = hooksOf(settings, file);
  if (!hooks) return 0;
  let removed = 0;
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event] as Obj[];
    const kept: Obj[] = [];
    for (const g of groups) {
      if (isOurHook(g, re)) {
        removed++;
        continue;
      }
      const list = (g.hooks as unknown[] | undefined) ?? [];
      const rest = list.filter((h) => !isOurHook(h, re));
      removed += list.length - rest.length;
      if (rest.length === list.length) kept.push(g);
      else if (rest.length > 0) kept.push({ ...g, hooks: rest });
    }
    if (kept.length > 0) hooks[event] = kept;
    else if (groups.length > 0) delete hooks[event];
  }
  if (Object.keys(hooks).length === 0 && removed > 0) delete settings.hooks;
  return removed;
}

function addOurs(settings: Obj, rt: Runtime): string[] {
  const hooks = (isObj(settings.hooks) ? settings.hooks : (settings.hooks = {})) as Obj;
  const commands: string[] = [];
  for (const spec of CLAUDE_CODE_HOOKS) {
    const command = hookCommand(rt, spec.hook);
    commands.push(command);
    const group: Obj = { ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [{ type: 'command', command, timeout: spec.timeout }] };
    const list = Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as Obj[]) : (hooks[spec.event] = []);
    (list as Obj[]).push(group);
  }
  return commands;
}

// ---- MCP server ----------------------------------------------------------------------------------

function mcpEntry(rt: Runtime, extraEnv: Record<string, string> | undefined): Obj {
  if (rt.launcher) return { type: 'stdio', command: rt.launcher, args: ['mcp'], ...(extraEnv && Object.keys(extraEnv).length ? { env: extraEnv } : {}) };
  const env = { ...(rt.runAsNode ? { ELECTRON_RUN_AS_NODE: '1' } : {}), ...extraEnv };
  return { type: 'stdio', command: rt.node, args: [rt.cli, 'mcp'], ...(Object.keys(env).length ? { env } : {}) };
}

function isOurServer(v: unknown): boolean {
  if (!isObj(v) || !Array.isArray(v.args)) return false;
  if (typeof v.command === 'string' && isLauncher(v.command) && v.args.length === 1 && v.args[0] === 'mcp') return true;
  return v.args.length >= 2 && v.args[v.args.length - 1] === 'mcp' && typeof v.args[v.args.length - 2] === 'string' && /cli\.js$/.test(v.args[v.args.length - 2] as string);
}

function serversOf(cfg: Obj, file: string): Obj | undefined {
  if (cfg.mcpServers === undefined) return undefined;
  if (!isObj(cfg.mcpServers)) throw new InstallError(`"mcpServers" in ${file} is not an object; fix it and try again. Nothing was changed.`);
  return cfg.mcpServers;
}

/** A project's .mcp.json servers need approval; our own settings entry approves ours. */
function approveProjectServer(settings: Obj, file: string, on: boolean): void {
  const list = settings.enabledMcpjsonServers;
  if (list !== undefined && !Array.isArray(list)) throw new InstallError(`"enabledMcpjsonServers" in ${file} is not an array; fix it and try again. Nothing was changed.`);
  const arr = (list as unknown[] | undefined) ?? [];
  const rest = arr.filter((x) => x !== MCP_SERVER_NAME);
  if (on) settings.enabledMcpjsonServers = [...rest, MCP_SERVER_NAME];
  else if (list !== undefined) {
    if (rest.length) settings.enabledMcpjsonServers = rest;
    else delete settings.enabledMcpjsonServers;
  }
}

// ---- public API ----------------------------------------------------------------------------------

/** Adds (or refreshes) our hooks and MCP server. Idempotent. Throws InstallError and writes nothing on a bad file. */
export function installClaudeCode(o: InstallOptions): InstallResult {
  const rt = runtime(o);
  const wantMcp = o.mcp !== false;
  const settings = load(settingsPath(o), 'Claude Code settings');
  const mcp = wantMcp ? (o.scope === 'project' ? load(mcpConfigPath(o), 'MCP config') : load(mcpConfigPath(o), 'Claude Code config')) : undefined;

  // Everything is validated and computed before the first write.
  const s = structuredClone(settings.data);
  stripOurs(s, settings.file);
  const commands = addOurs(s, rt);
  let mcpData: Obj | undefined;
  let mcpSkipped: string | undefined;
  if (mcp) {
    mcpData = structuredClone(mcp.data);
    const servers = serversOf(mcpData, mcp.file) ?? (mcpData.mcpServers = {});
    const existing = (servers as Obj)[MCP_SERVER_NAME];
    if (existing !== undefined && !isOurServer(existing)) {
      mcpSkipped = `an MCP server named "${MCP_SERVER_NAME}" that is not ours is already in ${mcp.file}; left it alone`;
      mcpData = undefined;
    } else {
      (servers as Obj)[MCP_SERVER_NAME] = mcpEntry(rt, o.mcpEnv);
      if (o.scope === 'project') approveProjectServer(s, settings.file, true);
    }
  }

  const result: InstallResult = { scope: o.scope, settings: save(settings, s, o), commands };
  if (mcp) result.mcp = mcpData ? save(mcp, mcpData, o) : { file: mcp.file, changed: false, skipped: mcpSkipped };
  return result;
}

/**
 * Removes exactly what install added: our hook commands, our MCP server, our approval of it; a
 * file left empty by that is removed. Throws InstallError and writes nothing on a bad file.
 */
export function uninstallClaudeCode(o: InstallOptions): { scope: Scope; settings: FileChange & { removed: number }; mcp?: FileChange } {
  const settings = load(settingsPath(o), 'Claude Code settings');
  const mcp = load(mcpConfigPath(o), o.scope === 'project' ? 'MCP config' : 'Claude Code config');
  const s = structuredClone(settings.data);
  const removed = stripOurs(s, settings.file);
  const m = structuredClone(mcp.data);
  const servers = serversOf(m, mcp.file);
  let mcpRemoved = false;
  if (servers && isOurServer(servers[MCP_SERVER_NAME])) {
    delete servers[MCP_SERVER_NAME];
    mcpRemoved = true;
    if (Object.keys(servers).length === 0 && o.scope === 'project') delete m.mcpServers;
  }
  if (o.scope === 'project' && (mcpRemoved || removed > 0)) approveProjectServer(s, settings.file, false);
  const touched = removed > 0 || mcpRemoved;
  const out: { scope: Scope; settings: FileChange & { removed: number }; mcp?: FileChange } = {
    scope: o.scope,
    settings: { ...(touched ? save(settings, s, o, true) : { file: settings.file, changed: false }), removed },
  };
  if (mcp.exists) out.mcp = mcpRemoved ? save(mcp, m, o, o.scope === 'project') : { file: mcp.file, changed: false };
  return out;
}

/** What is installed where, for status displays. */
export function claudeCodeInstallState(o: InstallOptions): { settingsFile: string; hooks: number; mcp: boolean; problem?: string } {
  const file = settingsPath(o);
  try {
    const s = load(file, 'Claude Code settings');
    const hooks = hooksOf(s.data, file) ?? {};
    let n = 0;
    for (const groups of Object.values(hooks)) for (const g of groups as Obj[]) n += ((g.hooks as unknown[]) ?? []).filter((h) => isOurHook(h)).length;
    const m = load(mcpConfigPath(o), 'MCP config');
    return { settingsFile: file, hooks: n, mcp: isOurServer(serversOf(m.data, m.file)?.[MCP_SERVER_NAME]) };
  } catch (e) {
    return { settingsFile: file, hooks: 0, mcp: false, problem: (e as Error).message };
  }
}

// ---- VS Code agent hooks -------------------------------------------------------------------------

export type VscodeScope = 'user' | 'workspace';

export interface VscodeInstallOptions extends Omit<InstallOptions, 'scope' | 'mcp' | 'mcpEnv'> {
  scope: VscodeScope;
  /** Workspace root for scope "workspace" (default: the current directory). */
  projectDir?: string;
}

/** ~/.copilot/hooks/claude-mem.json or <workspace>/.github/hooks/claude-mem.json. */
export function vscodeHookFile(o: { scope: VscodeScope; projectDir?: string; homeDir?: string }): string {
  if (o.scope === 'user') return path.join(o.homeDir ?? os.homedir(), '.copilot', 'hooks', VSCODE_HOOK_FILE);
  return path.join(path.resolve(o.projectDir ?? process.cwd()), '.github', 'hooks', VSCODE_HOOK_FILE);
}

function vscodeBackups(o: VscodeInstallOptions): InstallOptions {
  return { ...o, scope: 'user', backupDir: o.backupDir ?? path.join(path.resolve(defaultDataDir(o.env ?? process.env)), 'backups', 'vscode-agent') };
}

/** Adds (or refreshes) our entries in VS Code's hook file. Idempotent; refuses a malformed file and writes nothing. */
export function installVscodeAgent(o: VscodeInstallOptions): { scope: VscodeScope; file: FileChange; commands: string[] } {
  const rt = runtime({ ...o, scope: 'user' });
  const file = load(vscodeHookFile(o), 'VS Code hook file');
  const data = structuredClone(file.data);
  stripOurs(data, file.file, OURS_VSCODE);
  const hooks = (isObj(data.hooks) ? data.hooks : (data.hooks = {})) as Obj;
  const commands: string[] = [];
  for (const spec of VSCODE_AGENT_HOOKS) {
    const command = hookCommand(rt, spec.hook, 'vscode-agent');
    commands.push(command);
    const list = Array.isArray(hooks[spec.event]) ? (hooks[spec.event] as Obj[]) : (hooks[spec.event] = []);
    (list as Obj[]).push({ type: 'command', command, timeout: spec.timeout });
  }
  return { scope: o.scope, file: save(file, data, vscodeBackups(o)), commands };
}

/** Removes exactly our entries; a file left empty by that is removed. */
export function uninstallVscodeAgent(o: VscodeInstallOptions): { scope: VscodeScope; file: FileChange & { removed: number } } {
  const file = load(vscodeHookFile(o), 'VS Code hook file');
  const data = structuredClone(file.data);
  const removed = stripOurs(data, file.file, OURS_VSCODE);
  return { scope: o.scope, file: { ...(removed > 0 ? save(file, data, vscodeBackups(o), true) : { file: file.file, changed: false }), removed } };
}

/** How many of our entries a VS Code hook file holds (0 when there is none). */
export function vscodeAgentInstallState(o: { scope: VscodeScope; projectDir?: string; homeDir?: string }): { file: string; hooks: number; problem?: string } {
  const file = vscodeHookFile(o);
  try {
    const l = load(file, 'VS Code hook file');
    const hooks = hooksOf(l.data, file) ?? {};
    let n = 0;
    for (const groups of Object.values(hooks)) for (const g of groups as Obj[]) n += isOurHook(g, OURS_VSCODE) ? 1 : ((g.hooks as unknown[]) ?? []).filter((h) => isOurHook(h, OURS_VSCODE)).length;
    return { file, hooks: n };
  } catch (e) {
    return { file, hooks: 0, problem: (e as Error).message };
  }
}
