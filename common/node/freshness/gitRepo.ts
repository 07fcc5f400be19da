// Reads what freshness needs from a git work tree by its files, in process (no `git` child: a hook
// must stay fast): the repository root, HEAD's branch and commit, the branch a branch was created
// from (its reflog's first line), the index's blob ids with their stat data, and blob ids of file
// contents (`git hash-object`: sha1 of "blob <len>\0" + content). Node builtins only: the hook CLI,
// the extension and the bench import it. Nothing here writes to the repository.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha1Hex, SMALL } from './sha1';

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
export function blobId(content: Uint8Array): string {
  const header = Buffer.from(`blob ${content.length}\0`, 'latin1');
  if (content.length <= SMALL) return sha1Hex([header, content]);
  // Loaded only for big files: node:crypto's start-up costs a hook more than hashing in WebAssembly.
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  return createHash('sha1').update(header).update(content).digest('hex');
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

function shortBranch(ref: string): string {
  if (ref.startsWith('refs/heads/')) return ref.slice('refs/heads/'.length);
  if (ref.startsWith('refs/remotes/')) return ref.slice(ref.indexOf('/', 'refs/remotes/'.length) + 1);
  for (const remote of ['origin/', 'upstream/']) if (ref.startsWith(remote)) return ref.slice(remote.length);
  return ref;
}

function isHex(s: string): boolean {
  if (s.length < 7) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

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

/** The first line of a file. A branch's own reflog is small; readFileSync is the call a hook already uses. */
function firstLine(file: string): string | undefined {
  const text = readText(file);
  if (text === undefined) return undefined;
  const nl = text.indexOf('\n');
  return nl >= 0 ? text.slice(0, nl) : text;
}

/** The repository holding dir (walking up), or undefined outside one. */
export function findRepo(dir: string): GitRepo | undefined {
  let cur = path.resolve(dir);
  for (;;) {
    const dotGit = path.join(cur, '.git');
    const st = fs.statSync(dotGit, { throwIfNoEntry: false });
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
 * main", or "Created from HEAD" and HEAD's reflog saying which branch that was, unless scanHead is
 * false): up to `hops` hops. Empty when the reflogs are gone or say nothing.
 */
export function baseBranches(repo: GitRepo, branch: string | null, hops = 3, scanHead = true): string[] {
  const out: string[] = [];
  let cur = branch;
  while (cur && out.length < hops) {
    // String search, no regular expressions: a hook compiles every one it uses.
    const first = firstLine(path.join(repo.commonDir, 'logs', 'refs', 'heads', cur));
    const marker = '\tbranch: Created from ';
    const at = first ? first.indexOf(marker) : -1;
    if (!first || at < 0) break;
    const said = first.slice(at + marker.length).trim();
    // `git checkout -b x` records "Created from HEAD": HEAD's own reflog says which branch that was.
    const from = said === 'HEAD' ? (scanHead ? checkedOutFrom(repo, cur) : undefined) : said;
    if (!from) break;
    const base = shortBranch(from);
    if (base === '' || base === 'HEAD' || isHex(base) || base === cur || out.includes(base)) break;
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

/**
 * One path's index entry without parsing the index: a native search for "<path>\0" where an entry's
 * name starts, checked against the entry's flags (name length, stage 0). Versions 2 and 3 only
 * (version 4 stores paths prefix-compressed: undefined, and the caller hashes the file).
 */
export function indexLookup(buf: Buffer, rel: string): IndexEntry | undefined {
  // "DIRC", then the version (big-endian): 2 or 3.
  if (buf.length < 12 || buf[0] !== 0x44 || buf[1] !== 0x49 || buf[2] !== 0x52 || buf[3] !== 0x43 || buf[4] | buf[5] | buf[6] || (buf[7] !== 2 && buf[7] !== 3)) return undefined;
  const needle = Buffer.from(`${rel}\0`, 'utf8');
  const nameLen = Math.min(needle.length - 1, 0xfff);
  for (let pos = buf.indexOf(needle, 12); pos >= 0; pos = buf.indexOf(needle, pos + 1)) {
    for (const ext of [0, 2]) {
      const start = pos - 62 - ext;
      if (start < 12) continue;
      const flags = buf.readUInt16BE(start + 60);
      if ((flags & 0xfff) !== nameLen || ((flags >> 12) & 3) !== 0 || Boolean(flags & 0x4000) !== (ext === 2)) continue;
      return { blob: buf.toString('hex', start + 40, start + 60), size: buf.readUInt32BE(start + 36), mtimeSec: buf.readUInt32BE(start + 8), mtimeNsec: buf.readUInt32BE(start + 12) };
    }
  }
  return undefined;
}

/** Whether a file's stat matches its index entry (then the entry's blob id is the content's). */
export function statMatches(entry: IndexEntry, st: fs.BigIntStats): boolean {
  return entry.size === Number(st.size % 4294967296n) && entry.mtimeSec === Number(st.mtimeNs / 1_000_000_000n) && entry.mtimeNsec === Number(st.mtimeNs % 1_000_000_000n);
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
  if (entry && statMatches(entry, st)) {
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
