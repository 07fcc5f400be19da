// Append-only file logger in <dataDir>/logs. Never throws: logging must not take the worker down.
// Named imports: the hook CLI bundles redact() from here, and a namespace import would make the
// bundle copy every export of node:fs at start.
import { mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
}

const SECRET = /(sk-ant-[A-Za-z0-9_-]{8,}|Bearer\s+[A-Za-z0-9._~+/-]{16,}|"?(api[_-]?key|token|authorization)"?\s*[:=]\s*"?[A-Za-z0-9._~+/-]{16,})/gi;

/** Masks anything that looks like a key or token so it never lands in a log line. */
export function redact(text: string): string {
  return text.replace(SECRET, (m) => m.slice(0, Math.min(6, m.length)) + '…[redacted]');
}

export function createLogger(dataDir: string | undefined, name: string, alsoStderr = false): Logger {
  let fd: number | undefined;
  if (dataDir) {
    try {
      const dir = join(dataDir, 'logs');
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      fd = openSync(join(dir, `${name}.log`), 'a', 0o600);
    } catch {
      fd = undefined;
    }
  }
  const write = (level: Level, msg: string, extra?: Record<string, unknown>) => {
    const line = redact(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${extra ? ' ' + safeJson(extra) : ''}`) + '\n';
    if (fd !== undefined) {
      try {
        writeSync(fd, line);
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
