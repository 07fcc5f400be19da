// Append-only file logger in <dataDir>/logs. Never throws: logging must not take the worker down.
// Named imports: the hook CLI bundles redact() from here, and a namespace import would make the
// bundle copy every export of node:fs at start.
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cleanIncomingText } from '../privacy/incoming';

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

/** Strips private blocks and masks anything that looks like a key or token (common/privacy) so neither lands in a log line. */
export const redact = (text: string): string => cleanIncomingText(text).value;

/** A log file past this size is renamed to <name>.log.1 (replacing the older one) and started anew. */
export const LOG_MAX_BYTES = 10 * 1024 * 1024;

/** Before a file is opened for appending (a forked worker's stdout): keep it under maxBytes too. */
export function rotateIfLarge(file: string, maxBytes = LOG_MAX_BYTES): void {
  try {
    if (statSync(file).size > maxBytes) renameSync(file, `${file}.1`);
  } catch {
    /* none yet */
  }
}

export function createLogger(dataDir: string | undefined, name: string, alsoStderr = false, maxBytes = LOG_MAX_BYTES): Logger {
  let fd: number | undefined;
  let size = 0;
  const file = dataDir ? join(dataDir, 'logs', `${name}.log`) : '';
  const open = () => {
    try {
      fd = openSync(file, 'a', 0o600);
      size = fstatSync(fd).size;
    } catch {
      fd = undefined;
    }
  };
  if (dataDir) {
    try {
      mkdirSync(join(dataDir, 'logs'), { recursive: true, mode: 0o700 });
    } catch {
      /* open() fails too: log to stderr only */
    }
    open();
  }
  /** Keeps at most two files of maxBytes each: the live one and <name>.log.1. */
  const rotate = () => {
    try {
      if (fd !== undefined) closeSync(fd);
      renameSync(file, `${file}.1`);
    } catch {
      /* another process rotated it, or the disk is gone: reopen whatever is there */
    }
    open();
  };
  const write = (level: Level, msg: string, extra?: Record<string, unknown>) => {
    const line = redact(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${extra ? ' ' + safeJson(extra) : ''}`) + '\n';
    if (fd !== undefined) {
      try {
        if (size > 0 && size + line.length > maxBytes) rotate();
        if (fd !== undefined) size += writeSync(fd, line);
      } catch {
        /* disk full or gone: keep running */
      }
    }
    if (alsoStderr && level !== 'debug') process.stderr.write(line);
  };
  return {
    debug: (m, e) => write('debug', m, e),
    info: (m, e) => write('info', m, e),
    warn: (m, e) => write('warn', m, e),
    error: (m, e) => write('error', m, e),
  };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

export const nullLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
