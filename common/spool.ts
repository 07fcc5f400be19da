// The hook spool: a hook on the worker's own machine hands its request over as a file instead of a
// TCP connection. Loading node:net and connecting cost a hook about a third of its instructions
// (42.8 M + 12.4 M of ~156 M, callgrind); writing and reading a small file costs almost nothing.
//
//   hook:   <id>.tmp (written, 0600) -> rename -> <id>.req
//   worker: rename <id>.req -> <id>.work (the claim), answer through its own routes,
//           write <id>.res (tmp + rename), remove <id>.work
//   hook:   read and remove <id>.res
//
// A request marked ack: "claim" (a hook that needs no answer: an observation) is handed over at the
// claim: the hook stops waiting once <id>.req is gone, and the worker writes no <id>.res but logs a
// refusal itself. The claim is a hand-off, not a guess: <id>.work stays until the request has been
// answered, and a worker that dies holding it leaves it to the next one (ingest is idempotent).
// The hook checks such a request against the contract first, so what the route would refuse still
// fails the hook (exit 1) with the route's own sentence.
//
// Only the user can write the data dir (0700, checked at the worker's start), and whoever can reads
// auth.token too, so a file in the spool is as trusted as a bearer header; the worker adds the
// header itself. It still opens only regular files it did not reach through a link, checks their
// size before reading, writes answers with exclusive create, and takes only plain paths under
// /api/ (common/requestPath.ts). Hooks use the spool only when the data dir and spool/ pass the
// same owner check as the worker's (common/node/ownDir.ts). The worker
// advertises the spool in its lock (worker.pid: {"spool": true}); a hook uses it only for a live
// worker on its own port, and takes its request back (falling back to TCP) when nobody claims it.

import { isPlainPath } from './requestPath';

export const SPOOL_DIR = 'spool';

/** A request file's body. */
export interface SpoolRequest {
  v: 1;
  method: string;
  /** Path and query, always under /api/. */
  path: string;
  /** JSON text, when the request has a body. */
  body?: string;
  /** "claim": the hook stops waiting at the claim; no answer file is written. */
  ack?: 'claim';
}

/** A response file's body. */
export interface SpoolResponse {
  status: number;
  contentType: string;
  body: string;
}

/** Request ids: the hook's pid, time and a counter; nothing a path could be built from. */
export const SPOOL_ID_RE = /^[a-z0-9]{1,16}-[a-z0-9]{1,16}-[a-z0-9]{1,8}$/;

/** Biggest request file the worker reads (hooks send at most a few hundred KB). */
export const SPOOL_MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** Methods and paths the spool carries. */
export function validSpoolRequest(v: unknown): v is SpoolRequest {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<SpoolRequest>;
  return (
    r.v === 1 &&
    (r.method === 'GET' || r.method === 'POST' || r.method === 'PUT' || r.method === 'DELETE') &&
    typeof r.path === 'string' &&
    /^\/api\/[\x21-\x7e]*$/.test(r.path) &&
    isPlainPath(r.path) &&
    (r.body === undefined || typeof r.body === 'string') &&
    (r.ack === undefined || r.ack === 'claim')
  );
}
