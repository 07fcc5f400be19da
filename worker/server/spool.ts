// Serves the hook spool (common/spool.ts): request files that hooks on this machine drop into
// <dataDir>/spool are answered through the same app, guards and routes as HTTP. A watcher picks
// files up at once; a sweep each second catches what a watcher missed and clears answers nobody
// collected. A request claimed by a worker that died is answered by the next one (ingest is
// idempotent on tool use id and prompt, so a replay stores nothing twice).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SPOOL_DIR, SPOOL_ID_RE, SPOOL_MAX_REQUEST_BYTES, validSpoolRequest, type SpoolRequest, type SpoolResponse } from '../../common/spool';
import type { Logger } from '../../common/node/log';

export interface SpoolOptions {
  dataDir: string;
  token: string;
  port: () => number;
  /** The app's fetch; a request's body comes as env.spoolBody (see bodyText in ./http). */
  fetch: (req: Request, env: SpoolEnv) => Response | Promise<Response>;
  log: Logger;
}

/** What the spool hands the app beside the Request. */
export interface SpoolEnv {
  /** The request body. A WHATWG Request with a body builds a ReadableStream that reading consumes again: 0.3 ms of a hook's wait. */
  spoolBody?: string;
}

export interface Spool {
  dir: string;
  stop(): void;
}

/** Answers and half-written files older than this are nobody's any more (a hook waits at most a few seconds). */
const ORPHAN_MS = 30_000;

/** Opens a request file without following a link or waiting on a FIFO (O_NONBLOCK), and never on a device. */
const OPEN_REQUEST = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The request file's text, or why it is refused: only a regular file reached without a link, no
 * bigger than the cap (checked on the open file, before reading). A symlink (to /dev/zero, to a file
 * outside the data dir), a FIFO or a device is never read.
 */
export function readRequest(work: string): string | { status: number; message: string } {
  let fd: number;
  try {
    fd = fs.openSync(work, OPEN_REQUEST);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { status: 400, message: code === 'ELOOP' ? 'spool request is a symbolic link; refused' : `spool request cannot be opened (${code ?? (e as Error).message})` };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { status: 400, message: 'spool request is not a regular file (a FIFO, device or folder); refused' };
    if (st.size > SPOOL_MAX_REQUEST_BYTES) return { status: 413, message: `request file is larger than ${SPOOL_MAX_REQUEST_BYTES} bytes` };
    const buf = Buffer.allocUnsafe(st.size + 1); // one byte more: a file that grew meanwhile is refused
    let n = 0;
    for (;;) {
      const r = fs.readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n > st.size) return { status: 413, message: 'spool request grew while it was read; refused' };
    }
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes an answer with exclusive create (a planted <id>.res-tmp, a symlink among others, is removed,
 * never written through), then renames it into place (a rename replaces a link, never follows it).
 */
export function writeAnswer(tmp: string, dest: string, text: string): void {
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      fs.unlinkSync(tmp); // removes the link itself
    }
  }
  try {
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, dest);
}

export function startSpool(o: SpoolOptions): Spool {
  const dir = path.join(o.dataDir, SPOOL_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const busy = new Set<string>();
  let stopped = false;

  const file = (id: string, ext: string) => path.join(dir, `${id}${ext}`);

  /** The answer, and the request when it was one (its ack decides whether anyone reads the answer). */
  async function answer(id: string): Promise<{ res: SpoolResponse; req?: SpoolRequest }> {
    const read = readRequest(file(id, '.work'));
    if (typeof read !== 'string') return { res: error(read.status, read.message) };
    let req: unknown;
    try {
      req = JSON.parse(read);
    } catch {
      return { res: error(400, 'malformed spool request (not JSON)') };
    }
    if (!validSpoolRequest(req)) return { res: error(400, 'malformed spool request (method, path under /api/, or body)') };
    const host = `127.0.0.1:${o.port()}`;
    const headers: Record<string, string> = { host, authorization: `Bearer ${o.token}`, accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    const res = await o.fetch(new Request(`http://${host}${req.path}`, { method: req.method, headers }), { spoolBody: req.body });
    return { res: { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() }, req };
  }

  /** A request handed over at the claim has nobody to tell of a refusal but this log. */
  function logUnread(req: SpoolRequest, res: SpoolResponse): void {
    if (res.status < 400) return;
    const what = `spool: ${req.method} ${req.path.split('?')[0]} (handed over at the claim) answered ${res.status}: ${res.body.slice(0, 500)}`;
    if (res.status >= 500 || res.status === 429) o.log.warn(`${what}; dropped`);
    else o.log.error(what);
  }

  function error(status: number, message: string): SpoolResponse {
    o.log.warn(`spool: ${message}`);
    return { status, contentType: 'application/json', body: JSON.stringify({ error: message }) };
  }

  async function serve(id: string, claimed: boolean): Promise<void> {
    if (busy.has(id) || stopped) return;
    busy.add(id);
    try {
      if (!claimed) {
        try {
          fs.renameSync(file(id, '.req'), file(id, '.work'));
        } catch {
          return; // taken back by the hook, or already served
        }
      }
      let out: { res: SpoolResponse; req?: SpoolRequest };
      try {
        out = await answer(id);
      } catch (e) {
        out = { res: error(500, `spool request failed: ${(e as Error).message}`) };
      }
      if (out.req?.ack === 'claim') logUnread(out.req, out.res);
      else {
        writeAnswer(file(id, '.res-tmp'), file(id, '.res'), JSON.stringify(out.res));
      }
      fs.rmSync(file(id, '.work'), { force: true });
    } catch (e) {
      o.log.error(`spool: ${id}: ${(e as Error).message}`);
    } finally {
      busy.delete(id);
    }
  }

  function take(name: string, now: number): void {
    const dot = name.indexOf('.');
    const id = dot > 0 ? name.slice(0, dot) : '';
    if (!SPOOL_ID_RE.test(id)) return;
    const ext = name.slice(dot);
    if (ext === '.req') void serve(id, false);
    else if (now > 0 && (ext === '.res' || ext === '.tmp' || ext === '.res-tmp')) {
      try {
        if (now - fs.lstatSync(path.join(dir, name)).mtimeMs > ORPHAN_MS) fs.rmSync(path.join(dir, name), { force: true });
      } catch {
        /* collected meanwhile */
      }
    }
  }

  function sweep(): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (e) {
      o.log.warn(`spool: cannot list ${dir}: ${(e as Error).message}`);
      return;
    }
    const now = Date.now();
    for (const n of names) take(n, now);
  }

  // Requests a previous worker claimed and never answered: answer them now.
  for (const n of fs.readdirSync(dir)) {
    if (n.endsWith('.work') && SPOOL_ID_RE.test(n.slice(0, -5))) void serve(n.slice(0, -5), true);
  }
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(dir, (_event, name) => {
      if (name) take(String(name), 0);
    });
    watcher.on('error', (e) => o.log.warn(`spool: watcher failed (${e.message}); the sweep carries on`));
  } catch (e) {
    o.log.warn(`spool: cannot watch ${dir} (${(e as Error).message}); polling each second`);
  }
  const timer = setInterval(sweep, 1000);
  timer.unref();
  sweep();

  return {
    dir,
    stop() {
      stopped = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
