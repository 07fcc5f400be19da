// Proof that the process on the port is our worker, given without sending it the token: the client
// sends a fresh nonce to the public GET /api/health?nonce=…, the worker answers with an HMAC-SHA256
// under the token of the nonce, its port, its data dir and its pid. A squatter on the port has no
// token and cannot answer; a worker of another data dir answers with the wrong dir or token.
// Shared by the worker, the hook CLI and the extension. Named imports and a lazy node:crypto: the
// hook CLI bundles this, and most hooks only read the proof cache (no crypto at all).
import { readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Crypto = typeof import('node:crypto');
let cryptoMod: Crypto | undefined;
const crypto = (): Crypto => (cryptoMod ??= require('node:crypto') as Crypto);

/** Nonces the worker accepts: long enough to be fresh, short enough to be cheap. */
export const NONCE_RE = /^[A-Za-z0-9_-]{16,128}$/;

/** Is process pid alive (signal 0 probes without sending anything)? */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function newNonce(): string {
  return crypto().randomBytes(16).toString('hex');
}

/** The data dir as both sides name it: its real path (case-folded where the file system is). */
export function dataDirIdentity(dataDir: string): string {
  let p = dataDir;
  try {
    p = realpathSync.native(dataDir);
  } catch {
    /* not there yet: the path as given */
  }
  return process.platform === 'win32' || process.platform === 'darwin' ? p.toLowerCase() : p;
}

export interface ProofInput {
  nonce: string;
  port: number;
  dataDir: string;
  pid: number;
}

export function identityProof(token: string, i: ProofInput): string {
  const msg = `claude-mem-vscode/identity/v1\n${i.nonce}\n${i.port}\n${i.dataDir}\n${i.pid}`;
  return crypto().createHmac('sha256', token).update(msg).digest('hex');
}

/** Constant-time comparison of two hex proofs. */
export function proofMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return crypto().timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

// ---- the proof cache: most hooks skip the round trip ------------------------------------------
//
// After a successful proof, a client records {host, port, pid} in <dataDir>/worker.proof (0600).
// A later client trusts it, with no request, while worker.pid (the data dir's lock) names the same
// live pid on the same port: that process bound the port and proved it holds the token, and no
// other process can bind the port while it lives. The worker deletes the file when it stops; a
// crashed worker's pid is dead. Only the user can write the data dir (0700), and whoever can, can
// read auth.token anyway.

export interface ProvenWorker {
  host: string;
  port: number;
  pid: number;
}

export function proofCachePath(dataDir: string): string {
  return join(dataDir, 'worker.proof');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0); // EPERM: a process of another user, never our worker
    return true;
  } catch {
    return false;
  }
}

/** The cached proof, if it still holds for this host and port. */
export function cachedProof(dataDir: string, host: string, port: number): ProvenWorker | undefined {
  try {
    const c = JSON.parse(readFileSync(proofCachePath(dataDir), 'utf8')) as Partial<ProvenWorker>;
    if (c.host !== host || c.port !== port || typeof c.pid !== 'number') return undefined;
    const lock = JSON.parse(readFileSync(join(dataDir, 'worker.pid'), 'utf8')) as { pid?: unknown; port?: unknown };
    if (lock.pid !== c.pid || lock.port !== port || !alive(c.pid)) return undefined;
    return { host, port, pid: c.pid };
  } catch {
    return undefined;
  }
}

/** Records a proof (only for the worker that holds this data dir's lock, on this port). */
export function saveProof(dataDir: string, w: ProvenWorker): void {
  try {
    const lock = JSON.parse(readFileSync(join(dataDir, 'worker.pid'), 'utf8')) as { pid?: unknown; port?: unknown };
    if (lock.pid !== w.pid || lock.port !== w.port) return;
    const file = proofCachePath(dataDir);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ host: w.host, port: w.port, pid: w.pid }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    /* a cache: the next client proves again */
  }
}

export function dropProof(dataDir: string): void {
  try {
    rmSync(proofCachePath(dataDir), { force: true });
  } catch {
    /* gone */
  }
}

/** Why a health answer is not our worker (undefined when it proved itself). */
export function checkHealthProof(body: unknown, token: string | undefined, expect: { nonce: string; port: number; dataDir: string }): string | undefined {
  if (!body || typeof body !== 'object') return 'it did not answer with a claude-mem health reply';
  const b = body as { service?: unknown; pid?: unknown; proof?: unknown };
  if (b.service !== 'claude-mem-vscode') return 'it is not a claude-mem worker';
  if (!token) return `there is no auth.token in ${expect.dataDir}, so it cannot be checked`;
  if (typeof b.pid !== 'number') return 'its health reply has no pid';
  if (typeof b.proof !== 'string') return 'it gave no identity proof (an older worker, or not the worker for this data dir)';
  const want = identityProof(token, { nonce: expect.nonce, port: expect.port, dataDir: dataDirIdentity(expect.dataDir), pid: b.pid });
  return proofMatches(b.proof, want) ? undefined : `it could not prove it holds the token of ${expect.dataDir} (another data dir's worker, or a program squatting the port)`;
}
