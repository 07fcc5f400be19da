// git's answers kept for the next check: a hook is a new process each time, and starting `git`
// costs it more than everything else the check does. An answer is stored under a key that holds
// everything it depends on (the repository, HEAD's commit, the index file's identity and the state
// of each path asked about), so an answer found is the answer git would give now; any commit,
// `git add`, checkout or reset rewrites the index or moves HEAD and the key no longer matches.
// One small JSON file (the newest MAX_ENTRIES answers), written whole by rename.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GitAnswers {
  get(key: string): string | undefined;
  set(key: string, answer: string): void;
}

const MAX_ENTRIES = 24;
/** An answer bigger than this (a whole-tree status of a huge repository) is not kept. */
const MAX_ANSWER = 256 * 1024;

interface Stored {
  v: 1;
  entries: [string, string][];
}

/** Answers kept in `file` (created with its folder on first write); unreadable or foreign content counts as empty. */
export function gitAnswersFile(file: string): GitAnswers {
  let entries: [string, string][] | undefined;
  const load = (): [string, string][] => {
    if (entries) return entries;
    try {
      const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Stored>;
      entries = s.v === 1 && Array.isArray(s.entries) ? s.entries.filter((e) => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string') : [];
    } catch {
      entries = [];
    }
    return entries;
  };
  return {
    get: (key) => load().find((e) => e[0] === key)?.[1],
    set: (key, answer) => {
      if (answer.length > MAX_ANSWER) return;
      const next: [string, string][] = [[key, answer] as [string, string], ...load().filter((e) => e[0] !== key)].slice(0, MAX_ENTRIES);
      entries = next;
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify({ v: 1, entries: next } satisfies Stored), { mode: 0o600 });
        fs.renameSync(tmp, file);
      } catch {
        /* a full or read-only disk: the next check asks git again */
      }
    },
  };
}

/** The index file's identity: any write of it (git writes a new file and renames it) changes this. */
export function indexStamp(gitDir: string): string | undefined {
  try {
    const st = fs.statSync(path.join(gitDir, 'index'), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return undefined;
  }
}
