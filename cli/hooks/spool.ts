// A hook's worker call as a file in the worker's spool (common/spool.ts), used when a live worker on
// this machine serves it: no node:net, no connection. A request nobody claims soon is taken back,
// and the caller sends it over TCP instead, so a stale lock costs a hook a moment, never the call.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { checkOwnDir } from '../../common/node/ownDir';
import { join } from 'node:path';
import { SPOOL_DIR, type SpoolRequest, type SpoolResponse } from '../../common/spool';
import { isLoopbackHost } from '../../common/node/config';
import { decodeReply, NetworkError, type ClientTarget, type Reply } from '../client';

/** How long an unclaimed request waits before the hook takes it back (a live worker claims in ~1 ms). */
export const CLAIM_MS = 300;
/** Between looks for the answer: an existsSync is a few microseconds, and a hook has nothing else to do. */
const POLL_MS = 0.2;

let seq = 0;

/** Answers are small; a bigger file is not the worker's. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** The answer file's text: a regular file, not reached through a link, under the cap. */
function readAnswer(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_ANSWER_BYTES) throw new NetworkError(`the spool answer ${file} is not a regular file under ${MAX_ANSWER_BYTES} bytes`, 'EPROTO');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** The spool dir when this data dir's worker is alive, serves the spool, and listens on t.port. */
export function spoolFor(t: ClientTarget, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CLAUDE_MEM_HOOK_TRANSPORT === 'tcp' || !isLoopbackHost(t.host)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(join(t.dataDir, 'worker.pid'), 'utf8')) as { pid?: unknown; port?: unknown; spool?: unknown };
    if (lock.spool !== true || lock.port !== t.port || typeof lock.pid !== 'number') return undefined;
    process.kill(lock.pid, 0); // throws for a dead worker (EPERM: another user's process, not ours)
    // Only a spool nobody else could write (the worker's own start check): otherwise another user
    // could answer this hook. Two lstat calls; TCP and the worker's proof remain.
    const dir = join(t.dataDir, SPOOL_DIR);
    if (!checkOwnDir(t.dataDir).ok || !checkOwnDir(dir).ok) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Blocks the thread for ms. The hook has nothing else to do while it waits, and a pending
 * Atomics.waitAsync does not keep a Node process alive (a timer would, at the cost of its JavaScript).
 */
const cell = typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(4)) : undefined;
function pause(ms: number): void {
  if (cell) Atomics.wait(cell, 0, 0, ms);
}

/** What a request handed over at the claim gets back: the worker has it (common/spool.ts). */
export const CLAIMED: Reply<{ claimed: true }> = { status: 202, body: { claimed: true }, headers: { 'content-type': 'application/json' } };

/**
 * Sends one request through the spool and waits (blocking) for the answer, or with ackAtClaim only
 * until a worker claims it (CLAIMED); meanwhile runs once the request is out, before the wait.
 * Returns undefined when no worker claimed it within CLAIM_MS (the request was taken back: send it
 * over TCP); throws NetworkError ETIMEDOUT when a claimed request is not answered within timeoutMs
 * (the worker will still answer it, as it would a request whose client went away).
 */
export function spoolRequest<T>(dir: string, method: string, urlPath: string, body: unknown, timeoutMs: number, ackAtClaim = false, meanwhile?: () => void): Reply<T> | undefined {
  const id = `${process.pid.toString(36)}-${Date.now().toString(36)}-${(seq++).toString(36)}`;
  const req: SpoolRequest = { v: 1, method, path: urlPath };
  if (body !== undefined) req.body = typeof body === 'string' ? body : JSON.stringify(body);
  if (ackAtClaim) req.ack = 'claim';
  const base = join(dir, id);
  writeFileSync(`${base}.tmp`, JSON.stringify(req), { mode: 0o600, flag: 'wx' });
  renameSync(`${base}.tmp`, `${base}.req`);
  const start = Date.now();
  meanwhile?.();
  let claimed = false;
  for (;;) {
    // existsSync first: a failed read throws, and an Error with its stack on every poll costs more
    // than the poll.
    const text = existsSync(`${base}.res`) ? readAnswer(`${base}.res`) : undefined;
    if (text !== undefined) {
      try {
        unlinkSync(`${base}.res`);
      } catch {
        /* collected by the sweep */
      }
      const res = JSON.parse(text) as SpoolResponse;
      return decodeReply<T>({ status: res.status, headers: { 'content-type': res.contentType }, body: res.body });
    }
    const waited = Date.now() - start;
    if (!claimed && !existsSync(`${base}.req`)) claimed = true;
    if (claimed && ackAtClaim) return CLAIMED as Reply<T>;
    if (!claimed && waited >= Math.min(CLAIM_MS, timeoutMs)) {
      try {
        unlinkSync(`${base}.req`); // taken back: no worker will see it
        return undefined;
      } catch {
        claimed = true; // claimed just now
        if (ackAtClaim) return CLAIMED as Reply<T>;
      }
    }
    if (waited >= timeoutMs) throw new NetworkError(`${method} ${urlPath.split('?')[0]} through the spool timed out after ${timeoutMs} ms`, 'ETIMEDOUT');
    pause(POLL_MS);
  }
}
