// What every hook shares: stdin, stdout, the hooks log, and a worker call that classifies failures.
// Only fs, path, the spool and the net client (loaded only when used): nothing here may slow a hook's start.
import { fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BadRequest } from '../../common/contract/validate';
import { redact } from '../../common/node/log';
import { cleanIncoming } from '../../common/privacy/incoming';
import { NetworkError, request, type ClientTarget, type Reply } from '../client';
import { tookPath } from './codePaths';
import { spoolFor, spoolRequest } from './spool';

/** Per-request budget. A hook never waits longer than this for one worker call. */
export const REQUEST_TIMEOUT_MS = 2000;

export type Json = Record<string, unknown>;

export interface StdinResult {
  input: Json;
  /** Set when stdin was empty, not JSON or not an object. */
  problem?: string;
  /** Size of what was read: bytes for a Buffer, UTF-16 units for text already decoded (log lines only). */
  bytes: number;
}

/**
 * Is stdin a terminal? Public fs calls only (node:tty costs a hook a heavy builtin): a character
 * device that is not /dev/null (hooks run with stdin closed to it are not waiting for a person).
 */
function stdinIsTerminal(): boolean {
  const st = fstatSync(0);
  if (!st.isCharacterDevice()) return false;
  if (process.platform === 'win32') return true;
  try {
    return st.rdev !== statSync('/dev/null').rdev;
  } catch {
    return true;
  }
}

/**
 * Reads all of stdin synchronously (fast; no stream machinery) and decodes it as UTF-8 (invalid
 * bytes become U+FFFD, as Buffer#toString does). A terminal counts as empty, and so does a missing
 * stdin. readFileSync(0, 'utf8') is one call into C++; the loop below (readSync into Buffers) costs a
 * hook about 1 M instructions more and is kept for a non-blocking stdin, on which that call throws
 * EAGAIN. Claude Code (like any Node or shell parent) hands us a blocking pipe; on a non-blocking
 * one whose writer is slower than us, what the first call had read before EAGAIN is lost, the JSON
 * does not parse, and the hook logs that and sends nothing (it never blocks the session).
 */
export function readStdinSync(): string | Buffer {
  try {
    // A terminal (someone ran the hook by hand): nothing to read, do not wait for one.
    if (stdinIsTerminal()) return '';
  } catch {
    return ''; // no stdin at all
  }
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EOF' || code === 'EBADF' || code === 'EINVAL') return '';
    if (code !== 'EAGAIN') throw e;
  }
  const parts: Buffer[] = [];
  const buf = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        // Non-blocking stdin: wait a moment and retry (rare; Claude Code hands us a blocking pipe).
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
        continue;
      }
      if (code === 'EOF' || code === 'EBADF' || code === 'EINVAL') break;
      throw e;
    }
    if (n === 0) break;
    parts.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(parts);
}

/** Decodes hook input: invalid UTF-8 becomes U+FFFD, a BOM is dropped, non-objects become {}. */
export function parseHookInput(raw: string | Buffer): StdinResult {
  const decoded = typeof raw === 'string' ? raw : raw.toString('utf8');
  const bytes = raw.length; // for log lines only
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  if (text.trim() === '') return { input: {}, problem: 'empty stdin', bytes };
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { input: v as Json, bytes };
    return { input: {}, problem: 'stdin JSON is not an object', bytes };
  } catch (e) {
    return { input: {}, problem: `stdin is not JSON (${(e as Error).message.slice(0, 120)})`, bytes };
  }
}

/** Writes the hook's JSON as one synchronous write; a closed stdout is ignored. */
export function writeStdout(value: unknown): void {
  try {
    writeSync(1, JSON.stringify(value));
  } catch {
    /* nobody is listening */
  }
}

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };
const MAX_LOG_BYTES = 5 * 1024 * 1024;

/** Appends to <dataDir>/logs/hooks.log, opening it only when there is something to say. */
export class HookLog {
  private fd: number | undefined;
  private failed = false;
  private readonly min: Level;

  constructor(
    private readonly dataDir: string,
    private readonly tag: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const lv = (env.CLAUDE_MEM_HOOK_LOG_LEVEL ?? '').toLowerCase();
    this.min = lv === 'debug' || lv === 'info' || lv === 'warn' || lv === 'error' ? lv : 'warn';
  }

  get file(): string {
    return join(this.dataDir, 'logs', 'hooks.log');
  }

  log(level: Level, msg: string, extra?: Json): void {
    if (ORDER[level] < ORDER[this.min]) return;
    const fd = this.open();
    if (fd === undefined) return;
    let tail = '';
    if (extra) {
      try {
        tail = ' ' + JSON.stringify(extra);
      } catch {
        tail = '';
      }
    }
    const line = redact(`${new Date().toISOString()} ${level.toUpperCase()} pid=${process.pid} ${this.tag} ${msg}${tail}`).slice(0, 8192) + '\n';
    try {
      writeSync(fd, line);
    } catch {
      /* disk full: never fail the hook over a log line */
    }
  }

  debug(msg: string, extra?: Json): void {
    this.log('debug', msg, extra);
  }
  info(msg: string, extra?: Json): void {
    this.log('info', msg, extra);
  }
  warn(msg: string, extra?: Json): void {
    this.log('warn', msg, extra);
  }
  error(msg: string, extra?: Json): void {
    this.log('error', msg, extra);
  }

  private open(): number | undefined {
    if (this.fd !== undefined || this.failed) return this.fd;
    try {
      const dir = join(this.dataDir, 'logs');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = join(dir, 'hooks.log');
      try {
        if (statSync(file).size > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
      } catch {
        /* no log yet */
      }
      this.fd = openSync(file, 'a', 0o600);
    } catch {
      this.failed = true;
    }
    return this.fd;
  }
}

export interface HookEnv {
  target: ClientTarget;
  log: HookLog;
  /** Raised to 1 by a 4xx (a bug on our side): Claude Code shows it as a non-blocking hook error. */
  exitCode: number;
  /** Lines for stderr; shown by Claude Code only with a non-zero exit. */
  stderr: string[];
}

export type CallResult<T> =
  | { ok: true; reply: Reply<T> }
  | { ok: false; reason: 'network' | 'unavailable' | 'not_found' | 'rejected'; status?: number; message: string; code?: string };

export interface CallOptions {
  timeoutMs?: number;
  /** A 404 means an older worker without the route: not_found, not our bug. */
  optionalRoute?: boolean;
  /** Through the spool, stop waiting once the worker has claimed the request (common/spool.ts). */
  ackAtClaim?: boolean;
  /** The route's own contract check (common/contract), run before sending: a BadRequest is its 4xx. */
  check?: (body: unknown) => unknown;
  /** Work that need not wait for the answer: run once the request is out, while the worker answers. */
  meanwhile?: () => void;
  /**
   * The body is a freshness check this process built (git's blob ids, the paths it checked), which
   * the route passes through the same privacy gate before anything is stored (incomingBody): the
   * hook's own pass is skipped (3.2 M instructions, the gate's first use in the process).
   */
  checkBody?: true;
}

/**
 * Calls the worker. Network errors, timeouts, 5xx and 429 are logged as warnings (the session goes
 * on); 404 is returned as not_found for routes that may not exist on an older worker (callers
 * decide); any other 4xx is our bug: logged as an error and the hook exits 1 (non-blocking).
 */
const HANDLED_FIELDS = ['tool_input', 'tool_response', 'prompt'];

export async function call<T = unknown>(env: HookEnv, method: string, urlPath: string, body?: unknown, opts: CallOptions = {}): Promise<CallResult<T>> {
  if (opts.check) {
    try {
      opts.check(body);
    } catch (e) {
      if (!(e instanceof BadRequest)) throw e;
      return classify<T>(env, method, urlPath, { status: e.status, body: { error: e.message } as T, headers: {} }, opts, ' before it was sent (the route\'s contract)');
    }
  }
  // Hook stdin is outside text: every field through the privacy gate before it is spooled or sent
  // (the tool use and the prompt were cleaned by their handlers, which know what they hold).
  if (body !== undefined && method !== 'GET' && !opts.checkBody) body = cleanIncoming(body, HANDLED_FIELDS).value;
  let reply: Reply<T>;
  const timeoutMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  try {
    const o = { ...opts, meanwhile: once(env, opts.meanwhile) };
    const spooled = viaSpool<T>(env, method, urlPath, body, timeoutMs, o);
    if (spooled) {
      tookPath('s');
      reply = spooled;
    } else {
      tookPath('t');
      const sent = request<T>(env.target, method, urlPath, body, timeoutMs);
      o.meanwhile?.();
      reply = await sent;
    }
  } catch (e) {
    const code = e instanceof NetworkError ? e.code : undefined;
    const message = code ? `${code}: ${(e as Error).message}` : String(e);
    env.log.warn(`worker unreachable at ${env.target.host}:${env.target.port}; nothing sent`, { error: message });
    return { ok: false, reason: 'network', message, code };
  }
  env.log.debug(`worker call ${method} ${urlPath.split('?')[0]} answered ${reply.status}`);
  return classify(env, method, urlPath, reply, opts, '');
}

/** Runs fn at most once, and never lets it fail the call (a request taken back runs it on TCP too). */
function once(env: HookEnv, fn: (() => void) | undefined): (() => void) | undefined {
  if (!fn) return undefined;
  let ran = false;
  return () => {
    if (ran) return;
    ran = true;
    try {
      fn();
    } catch (e) {
      env.log.warn(`preparing while the worker answers failed: ${(e as Error).message}`);
    }
  };
}

function classify<T>(env: HookEnv, method: string, urlPath: string, reply: Reply<T>, opts: CallOptions, when: string): CallResult<T> {
  const s = reply.status;
  if (s >= 200 && s < 300) return { ok: true, reply };
  const route = `${method} ${urlPath.split('?')[0]}`;
  const detail = typeof reply.body === 'object' && reply.body !== null ? JSON.stringify(reply.body).slice(0, 500) : String(reply.body).slice(0, 500);
  if (s >= 500 || s === 429) {
    env.log.warn(`${route} answered ${s}; dropped`, { body: detail });
    return { ok: false, reason: 'unavailable', status: s, message: detail };
  }
  if (s === 404 && opts.optionalRoute) {
    env.log.info(`${route} not served by this worker (404)`);
    return { ok: false, reason: 'not_found', status: s, message: detail };
  }
  const msg = `claude-mem: ${route} was refused with ${s}${when}: ${detail}`;
  env.log.error(msg);
  env.stderr.push(`${msg} (see ${env.log.file})`);
  env.exitCode = 1;
  return { ok: false, reason: 'rejected', status: s, message: detail };
}

/**
 * The call through the worker's spool when one serves this target (see ./spool); undefined when it
 * does not, or when the file could not be written or was not claimed: the caller uses TCP.
 */
function viaSpool<T>(env: HookEnv, method: string, urlPath: string, body: unknown, timeoutMs: number, opts: CallOptions): Reply<T> | undefined {
  const dir = spoolFor(env.target);
  if (!dir) return undefined;
  try {
    return spoolRequest<T>(dir, method, urlPath, body, timeoutMs, opts.ackAtClaim === true, opts.meanwhile);
  } catch (e) {
    if (e instanceof NetworkError) throw e;
    env.log.info(`spool not usable (${(e as Error).message}); using TCP`);
    return undefined;
  }
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
