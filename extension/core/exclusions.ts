// What is never captured: secret-looking paths, the user's globs, files.exclude and .gitignore.
// Plain fs and path only; the vscode side hands in settings and workspace folders.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isSecretPath } from '../../common/privacy/secretPaths';
import { globToRegExp, matchesAnyGlob } from './glob';

// Secret-looking paths: one list and one matcher (common/privacy), shared with the worker, which
// drops the content of such files from Claude Code and agent tool uses.
export { isSecretPath, SECRET_BASENAMES, SECRET_DIRS } from '../../common/privacy/secretPaths';

// ---- .gitignore -------------------------------------------------------------------------

interface Rule {
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
  /** Pattern has a '/' before its end: matched against the path relative to the ignore file's folder. */
  anchored: boolean;
}

export function parseGitignore(text: string): Rule[] {
  const rules: Rule[] = [];
  for (let line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    line = line.replace(/(?<!\\)\s+$/, '');
    if (line === '') continue;
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    } else if (line.startsWith('\\!') || line.startsWith('\\#')) line = line.slice(1);
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    if (line === '') continue;
    // Brace alternatives are not gitignore syntax: escape them before compiling.
    rules.push({ re: globToRegExp(line.replace(/[{},]/g, '\\$&')), negate, dirOnly, anchored });
  }
  return rules;
}

/** Last matching rule wins: true ignored, false re-included, undefined no opinion. */
function evaluate(rules: readonly Rule[], rel: string, isDir: boolean): boolean | undefined {
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  let verdict: boolean | undefined;
  for (const r of rules) {
    if (r.dirOnly && !isDir) continue;
    if (r.anchored ? r.re.test(rel) : r.re.test(base)) verdict = !r.negate;
  }
  return verdict;
}

export type ReadText = (absPath: string) => string | undefined;

const readIfExists: ReadText = (p) => {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
};

/** Answers "is this file ignored by git?" from the .gitignore files between the repo root and it. */
export class GitIgnore {
  private readonly files = new Map<string, { rules: Rule[]; at: number }>();
  private readonly roots = new Map<string, string | null>();

  constructor(
    private readonly read: ReadText = readIfExists,
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forget cached ignore files (call when a .gitignore is saved). */
  invalidate(): void {
    this.files.clear();
  }

  private rulesIn(dir: string, extra?: string): Rule[] {
    const key = extra ?? path.join(dir, '.gitignore');
    const hit = this.files.get(key);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.rules;
    const text = this.read(key);
    const rules = text ? parseGitignore(text) : [];
    this.files.set(key, { rules, at: this.now() });
    return rules;
  }

  /** The nearest folder at or above `dir` holding `.git`, or null. */
  repoRoot(dir: string): string | null {
    const hit = this.roots.get(dir);
    if (hit !== undefined) return hit;
    let found: string | null = null;
    let d = dir;
    for (let i = 0; i < 64; i++) {
      try {
        fs.statSync(path.join(d, '.git'));
        found = d;
        break;
      } catch {
        /* keep climbing */
      }
      const up = path.dirname(d);
      if (up === d) break;
      d = up;
    }
    this.roots.set(dir, found);
    return found;
  }

  isIgnored(absFile: string, root?: string | null): boolean {
    const top = root ?? this.repoRoot(path.dirname(absFile));
    if (!top) return false;
    const rel = path.relative(top, absFile).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) return false;
    if (rel === '.git' || rel.startsWith('.git/')) return true;
    const segments = rel.split('/');
    const infoExclude = this.rulesIn(top, path.join(top, '.git', 'info', 'exclude'));
    // Walk down: a folder that is ignored hides everything inside it (git cannot re-include past it).
    for (let i = 1; i <= segments.length; i++) {
      const isDir = i < segments.length;
      const sub = segments.slice(0, i).join('/');
      let verdict = evaluate(infoExclude, sub, isDir);
      for (let j = 0; j < i; j++) {
        const dirRel = segments.slice(0, j).join('/');
        const rules = this.rulesIn(path.join(top, ...segments.slice(0, j)));
        if (rules.length === 0) continue;
        const relToDir = dirRel ? sub.slice(dirRel.length + 1) : sub;
        const v = evaluate(rules, relToDir, isDir);
        if (v !== undefined) verdict = v;
      }
      if (verdict === true) return true;
    }
    return false;
  }
}

// ---- all together -------------------------------------------------------------------------

export interface ExclusionSettings {
  /** The user's own globs (claudeMem.capture.exclude). */
  globs: readonly string[];
  /** files.exclude globs whose value is true. */
  filesExclude: readonly string[];
  respectGitignore: boolean;
}

export type ExclusionReason = 'secret' | 'user_glob' | 'files_exclude' | 'gitignore' | 'outside_workspace';

export class Exclusions {
  constructor(
    private settings: ExclusionSettings,
    readonly gitignore = new GitIgnore(),
  ) {}

  update(settings: ExclusionSettings): void {
    this.settings = settings;
  }

  /** Why a file must not be captured, or undefined when it may be. `folder` is its workspace folder. */
  check(absFile: string, folder: string | undefined): ExclusionReason | undefined {
    if (isSecretPath(absFile)) return 'secret';
    if (!folder) return 'outside_workspace';
    const rel = path.relative(folder, absFile).split(path.sep).join('/');
    if (rel.startsWith('..') || path.isAbsolute(rel)) return 'outside_workspace';
    if (matchesAnyGlob(rel, this.settings.globs) || matchesAnyGlob(absFile, this.settings.globs.filter((g) => g.startsWith('/') || g.startsWith('**')))) return 'user_glob';
    if (matchesAnyGlob(rel, this.settings.filesExclude)) return 'files_exclude';
    if (this.settings.respectGitignore && this.gitignore.isIgnored(absFile)) return 'gitignore';
    return undefined;
  }
}
