// `claude-mem status`: every place our hooks are installed and which hosts run each (as documented
// 2026-09-16: Claude Code reads its settings; VS Code's Local harness reads .github/hooks and
// ~/.copilot/hooks, and Claude Code's settings only with chat.useClaudeHooks on; Copilot CLI and
// Copilot sessions on VS Code's Agent Host run the Copilot SDK's hooks from the same two folders).
import { claudeCodeInstallState, vscodeAgentInstallState } from '../../common/node/install';

export interface HookInstallPlace {
  label: string;
  file: string;
  hooks: number;
  problem?: string;
  /** The hosts that run the hooks of this file. */
  hosts: string;
}

const CLAUDE_HOSTS = 'Claude Code; VS Code agent sessions too when chat.useClaudeHooks is on (off by default)';
const COPILOT_HOSTS = 'VS Code agent sessions (Local harness), Copilot on the VS Code Agent Host, Copilot CLI';

export function hookInstallPlaces(o: { cwd?: string; homeDir?: string; env?: NodeJS.ProcessEnv } = {}): HookInstallPlace[] {
  const cwd = o.cwd ?? process.cwd();
  const cc = (scope: 'user' | 'project') => claudeCodeInstallState({ scope, projectDir: cwd, homeDir: o.homeDir, env: o.env });
  const vs = (scope: 'user' | 'workspace') => vscodeAgentInstallState({ scope, projectDir: cwd, homeDir: o.homeDir });
  const u = cc('user');
  const p = cc('project');
  const vu = vs('user');
  const vw = vs('workspace');
  return [
    { label: 'Claude Code (user)', file: u.settingsFile, hooks: u.hooks, problem: u.problem, hosts: CLAUDE_HOSTS },
    { label: 'Claude Code (project)', file: p.settingsFile, hooks: p.hooks, problem: p.problem, hosts: CLAUDE_HOSTS },
    { label: 'VS Code agent hooks (user)', file: vu.file, hooks: vu.hooks, problem: vu.problem, hosts: COPILOT_HOSTS },
    { label: 'VS Code agent hooks (workspace)', file: vw.file, hooks: vw.hooks, problem: vw.problem, hosts: COPILOT_HOSTS },
  ];
}

/** True when VS Code will find our hooks both in Claude Code's settings and in a Copilot hook file. */
export function bothInstalled(places: HookInstallPlace[]): boolean {
  const claude = places.some((p) => p.label.startsWith('Claude Code') && p.hooks > 0);
  const vscode = places.some((p) => p.label.startsWith('VS Code') && p.hooks > 0);
  return claude && vscode;
}

export function hooksStatusText(places: HookInstallPlace[] = hookInstallPlaces()): string {
  const lines = ['hooks:'];
  for (const p of places) {
    if (p.problem && !/ENOENT/.test(p.problem)) lines.push(`  ${p.label}: ${p.file}: ${p.problem}`);
    else if (p.hooks > 0) lines.push(`  ${p.label}: ${p.hooks} hook(s) in ${p.file}`, `      run by: ${p.hosts}`);
  }
  if (lines.length === 1) lines.push('  none installed (claude-mem install claude-code | vscode-agent)');
  if (places.filter((p) => p.hooks > 0).length > 1) {
    lines.push(
      '  note: a host that reads more than one of these files runs our hooks once per file. The memory is',
      '        injected once per conversation (the first SessionStart claims it; the others print nothing),',
      '        and each event is stored once. VS Code runs both Claude Code\'s settings and a VS Code hook',
      '        file only with chat.useClaudeHooks on: to run each hook once, uninstall one of them.',
    );
  }
  return lines.join('\n') + '\n';
}
