// Project identity shared by every client: the git repository's root folder name (a worktree
// maps to its main repository), else the folder name. Plain fs only: the hook CLI and the
// extension import this too.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function projectFromCwd(cwd: string | undefined): string {
  if (!cwd) return 'unknown';
  let dir = path.resolve(cwd);
  for (let i = 0; i < 64; i++) {
    const git = path.join(dir, '.git');
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(git);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return nameOf(dir);
    if (st?.isFile()) return nameOf(worktreeMain(git) ?? dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return nameOf(path.resolve(cwd));
}

/** For a linked worktree, `.git` is a file "gitdir: <main>/.git/worktrees/<name>". */
function worktreeMain(gitFile: string): string | undefined {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(gitFile, 'utf8'));
    if (!m) return undefined;
    const gitdir = path.resolve(path.dirname(gitFile), m[1].trim());
    const idx = gitdir.lastIndexOf(`${path.sep}.git${path.sep}worktrees${path.sep}`);
    return idx >= 0 ? gitdir.slice(0, idx) : undefined;
  } catch {
    return undefined;
  }
}

function nameOf(dir: string): string {
  return path.basename(dir) || 'root';
}
