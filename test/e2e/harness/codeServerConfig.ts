// What a test code-server is started with: user settings and environment.
import * as net from 'node:net';
import * as path from 'node:path';
import { node24Dir } from './paths';

export const defaultSettings = {
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'extensions.ignoreRecommendations': true,
  // Port auto-detection runs `ls -l /proc/*/fd/*` every few seconds: CPU a busy machine lacks.
  'remote.autoForwardPorts': false,
};

/**
 * Built-ins that start at startup (git and github activate on '*', so onStartupFinished
 * waits for them) or spawn helpers, and that our tests do not touch: skipping them takes
 * seconds off every suite on this 2-core machine. Pass [] to get the full set.
 */
export const heavyBuiltins = [
  'vscode.git',
  'vscode.git-base',
  'vscode.github',
  'vscode.github-authentication',
  'vscode.microsoft-authentication',
  'vscode.typescript-language-features',
  'ms-vscode.js-debug',
  'vscode.debug-auto-launch',
  'vscode.npm',
  'vscode.emmet',
  'vscode.ipynb',
  'vscode.terminal-suggest',
  'vscode.tunnel-forwarding',
];

export interface EnvOptions {
  home: string;
  claudeMemDataDir: string;
  workerPort: number;
  extra?: Record<string, string>;
  skipBuiltins?: string[];
}

export function serverEnv(o: EnvOptions): NodeJS.ProcessEnv {
  // Our extension finds or starts a worker on CLAUDE_MEM_WORKER_PORT (default 37800 + uid % 100):
  // without its own port and data dir it would talk to whatever worker the machine runs.
  // A developer's own CLAUDE_MEM_* / ANTHROPIC_* settings must not leak in either.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CLAUDE_MEM_|ANTHROPIC_)/.test(k)));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    CLAUDE_MEM_DATA_DIR: o.claudeMemDataDir,
    CLAUDE_MEM_WORKER_PORT: String(o.workerPort),
    ...o.extra,
    HOME: o.home,
    XDG_CONFIG_HOME: path.join(o.home, '.config'),
    XDG_DATA_HOME: path.join(o.home, '.local/share'),
    XDG_CACHE_HOME: path.join(o.home, '.cache'),
    XDG_STATE_HOME: path.join(o.home, '.local/state'),
    VSCODE_SKIP_BUILTIN_EXTENSIONS: (o.skipBuiltins ?? heavyBuiltins).join(','),
    // Node 24 first on PATH for code-server's processes only.
    PATH: `${path.join(node24Dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  // Inherited from a parent node --import tsx / --test; the server's own node must not get them.
  delete env.NODE_OPTIONS;
  delete env.NODE_TEST_CONTEXT;
  return env;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
