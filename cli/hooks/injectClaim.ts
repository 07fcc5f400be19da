// One injection per conversation: when several installed hook files run our SessionStart for one
// session (~/.claude/settings.json, ~/.copilot/hooks/, .github/hooks/: a host may read more than one),
// the first to create the claim file for that session prints the context; the others print nothing
// and exit at once. The claim is a file in <dataDir>/claims created with O_EXCL (atomic on every
// local file system) and good for CLAIM_TTL_MS, so a later SessionStart of the same session (a resume,
// a compaction) injects again. Plain fs calls only: it runs before anything else in the hook.
import { closeSync, mkdirSync, openSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Hook files a host runs for one event start within this of each other. */
export const CLAIM_TTL_MS = 20_000;
/** Claims older than this are swept when a new one is made. */
const SWEEP_MS = 24 * 3600_000;

/** A file name for a key: readable prefix plus FNV-1a of the whole (no node:crypto on the hook path). */
function fileName(key: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${key.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80)}-${h.toString(16).padStart(8, '0')}.claim`;
}

function create(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/**
 * True when this process may inject for key (it made the claim, or the last claim is older than the
 * TTL); false when another hook process of the same conversation already did. Any fs trouble: true
 * (better twice than never).
 */
export function claimInjection(dataDir: string, key: string, now = Date.now()): boolean {
  const dir = join(dataDir, 'claims');
  const file = join(dir, fileName(key));
  try {
    if (create(file)) return true;
  } catch {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (create(file)) {
        return true;
      }
    } catch {
      return true;
    }
  }
  try {
    if (now - statSync(file).mtimeMs < CLAIM_TTL_MS) return false;
    // An old claim (an earlier start of this session): taken over by whoever removes and recreates it first.
    unlinkSync(file);
    const won = create(file);
    if (won) sweep(dir, now);
    return won;
  } catch {
    return false; // another process took it over between the two calls
  }
}

function sweep(dir: string, now: number): void {
  try {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (now - statSync(p).mtimeMs > SWEEP_MS) unlinkSync(p);
    }
  } catch {
    /* best effort */
  }
}
