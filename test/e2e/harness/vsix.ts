// The .vsix under test: CLAUDE_MEM_VSIX when given (CI may package once), else a fresh
// build + package into .cache/e2e/ so the e2e always runs the current code.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before } from 'node:test';
import { assertToolsInstalled, cacheDir, repoRoot } from './paths';

let built: string | undefined;

/** What every suite shares: why it is skipped, if it is, and the .vsix under test. */
export interface E2eSetup {
  skip: string | false;
  /** The .vsix path, once the `before` of e2eSetup() has run. */
  vsix(): string;
}

/** Registers a `before` that checks the tools and builds the .vsix (nothing when CLAUDE_MEM_SKIP_E2E=1). */
export function e2eSetup(): E2eSetup {
  const skip = process.env.CLAUDE_MEM_SKIP_E2E === '1' && 'CLAUDE_MEM_SKIP_E2E=1';
  let vsix = '';
  before(() => {
    if (skip) return;
    assertToolsInstalled();
    vsix = ensureVsix();
  });
  return { skip, vsix: () => vsix };
}

/** The .vsix path; built at most once per process (every suite asks). */
export function ensureVsix(): string {
  const given = process.env.CLAUDE_MEM_VSIX;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`CLAUDE_MEM_VSIX=${given} does not exist`);
    return path.resolve(given);
  }
  if (built) return built;
  const out = path.join(cacheDir, 'e2e', 'claude-mem-vscode.vsix');
  run(['esbuild.config.mjs'], 'npm run build');
  run(['scripts/package.mjs', '--out', out, '--quiet'], 'scripts/package.mjs');
  return (built = out);
}

function run(args: string[], what: string): void {
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
}
