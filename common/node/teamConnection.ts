// Where the hub's connection string comes from, in this order: the extension (VS Code
// SecretStorage, handed over the authenticated loopback API and held in memory only), the
// CLAUDE_MEM_TEAM_URL environment variable, or <dataDir>/team.url, which must be mode 0600.
// The string itself is never logged or returned: describeUrl gives host, port and database only.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type UrlSource = 'extension' | 'env' | 'file';

export const URL_FILE = 'team.url';

export interface ResolvedUrl {
  url: string;
  source: UrlSource;
}

export function resolveUrl(dataDir: string, fromExtension: string | undefined, env: NodeJS.ProcessEnv = process.env): { found?: ResolvedUrl; problem?: string } {
  if (fromExtension) return { found: { url: fromExtension, source: 'extension' } };
  const e = env.CLAUDE_MEM_TEAM_URL?.trim();
  if (e) return { found: { url: e, source: 'env' } };
  const file = path.join(dataDir, URL_FILE);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return {};
  }
  if ((st.mode & 0o077) !== 0) return { problem: `${file} is readable by others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it, it holds the hub's password` };
  const url = fs.readFileSync(file, 'utf8').trim();
  return url ? { found: { url, source: 'file' } } : {};
}

/** Writes the 0600 file (for the CLI). */
export function writeUrlFile(dataDir: string, url: string): string {
  const file = path.join(dataDir, URL_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, `${url.trim()}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

export function validUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'postgres:' || u.protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/** host:port/database, for status and logs. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return '(unparsable connection string)';
  }
}

/** Removes a connection string (and any password) from an error message before it is shown or logged. */
export function scrub(message: string, url: string | undefined): string {
  let m = message;
  if (url) m = m.split(url).join('<hub url>');
  try {
    if (url) {
      const pw = decodeURIComponent(new URL(url).password);
      if (pw.length >= 3) m = m.split(pw).join('***');
    }
  } catch {
    /* unparsable: nothing more to hide */
  }
  return m.replace(/postgres(?:ql)?:\/\/\S+/gi, '<hub url>');
}
