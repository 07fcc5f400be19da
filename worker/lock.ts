// One writer per data dir: worker.pid is created exclusively. A lock whose process is gone
// (a crashed worker) is taken over; a live one means another worker already serves this dir.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LockInfo {
  pid: number;
  port: number;
  startedAt: number;
  /** The worker answers the hook spool (common/spool.ts). */
  spool?: boolean;
}

export function lockPath(dataDir: string): string {
  return path.join(dataDir, 'worker.pid');
}

export function readLock(dataDir: string): LockInfo | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(lockPath(dataDir), 'utf8')) as Partial<LockInfo>;
    return typeof v.pid === 'number' && typeof v.port === 'number' ? { pid: v.pid, port: v.port, startedAt: Number(v.startedAt ?? 0), spool: v.spool === true } : undefined;
  } catch {
    return undefined;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type LockResult = { ok: true } | { ok: false; holder: LockInfo };

export function acquireLock(dataDir: string, port: number): LockResult {
  const file = lockPath(dataDir);
  const mine: LockInfo = { pid: process.pid, port, startedAt: Date.now() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx', mode: 0o600 });
      return { ok: true };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readLock(dataDir);
    if (holder && holder.pid !== process.pid && processAlive(holder.pid)) return { ok: false, holder };
    // Stale (crashed worker) or unreadable (torn write). Move it aside atomically; if what we moved
    // turns out to be a live lock that a racing starter just wrote, put it back and yield to it.
    const aside = `${file}.stale-${process.pid}`;
    try {
      fs.renameSync(file, aside);
    } catch {
      continue; // someone else moved it first
    }
    let moved: LockInfo | undefined;
    try {
      const v = JSON.parse(fs.readFileSync(aside, 'utf8')) as Partial<LockInfo>;
      if (typeof v.pid === 'number' && typeof v.port === 'number') moved = { pid: v.pid, port: v.port, startedAt: Number(v.startedAt ?? 0) };
    } catch {
      /* torn: stale */
    }
    if (moved && moved.pid !== process.pid && processAlive(moved.pid)) {
      try {
        fs.linkSync(aside, file);
      } catch {
        /* a third starter holds it now */
      }
      fs.rmSync(aside, { force: true });
      return { ok: false, holder: moved };
    }
    fs.rmSync(aside, { force: true });
  }
  const holder = readLock(dataDir);
  return holder ? { ok: false, holder } : { ok: true };
}

/**
 * Records the real port once bound (port 0 picks one) and whether the hook spool is served. Written
 * aside and renamed: hooks read this file and must never see it half written.
 */
export function updateLock(dataDir: string, change: { port: number; spool?: boolean }): void {
  const cur = readLock(dataDir);
  if (!cur || cur.pid !== process.pid) return;
  const file = lockPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify({ ...cur, ...change }), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function releaseLock(dataDir: string): void {
  const cur = readLock(dataDir);
  if (cur && cur.pid === process.pid) {
    try {
      fs.unlinkSync(lockPath(dataDir));
    } catch {
      /* gone */
    }
  }
}
