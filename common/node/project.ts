// Project identity shared by every client: the git repository's root folder name (a worktree
// maps to its main repository), else the folder name. Plain fs only: the hook CLI and the
// extension import this too.
// Named imports: a namespace import makes the bundle copy every export of node:fs (hook start-up cost).
import { readFileSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';

export function projectFromCwd(cwd: string | undefined): string {
  if (!cwd) return 'unknown';
  let dir = resolve(cwd);
  for (let i = 0; i < 64; i++) {
    const git = join(dir, '.git');
    let st: Stats | undefined;
    try {
      st = statSync(git, { throwIfNoEntry: false }); // no exception per folder walked
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return nameOf(dir);
    if (st?.isFile()) return nameOf(worktreeMain(git) ?? dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return nameOf(resolve(cwd));
}

/** For a linked worktree, `.git` is a file "gitdir: <main>/.git/worktrees/<name>". */
function worktreeMain(gitFile: string): string | undefined {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitFile, 'utf8'));
    if (!m) return undefined;
    const gitdir = resolve(dirname(gitFile), m[1].trim());
    const idx = gitdir.lastIndexOf(`${sep}.git${sep}worktrees${sep}`);
    return idx >= 0 ? gitdir.slice(0, idx) : undefined;
  } catch {
    return undefined;
  }
}

function nameOf(dir: string): string {
  return basename(dir) || 'root';
}
