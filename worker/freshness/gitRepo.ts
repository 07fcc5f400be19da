// Reads what freshness needs from a git work tree by its files, in process (no `git` child: a hook
// must stay fast): the repository root, HEAD's branch and commit, the branch a branch was created
// from (its reflog's first line), the index's blob ids with their stat data, and blob ids of file
// contents (`git hash-object`: sha1 of "blob <len>\0" + content). Node builtins only: the hook CLI,
// the extension and the bench import it. Nothing here writes to the repository.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GitRepo {
  /** The work tree's root (absolute). */
  root: string;
  /** The .git directory of this work tree (a linked worktree has its own). */
  gitDir: string;
  /** Where refs, packed-refs and objects live (the main .git for a linked worktree). */
  commonDir: string;
}

export interface GitHead {
  /** null when HEAD is detached. */
  branch: string | null;
  /** null in a repository with no commit yet. */
  commit: string | null;
}

export interface IndexEntry {
  blob: string;
  size: number;
  mtimeSec: number;
  mtimeNsec: number;
}

/** The blob id git gives this content. */
export function blobId(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/** Where HEAD was when `branch` was first checked out ("checkout: moving from X to branch"). */
function checkedOutFrom(repo: GitRepo, branch: string): string | undefined {
  const needle = ` to ${branch}\n`;
  for (const dir of new Set([repo.gitDir, repo.commonDir])) {
    let text: string;
    try {
      const fd = fs.openSync(path.join(dir, 'logs', 'HEAD'), 'r');
      try {
        const buf = Buffer.alloc(Math.min(fs.fstatSync(fd).size, 1 << 20));
        text = buf.toString('utf8', 0, fs.readSync(fd, buf, 0, buf.length, 0));
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue; // no reflog here
    }
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      const start = text.lastIndexOf('\n', at) + 1;
      const m = /\tcheckout: moving from (\S+)$/.exec(text.slice(start, at));
      if (m) return m[1];
    }
  }
  return undefined;
}

/** The first line of a file (a reflog can be long: read its head only). */
function firstLine(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(1024);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8', 0, n);
    const nl = text.indexOf('\n');
    return nl >= 0 ? text.slice(0, nl) : text;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The repository holding dir (walking up), or undefined outside one. */
export function findRepo(dir: string): GitRepo | undefined {
  let cur = path.resolve(dir);
  for (;;) {
    const dotGit = path.join(cur, '.git');
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(dotGit);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) return { root: cur, gitDir: dotGit, commonDir: dotGit };
    if (st?.isFile()) {
      // A linked worktree or submodule: ".git" is a file "gitdir: <path>".
      const m = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? '');
      if (m) {
        const gitDir = path.resolve(cur, m[1].trim());
        const common = readText(path.join(gitDir, 'commondir'))?.trim();
        return { root: cur, gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
      }
    }
    const up = path.dirname(cur);
    if (up === cur) return undefined;
    cur = up;
  }
}

/** The commit a ref points at: its loose file, else packed-refs. */
export function resolveRef(repo: GitRepo, ref: string): string | null {
  for (const dir of [repo.gitDir, repo.commonDir]) {
    const loose = readText(path.join(dir, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
  }
  const packed = readText(path.join(repo.commonDir, 'packed-refs'));
  if (packed) {
    for (const line of packed.split('\n')) {
      const sp = line.indexOf(' ');
      if (sp > 0 && line.slice(sp + 1).trim() === ref && /^[0-9a-f]{40,64}$/.test(line.slice(0, sp))) return line.slice(0, sp);
    }
  }
  return null;
}

export function readHead(repo: GitRepo): GitHead {
  const head = readText(path.join(repo.gitDir, 'HEAD'))?.trim() ?? '';
  const m = /^ref:\s*(\S+)$/.exec(head);
  if (!m) return { branch: null, commit: /^[0-9a-f]{40,64}$/.test(head) ? head : null };
  const ref = m[1];
  return { branch: ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref, commit: resolveRef(repo, ref) };
}

/**
 * The branches this one came from, nearest first, as far as the reflogs say ("branch: Created from
 * main"): up to three hops. Empty when the reflog is gone or says nothing.
 */
export function baseBranches(repo: GitRepo, branch: string | null, hops = 3): string[] {
  const out: string[] = [];
  let cur = branch;
  while (cur && out.length < hops) {
    const first = firstLine(path.join(repo.commonDir, 'logs', 'refs', 'heads', cur));
    const m = first ? /\tbranch: Created from (\S+)/.exec(first) : null;
    if (!m) break;
    // `git checkout -b x` records "Created from HEAD": HEAD's own reflog says which branch that was.
    const from = m[1] === 'HEAD' ? checkedOutFrom(repo, cur) : m[1];
    if (!from) break;
    const base = from.replace(/^refs\/heads\//, '').replace(/^refs\/remotes\/[^/]+\//, '').replace(/^(origin|upstream)\//, '');
    if (base === 'HEAD' || /^[0-9a-f]{7,64}$/.test(base) || base === cur || out.includes(base)) break;
    out.push(base);
    cur = base;
  }
  return out;
}

/**
 * The index's entries by repository-relative path (stage 0 only). Versions 2, 3 and 4. Undefined
 * when there is no index or it cannot be read; callers then hash file contents.
 */
export function readIndex(repo: GitRepo): Map<string, IndexEntry> | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(path.join(repo.gitDir, 'index'));
  } catch {
    return undefined;
  }
  try {
    return parseIndex(buf);
  } catch {
    return undefined;
  }
}

export function parseIndex(buf: Buffer): Map<string, IndexEntry> {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not a git index');
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) throw new Error(`git index version ${version}`);
  const count = buf.readUInt32BE(8);
  const out = new Map<string, IndexEntry>();
  let off = 12;
  let prev = '';
  for (let i = 0; i < count; i++) {
    const start = off;
    const mtimeSec = buf.readUInt32BE(off + 8);
    const mtimeNsec = buf.readUInt32BE(off + 12);
    const size = buf.readUInt32BE(off + 36);
    const blob = buf.toString('hex', off + 40, off + 60);
    const flags = buf.readUInt16BE(off + 60);
    off += 62;
    if (version >= 3 && flags & 0x4000) off += 2; // extended flags
    let name: string;
    if (version === 4) {
      // The path is a prefix of the previous one (strip N bytes, a varint) plus a NUL-ended suffix.
      let b = buf[off++];
      let strip = b & 0x7f;
      while (b & 0x80) {
        b = buf[off++];
        strip = ((strip + 1) << 7) | (b & 0x7f);
      }
      const end = buf.indexOf(0, off);
      name = prev.slice(0, prev.length - strip) + buf.toString('utf8', off, end);
      off = end + 1;
    } else {
      const end = buf.indexOf(0, off);
      name = buf.toString('utf8', off, end);
      // Entries are padded with 1-8 NULs to a multiple of 8 bytes from their start.
      off = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    prev = name;
    const stage = (flags >> 12) & 3;
    if (stage === 0) out.set(name, { blob, size, mtimeSec, mtimeNsec });
  }
  return out;
}

export interface FileFingerprint {
  /** Repository-relative, '/'-separated (or absolute outside a repository). */
  path: string;
  /** git's blob id of the content (the same formula outside git: a content hash). */
  blob: string | null;
  /** In git's index (so the blob id is one git knows). */
  tracked: boolean;
  /** The file is not there. */
  gone?: true;
}

/**
 * The fingerprint of one file. A tracked file whose size and mtime match its index entry takes the
 * index's blob id without being read (git's own racy-clean caveat aside); anything else is hashed.
 */
export function fingerprint(root: string | undefined, rel: string, index?: Map<string, IndexEntry>): FileFingerprint {
  const abs = root ? path.join(root, rel) : rel;
  const entry = index?.get(rel);
  let st: fs.BigIntStats;
  try {
    st = fs.statSync(abs, { bigint: true });
  } catch {
    return { path: rel, blob: null, tracked: entry !== undefined, gone: true };
  }
  if (!st.isFile()) return { path: rel, blob: null, tracked: false, gone: true };
  if (entry && entry.size === Number(st.size % 4294967296n) && entry.mtimeSec === Number(st.mtimeNs / 1_000_000_000n) && entry.mtimeNsec === Number(st.mtimeNs % 1_000_000_000n)) {
    return { path: rel, blob: entry.blob, tracked: true };
  }
  try {
    return { path: rel, blob: blobId(fs.readFileSync(abs)), tracked: entry !== undefined };
  } catch {
    return { path: rel, blob: null, tracked: entry !== undefined, gone: true };
  }
}

/** The repository-relative '/'-path of abs, or undefined when it is outside the repository. */
export function relativeTo(repo: GitRepo, abs: string): string | undefined {
  const rel = path.relative(repo.root, path.resolve(repo.root, abs));
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** Paths by blob id (to find where a cited file moved). Built on demand: the index can be large. */
export function pathsByBlob(index: Map<string, IndexEntry>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [p, e] of index) {
    const list = out.get(e.blob);
    if (list) list.push(p);
    else out.set(e.blob, [p]);
  }
  return out;
}
