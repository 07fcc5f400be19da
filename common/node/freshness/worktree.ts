// The check at the moment of use: before a hook, the MCP server or `claude-mem search` shows
// memories, the files they cite are compared with the work tree and the branch, in the process that
// has the files (the worker never reads them). One `git status` for the whole set tells which cited
// files differ from HEAD and whether the change is committed or only in the work tree or index;
// every other tracked file takes the index's blob id (git's `ls-files -s`, read in process), so only
// the files whose stat differs from the index are hashed. git runs only when a file differs from
// what memories cite and git must say how (committed or staged, deleted or renamed); when nothing
// changed no process starts. A cited path gone from the index is followed by its blob id (a
// rename: `git mv`, committed or staged) or reported deleted. See docs/freshness.md.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckFile, CitedFilesResponse, FreshnessCheckRequest } from '../../contract';
import { indexStamp, type GitAnswers } from './gitAnswers';
import { baseBranches, blobId, findRepo, pathsByBlob, readHead, readIndex, statMatches, type GitRepo, type IndexEntry } from './gitRepo';

const MAX_BYTES = 8 * 1024 * 1024;
const GIT_TIMEOUT_MS = 1500;

interface StatusEntry {
  /** Index against HEAD ('.' = same), work tree against index ('.' = same). */
  x: string;
  y: string;
  /** The index's blob id. */
  hI: string;
}

export interface GitStatus {
  byPath: Map<string, StatusEntry>;
  /** Staged renames: old path -> new path. */
  renamed: Map<string, string>;
}

/** Parses `git status --porcelain=v2 -z` (ordinary, renamed and unmerged entries). */
export function parseStatus(out: string): GitStatus {
  const byPath = new Map<string, StatusEntry>();
  const renamed = new Map<string, string>();
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.startsWith('1 ')) {
      // 1 XY sub mH mI mW hH hI path
      const f = p.split(' ');
      byPath.set(f.slice(8).join(' '), { x: f[1][0], y: f[1][1], hI: f[7] });
    } else if (p.startsWith('2 ')) {
      // 2 XY sub mH mI mW hH hI Xscore path, then the original path as the next field
      const f = p.split(' ');
      const to = f.slice(9).join(' ');
      const from = parts[++i] ?? '';
      byPath.set(to, { x: f[1][0], y: f[1][1], hI: f[7] });
      if (from) renamed.set(from, to);
    } else if (p.startsWith('u ')) {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path: a conflict is an uncommitted change
      const f = p.split(' ');
      byPath.set(f.slice(10).join(' '), { x: 'U', y: 'U', hI: '' });
    }
  }
  return { byPath, renamed };
}

/** git's output (stdout) for `args` in the repo, or undefined when it fails (no git, a timeout, exit != 0). */
function git(repo: GitRepo, args: string[]): string | undefined {
  // Loaded here: a hook that checks nothing never pays for node:child_process.
  const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
  const r = spawnSync('git', args, {
    cwd: repo.root,
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
    encoding: 'utf8',
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: 64 << 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return r.status === 0 && typeof r.stdout === 'string' ? r.stdout : undefined;
}

/** git's output for args, from answers when key is found there (and kept there when git answers). */
function gitKept(repo: GitRepo, args: string[], answers?: GitAnswers, key?: string, keptOnly = false): string | undefined {
  const kept = answers && key ? answers.get(key) : undefined;
  if (kept !== undefined || keptOnly) return kept;
  const out = git(repo, args);
  if (out !== undefined && answers && key) answers.set(key, out);
  return out;
}

/**
 * `git status` of the work tree, without taking the index lock; undefined when git cannot run.
 * With answers and a key (what the status depends on: see checkWorktree), a kept answer is reused.
 */
export function gitStatus(repo: GitRepo, paths?: string[], answers?: GitAnswers, key?: string, keptOnly = false): GitStatus | undefined {
  const spec = paths ? ['--', ...paths.map((p) => `:(literal)${p}`)] : [];
  const out = gitKept(repo, ['status', '--porcelain=v2', '-z', '--untracked-files=no', '--ignore-submodules=all', ...spec], answers, key, keptOnly);
  return out === undefined ? undefined : parseStatus(out);
}

/**
 * Renames git finds between a commit and HEAD (its rename detection: a file renamed and edited in
 * one commit pairs up when the two are at least half the same): old path -> new path. Undefined when
 * git cannot tell (no git, the commit unknown here).
 */
export function gitRenames(repo: GitRepo, commit: string, answers?: GitAnswers, head?: string | null, keptOnly = false): Map<string, string> | undefined {
  // Two commits never change: their renames are kept under both ids.
  const key = head ? `renames\0${repo.root}\0${commit}\0${head}` : undefined;
  const out = gitKept(repo, ['diff', '--name-status', '-z', '-M', '--diff-filter=R', '--no-ext-diff', commit, head ?? 'HEAD'], answers, key, keptOnly);
  return out === undefined ? undefined : parseRenames(out);
}

/** Parses `git diff --name-status -z` for its renames (R<score>, old, new). */
export function parseRenames(out: string): Map<string, string> {
  const renamed = new Map<string, string>();
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (/^[RC]\d*$/.test(p)) {
      const from = parts[++i] ?? '';
      const to = parts[++i] ?? '';
      if (p[0] === 'R' && from && to) renamed.set(from, to);
    } else if (/^[AMDTUX]$/.test(p)) i++;
  }
  return renamed;
}

function hashFile(abs: string): string | null | undefined {
  try {
    const st = fs.statSync(abs);
    if (!st.isFile()) return null;
    if (st.size > MAX_BYTES) return undefined;
    return blobId(fs.readFileSync(abs));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

/**
 * One cited file as it is now. Returns undefined when it cannot be told (too big, unreadable).
 * With no git status (git missing), a file is judged by its content alone and no change kind is given.
 */
function checkOne(repo: GitRepo, rel: string, blobs: string[], index: Map<string, IndexEntry> | undefined, status: GitStatus | undefined, byBlob: () => Map<string, string[]>): CheckFile | undefined {
  const abs = path.join(repo.root, rel);
  const moved = (to: string, change: CheckFile['change']): CheckFile => ({ path: rel, blob: null, gone: true, movedTo: to, ...(change ? { change } : {}) });
  if (status) {
    const to = status.renamed.get(rel);
    if (to) return moved(to, 'uncommitted');
    const st = status.byPath.get(rel);
    if (st) {
      if (st.y === 'D' || (st.x === 'D' && st.y === '.')) {
        const to = blobs.flatMap((b) => byBlob().get(b) ?? []).find((p) => p !== rel && fs.existsSync(path.join(repo.root, p)));
        return to ? moved(to, 'uncommitted') : { path: rel, blob: null, gone: true, change: 'uncommitted' };
      }
      const blob = st.y === '.' && st.hI && !/^0+$/.test(st.hI) ? st.hI : hashFile(abs);
      if (blob === undefined) return undefined;
      if (blob === null) return { path: rel, blob: null, gone: true, change: 'uncommitted' };
      return { path: rel, blob, tracked: true, change: 'uncommitted' };
    }
    const entry = index?.get(rel);
    // Not in git status: the work tree, the index and HEAD agree, so the index's id is the content's.
    if (entry) return { path: rel, blob: entry.blob, tracked: true, change: 'committed' };
  }
  const entry = index?.get(rel);
  // No status (git missing, or not asked): a file whose stat matches its index entry has the index's id.
  const same = !status && entry ? fs.statSync(abs, { bigint: true, throwIfNoEntry: false }) : undefined;
  const blob = same && entry && statMatches(entry, same) ? entry.blob : hashFile(abs);
  if (blob === undefined) return undefined;
  if (blob !== null) return { path: rel, blob, ...(entry ? { tracked: true } : {}), ...(status ? { change: entry ? 'committed' : 'uncommitted' } : {}) };
  // Gone from the work tree and (with a status) from the index: renamed if its content is elsewhere.
  const to = blobs.flatMap((b) => byBlob().get(b) ?? []).find((p) => p !== rel);
  if (to) return moved(to, status ? 'committed' : undefined);
  return { path: rel, blob: null, gone: true, ...(status && !entry ? { change: 'committed' as const } : {}) };
}

/**
 * The first pass, in process: git's index and a stat per file (a hash only when the stat differs
 * from the index, as git itself does). Settles every file still at a cited content, every change
 * only in the work tree and every file deleted from the work tree only; 'ask' for the rest (the
 * file differs from what is cited but matches the index: committed or staged, only git can say;
 * or it left the index), which go to the one `git status`.
 */
function quick(repo: GitRepo, rel: string, blobs: string[], index: Map<string, IndexEntry> | undefined): CheckFile | 'ask' | undefined {
  const abs = path.join(repo.root, rel);
  const entry = index?.get(rel);
  let st: fs.BigIntStats;
  try {
    st = fs.statSync(abs, { bigint: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    return 'ask';
  }
  if (!st.isFile()) return 'ask';
  // Settled here only when every memory citing the file cites this very content.
  const same = (b: string) => blobs.length > 0 && blobs.every((x) => x === b);
  if (entry && statMatches(entry, st)) return same(entry.blob) ? { path: rel, blob: entry.blob, tracked: true } : 'ask';
  if (st.size > BigInt(MAX_BYTES)) return undefined;
  const blob = hashFile(abs);
  if (!blob) return blob === null ? 'ask' : undefined;
  if (same(blob)) return { path: rel, blob, ...(entry ? { tracked: true } : {}) };
  if (!entry || blob !== entry.blob) return { path: rel, blob, ...(entry ? { tracked: true } : {}), change: 'uncommitted' };
  return 'ask';
}

/**
 * The new path of a moved file (git's status may not have looked at it: it ran on the cited paths).
 * Its content differs from the cited one in the work tree (uncommitted), or else in the index and
 * HEAD as the rename itself is (the rename's own kind).
 */
function checkMoved(repo: GitRepo, to: string, blobs: string[], index: Map<string, IndexEntry> | undefined, change: CheckFile['change']): CheckFile | undefined {
  const q = quick(repo, to, blobs, index);
  if (q !== 'ask') return q;
  if (!fs.existsSync(path.join(repo.root, to))) return undefined;
  const entry = index?.get(to);
  const blob = entry ?? hashFile(path.join(repo.root, to));
  if (!blob) return undefined;
  return { path: to, blob: typeof blob === 'string' ? blob : blob.blob, tracked: true, ...(change ? { change } : {}) };
}

export interface WorktreeCheck extends FreshnessCheckRequest {
  /** The repository's root, undefined outside a repository. */
  root?: string;
}

export interface WorktreeOptions {
  /** git's earlier answers (gitAnswers.ts): a check whose key is found there starts no git process. */
  answers?: GitAnswers;
  /**
   * Start no git process: only an answer kept in answers is used. A file git would have to judge
   * (it matches the index, so is it committed or staged?) is then sent without its change kind.
   */
  keptOnly?: boolean;
}

/**
 * What `git status` says about these paths depends on: HEAD's commit, the index (its file's
 * identity: git rewrites it on every change) and each path in the work tree. The paths asked about
 * are at their index content when they exist (the first pass hashed or stat-matched them), so
 * whether each exists, and as what, is the rest. Undefined when there is no index file.
 */
function statusKey(repo: GitRepo, commit: string | null, paths: string[], scoped: boolean): string | undefined {
  const stamp = indexStamp(repo.gitDir);
  if (!stamp) return undefined;
  const states = paths.map((p) => {
    const st = fs.statSync(path.join(repo.root, p), { throwIfNoEntry: false });
    return `${p}:${!st ? 'm' : st.isFile() ? 'f' : 'o'}`;
  });
  return ['status', repo.root, commit ?? '', stamp, scoped ? 'scoped' : 'all', ...states].join('\0');
}

/** A file's identity on disk: any write changes it (the ctime moves even when the mtime is set back). */
const statKeyOf = (st: fs.BigIntStats) => `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
/**
 * A first-pass result is kept only for a file unchanged this long: a write in the same clock tick as
 * the stat could keep its size and times (git's "racily clean" entries).
 */
const SETTLED_NS = 2_000_000_000n;
/** Above this many kept files the kept first pass starts over. */
const MAX_KEPT_FILES = 4000;

/**
 * The first pass (quick) kept with git's answers for the next hook: per cited file and the blobs
 * cited for it, under the index file's identity, with the file's stat. A file whose stat and index
 * are as they were gets its result again with no index parse and no hash; any write to the file,
 * `git add`, commit or checkout changes the key.
 */
function keptQuick(repo: GitRepo, answers: GitAnswers) {
  const stamp = indexStamp(repo.gitDir);
  if (!stamp) return undefined;
  const key = `quick\0${repo.root}\0${stamp}`;
  const raw = answers.get(key);
  const parsed: unknown = raw ? JSON.parse(raw) : {};
  const files: Record<string, [string, CheckFile | 'ask']> = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, [string, CheckFile | 'ask']>) : {};
  let changed = false;
  const now = BigInt(Date.now()) * 1_000_000n;
  return {
    quick(rel: string, blobs: string[], compute: () => CheckFile | 'ask' | undefined): CheckFile | 'ask' | undefined {
      const st = fs.statSync(path.join(repo.root, rel), { bigint: true, throwIfNoEntry: false });
      if (!st || !st.isFile()) return compute();
      const k = `${rel}\0${blobs.join(',')}`;
      const sk = statKeyOf(st);
      const hit = Object.prototype.hasOwnProperty.call(files, k) ? files[k] : undefined;
      if (Array.isArray(hit) && hit[0] === sk && (hit[1] === 'ask' || (typeof hit[1] === 'object' && hit[1]?.path === rel))) return hit[1];
      const f = compute();
      if (f && now - st.mtimeNs > SETTLED_NS && now - st.ctimeNs > SETTLED_NS) {
        files[k] = [sk, f];
        changed = true;
      }
      return f;
    },
    save(): void {
      if (!changed) return;
      answers.set(key, JSON.stringify(Object.keys(files).length > MAX_KEPT_FILES ? {} : files));
    },
  };
}

/**
 * The check request for a project's cited files as the work tree at dir holds them: branch, the
 * branches it came from, commit, and per file its blob id (or gone, or moved) and whether a
 * difference is committed. Paths outside the repository are left out. Never throws.
 */
export function checkWorktree(project: string, dir: string, cited: CitedFilesResponse['files'], opts: WorktreeOptions = {}): WorktreeCheck {
  const repo = findRepo(dir);
  if (!repo) return { project, branch: null, bases: [], commit: null, files: [] };
  const head = readHead(repo);
  const base: WorktreeCheck = { project, root: repo.root, branch: head.branch, bases: safe(() => baseBranches(repo, head.branch), []), commit: head.commit, files: [] };
  const local = cited.filter((c) => !c.path.startsWith('/') && !/^[A-Za-z]:\//.test(c.path) && !c.path.startsWith('../'));
  if (local.length === 0) return base;
  // The index is read (and parsed) only when a file's kept first pass does not fit.
  let loaded = false;
  let idx: Map<string, IndexEntry> | undefined;
  const getIndex = () => {
    if (!loaded) idx = safe(() => readIndex(repo), undefined);
    loaded = true;
    return idx;
  };
  let byBlob: Map<string, string[]> | undefined;
  const blobs = () => (byBlob ??= getIndex() ? pathsByBlob(getIndex() as Map<string, IndexEntry>) : new Map());
  const asks: CitedFilesResponse['files'] = [];
  const kept = opts.answers ? safe(() => keptQuick(repo, opts.answers as GitAnswers), undefined) : undefined;
  for (const c of local) {
    const f = kept ? kept.quick(c.path, c.blobs, () => safe(() => quick(repo, c.path, c.blobs, getIndex()), undefined)) : safe(() => quick(repo, c.path, c.blobs, getIndex()), undefined);
    if (f === 'ask') asks.push(c);
    else if (f) base.files.push(f);
  }
  if (kept) safe(() => kept.save(), undefined);
  if (asks.length === 0) return base; // nothing differs from what is cited: no git process
  const index = getIndex();
  // A few files: git looks at those only (the file-context hook asks about one).
  const scoped = asks.length <= 8;
  const key = opts.answers ? safe(() => statusKey(repo, head.commit, asks.map((c) => c.path), scoped), undefined) : undefined;
  const status = safe(() => gitStatus(repo, scoped ? asks.map((c) => c.path) : undefined, opts.answers, key, opts.keptOnly === true), undefined);
  const found: { c: CitedFilesResponse['files'][number]; f: CheckFile }[] = [];
  for (const c of asks) {
    const f = safe(() => checkOne(repo, c.path, c.blobs, index, status, blobs), undefined);
    if (f) found.push({ c, f });
  }
  // Gone, and not at its cited content anywhere: git's rename detection from the commit the file
  // was cited at (one `git diff` for all of them: the commit most of them were cited at).
  const lost = status ? found.filter(({ c, f }) => f.gone && !f.movedTo && c.commit && c.commit !== head.commit) : [];
  if (lost.length > 0) {
    const count = new Map<string, number>();
    for (const { c } of lost) count.set(c.commit as string, (count.get(c.commit as string) ?? 0) + 1);
    const from = [...count].sort((a, b) => b[1] - a[1])[0][0];
    const renames = safe(() => gitRenames(repo, from, opts.answers, head.commit, opts.keptOnly === true), undefined);
    for (const x of lost) {
      const to = renames?.get(x.c.path);
      if (to) x.f = { path: x.c.path, blob: null, gone: true, movedTo: to, change: 'committed' };
    }
  }
  for (const { c, f } of found) {
    base.files.push(f);
    // A file that moved: its new path is checked too (after the move, so the worker judges the
    // citations that followed it): a rename with edits reads "renamed to X (and changed)".
    if (f.movedTo) {
      const g = safe(() => checkMoved(repo, f.movedTo as string, c.blobs, index, f.change), undefined);
      if (g) base.files.push(g);
    }
  }
  return base;
}

/** The branch view of dir (no file read beyond HEAD and the reflogs): for requests that carry the branch. */
export function branchOf(dir: string): { branch: string | null; bases: string[]; root?: string } {
  const repo = safe(() => findRepo(dir), undefined);
  if (!repo) return { branch: null, bases: [] };
  const head = safe(() => readHead(repo), { branch: null, commit: null });
  return { root: repo.root, branch: head.branch, bases: safe(() => baseBranches(repo, head.branch), []) };
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
