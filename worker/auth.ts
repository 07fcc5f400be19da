// The bearer token: random, created on first start, readable only by the user.
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export function tokenPath(dataDir: string): string {
  return path.join(dataDir, 'auth.token');
}

export function ensureToken(dataDir: string): string {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = tokenPath(dataDir);
  try {
    const existing = fs.readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) {
      fs.chmodSync(file, 0o600);
      return existing;
    }
  } catch {
    /* first start */
  }
  const token = randomBytes(32).toString('hex');
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, token, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file); // fails if another starter won the race: use theirs
  } catch {
    /* keep the winner's */
  }
  fs.unlinkSync(tmp);
  return fs.readFileSync(file, 'utf8').trim();
}

/** A checker for one expected token: constant-time (hashing first makes the lengths equal). */
export function tokenChecker(expected: string): (given: string) => boolean {
  const want = createHash('sha256').update(expected).digest();
  return (given) => timingSafeEqual(createHash('sha256').update(given).digest(), want);
}

