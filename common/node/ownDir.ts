// A directory only its user controls: owned by this uid and writable by nobody else. The worker
// checks the data dir and its db/, spool/ and logs/ at start (worker/dataDir.ts); the hook CLI
// checks the data dir and spool/ before it hands a request over the spool (cli/hooks/spool.ts).
// Named imports only: the hook CLI bundles this (see config.ts).
import { lstatSync, statSync, type Stats } from 'node:fs';

export interface DirCheck {
  /** The directory is fine (owned by us, writable by nobody else). */
  ok: boolean;
  /** Why it is not, in a sentence that says what to run. */
  problem?: string;
  /** What lstat saw: a real directory (not a symlink) owned by us, so its mode may be tightened. */
  ownReal?: boolean;
  /** Its permission bits (of the directory a link points at, for a link). */
  mode?: number;
}

/** The uid that must own the data dir; undefined where there are no uids (Windows). */
export function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Checks one directory. A symlink is judged by what it points at and must itself belong to us (or
 * root); it is never chmodded. Missing directories are reported as such (the caller creates them).
 */
export function checkOwnDir(dir: string, uid: number | undefined = myUid()): DirCheck {
  if (uid === undefined) return { ok: true };
  let l: Stats;
  let s: Stats;
  try {
    l = lstatSync(dir);
    s = l.isSymbolicLink() ? statSync(dir) : l;
  } catch (e) {
    return { ok: false, problem: `${dir} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  }
  if (!s.isDirectory()) return { ok: false, problem: `${dir} is not a directory; move it away (it is not one the worker made)` };
  if (l.isSymbolicLink() && l.uid !== uid && l.uid !== 0) {
    return { ok: false, problem: `${dir} is a symbolic link owned by uid ${l.uid}, not by you (uid ${uid}); remove it and let the worker create the folder` };
  }
  if (s.uid !== uid) {
    return {
      ok: false,
      problem: `${dir} belongs to uid ${s.uid}, not to you (uid ${uid}): another user could plant or swap the files the worker reads. Move it away and let the worker create a new one (or, as root, \`chown -R ${uid} ${dir}\`), or set CLAUDE_MEM_DATA_DIR to a folder of your own`,
    };
  }
  const mode = s.mode & 0o7777;
  if ((mode & 0o022) !== 0) {
    return {
      ok: false,
      mode,
      problem: `${dir} is writable by ${(mode & 0o020) !== 0 ? 'its group' : ''}${(mode & 0o022) === 0o022 ? ' and ' : ''}${(mode & 0o002) !== 0 ? 'other users' : ''} (mode ${mode.toString(8).padStart(4, '0')}): someone else could have planted files in it. Check what it holds, then run \`chmod 700 ${dir}\``,
    };
  }
  return { ok: true, ownReal: !l.isSymbolicLink(), mode };
}
