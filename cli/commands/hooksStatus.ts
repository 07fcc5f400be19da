// `claude-mem status`: where our hooks are installed, and a word when VS Code will run them twice
// (Claude Code's settings and a Copilot hook file both carry them: VS Code reads both).
import { claudeCodeInstallState, vscodeAgentInstallState } from '../../common/node/install';

export interface HookInstallPlace {
  label: string;
  file: string;
  hooks: number;
  problem?: string;
}

export function hookInstallPlaces(o: { cwd?: string; homeDir?: string; env?: NodeJS.ProcessEnv } = {}): HookInstallPlace[] {
  const cwd = o.cwd ?? process.cwd();
  const cc = (scope: 'user' | 'project') => claudeCodeInstallState({ scope, projectDir: cwd, homeDir: o.homeDir, env: o.env });
  const vs = (scope: 'user' | 'workspace') => vscodeAgentInstallState({ scope, projectDir: cwd, homeDir: o.homeDir });
  const u = cc('user');
  const p = cc('project');
  const vu = vs('user');
  const vw = vs('workspace');
  return [
    { label: 'Claude Code (user)', file: u.settingsFile, hooks: u.hooks, problem: u.problem },
    { label: 'Claude Code (project)', file: p.settingsFile, hooks: p.hooks, problem: p.problem },
    { label: 'VS Code agent hooks (user)', file: vu.file, hooks: vu.hooks, problem: vu.problem },
    { label: 'VS Code agent hooks (workspace)', file: vw.file, hooks: vw.hooks, problem: vw.problem },
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
    else if (p.hooks > 0) lines.push(`  ${p.label}: ${p.hooks} hook(s) in ${p.file}`);
  }
  if (lines.length === 1) lines.push('  none installed (claude-mem install claude-code | vscode-agent)');
  if (bothInstalled(places)) {
    lines.push(
      '  note: VS Code agent sessions run our hooks from both Claude Code\'s settings and the VS Code hook file.',
      '        Each event is stored once (ingest is idempotent), but every hook runs twice. To run it once, uninstall',
      '        one of them, or set "chat.hookFilesLocations": {"~/.claude/settings.json": false} in VS Code.',
    );
  }
  return lines.join('\n') + '\n';
}
