// The data dir belongs to its user: before the worker reads or writes anything there, the data dir
// and its db/, spool/ and logs/ must be owned by this uid and writable by nobody else.
//
// A folder that is too open is refused, never silently fixed: while it was writable by others they
// could have planted a journal segment, a snapshot, or a symlink the worker would follow, and a
// chmod would not take those out. Read and search bits for group and others are taken away from
// folders we own (a real folder, not a symlink: a chmod through a link changes what it points at),
// since nobody else could have written there. Missing folders are created 0700.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkOwnDir } from '../common/node/ownDir';
import { SPOOL_DIR } from '../common/spool';

/** The folders checked at start, besides the data dir itself. */
export const DATA_SUBDIRS = ['db', SPOOL_DIR, 'logs'] as const;

/**
 * Creates what is missing and checks every folder. Returns the problems (empty when the worker may
 * start); each says what is wrong and what to run.
 */
export function prepareDataDir(dataDir: string): string[] {
  const problems: string[] = [];
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    return [`data dir ${dataDir} cannot be created (${(e as Error).message}); set CLAUDE_MEM_DATA_DIR to a folder of your own`];
  }
  const top = checkDir(dataDir);
  if (top) return [top]; // never create anything inside a folder that is not ours
  for (const sub of DATA_SUBDIRS) {
    const dir = path.join(dataDir, sub);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        problems.push(`${dir} cannot be created (${(e as Error).message})`);
        continue;
      }
    }
    const p = checkDir(dir);
    if (p) problems.push(p);
  }
  if (problems.length === 0) {
    try {
      fs.accessSync(dataDir, fs.constants.W_OK);
    } catch (e) {
      problems.push(`data dir ${dataDir} is not writable (${(e as Error).message}); the worker needs to write its journal there`);
    }
  }
  return problems;
}

/** One folder's problem, or undefined once it is ours (and tightened to 0700 when it is a real folder). */
function checkDir(dir: string): string | undefined {
  const c = checkOwnDir(dir);
  if (!c.ok) return c.problem;
  if (c.ownReal && c.mode !== undefined && (c.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(dir, 0o700);
    } catch (e) {
      return `${dir} cannot be made private (chmod 700: ${(e as Error).message})`;
    }
  }
  return undefined;
}
