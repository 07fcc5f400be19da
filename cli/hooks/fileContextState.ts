// Which file histories a session has already been shown, so a re-Read of an unchanged file with
// no new observations stays silent. One small JSON file per session under <dataDir>/hooks/.
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WEEK_MS = 7 * 24 * 3600 * 1000;
const PRUNE_EVERY_MS = 3600 * 1000;

function dirOf(dataDir: string): string {
  return join(dataDir, 'hooks', 'file-context');
}

function fileOf(dataDir: string, sessionId: string): string {
  return join(dirOf(dataDir), `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 120)}.json`);
}

function read(file: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/**
 * One session's record of the histories it has been shown. load() is the part that need not wait
 * for the worker's answer (the file-context hook runs it while the worker looks the history up).
 */
export class SeenFiles {
  private state: Record<string, string> | undefined;
  private readonly file: string;

  constructor(
    private readonly dataDir: string,
    sessionId: string,
  ) {
    this.file = fileOf(dataDir, sessionId);
  }

  load(): void {
    if (this.state) return;
    this.state = read(this.file);
    if (Object.keys(this.state).length > 0) return;
    try {
      mkdirSync(dirOf(this.dataDir), { recursive: true, mode: 0o700 });
      prune(this.dataDir); // a new session: the time to drop old ones
    } catch {
      /* state is an optimisation */
    }
  }

  /** True when (file, signature) is new for this session; records it. */
  claim(absPath: string, signature: string): boolean {
    this.load();
    const state = this.state as Record<string, string>;
    if (state[absPath] === signature) return false;
    state[absPath] = signature;
    try {
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch {
      /* state is an optimisation: at worst a history is shown twice */
    }
    return true;
  }
}

/** True when (file, signature) is new for this session; records it. */
export function claim(dataDir: string, sessionId: string, absPath: string, signature: string): boolean {
  return new SeenFiles(dataDir, sessionId).claim(absPath, signature);
}

export function forgetSession(dataDir: string, sessionId: string): void {
  try {
    unlinkSync(fileOf(dataDir, sessionId));
  } catch {
    /* never had one */
  }
}

/**
 * Sessions that never ended leave their file behind: drop those older than a week. At most once an
 * hour (a marker's mtime says when), not at every session's first read: a stat of each file costs.
 */
function prune(dataDir: string): void {
  const dir = dirOf(dataDir);
  const now = Date.now();
  const marker = join(dir, '.pruned');
  try {
    if (now - statSync(marker).mtimeMs < PRUNE_EVERY_MS) return;
  } catch {
    /* never pruned */
  }
  writeFileSync(marker, '', { mode: 0o600 });
  for (const name of readdirSync(dir)) {
    if (name === '.pruned') continue;
    const p = join(dir, name);
    try {
      if (now - statSync(p).mtimeMs > WEEK_MS) unlinkSync(p);
    } catch {
      /* raced with another hook */
    }
  }
}
