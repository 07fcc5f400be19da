// Which file histories a session has already been shown, so a re-Read of an unchanged file with
// no new observations stays silent. One small JSON file per session under <dataDir>/hooks/.
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const WEEK_MS = 7 * 24 * 3600 * 1000;

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

/** True when (file, signature) is new for this session; records it. */
export function claim(dataDir: string, sessionId: string, absPath: string, signature: string): boolean {
  const file = fileOf(dataDir, sessionId);
  const state = read(file);
  if (state[absPath] === signature) return false;
  const isNew = Object.keys(state).length === 0;
  state[absPath] = signature;
  try {
    mkdirSync(dirOf(dataDir), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state), { mode: 0o600 });
    renameSync(tmp, file);
    if (isNew) prune(dataDir);
  } catch {
    /* state is an optimisation: at worst a history is shown twice */
  }
  return true;
}

export function forgetSession(dataDir: string, sessionId: string): void {
  try {
    unlinkSync(fileOf(dataDir, sessionId));
  } catch {
    /* never had one */
  }
}

/** Sessions that never ended leave their file behind: drop those older than a week. */
function prune(dataDir: string): void {
  const dir = dirOf(dataDir);
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    try {
      if (now - statSync(p).mtimeMs > WEEK_MS) unlinkSync(p);
    } catch {
      /* raced with another hook */
    }
  }
}
