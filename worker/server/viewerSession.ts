// The browser viewer's credentials: single-use codes (what `claude-mem viewer` puts in the URL it
// opens, instead of the token) and the session cookie the entry route swaps a code for.
// The cookie is not the token: an HMAC under the token of its expiry and the port, so it dies with
// the token, outlives a worker restart, and is useless anywhere else.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CODE_TTL_MS = 60_000;
export const COOKIE_TTL_S = 12 * 60 * 60;
const MAX_CODES = 32;

/** Cookies are shared by every port of a host, so the name carries the port. */
export function viewerCookieName(port: number): string {
  return `claude_mem_viewer_${port}`;
}

function mac(token: string, port: number, exp: number): string {
  return createHmac('sha256', token).update(`claude-mem-vscode/viewer-cookie/v1\n${port}\n${exp}`).digest('base64url');
}

export function mintCookie(token: string, port: number, nowMs = Date.now()): string {
  const exp = Math.floor(nowMs / 1000) + COOKIE_TTL_S;
  return `v1.${exp}.${mac(token, port, exp)}`;
}

export function cookieValid(token: string, port: number, value: string, nowMs = Date.now()): boolean {
  const m = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= nowMs) return false;
  const want = Buffer.from(mac(token, port, exp));
  const given = Buffer.from(m[2]);
  return given.length === want.length && timingSafeEqual(given, want);
}

export function setCookieHeader(token: string, port: number): string {
  return `${viewerCookieName(port)}=${mintCookie(token, port)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${COOKIE_TTL_S}`;
}

/** Single-use, short-lived codes, in memory only (a restart forgets them: ask for a new one). */
export class ViewerCodes {
  private readonly codes = new Map<string, number>();

  issue(nowMs = Date.now()): { code: string; expiresInMs: number } {
    for (const [c, exp] of this.codes) if (exp <= nowMs) this.codes.delete(c);
    while (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, nowMs + CODE_TTL_MS);
    return { code, expiresInMs: CODE_TTL_MS };
  }

  /** True once per issued code, within its lifetime. */
  consume(code: string, nowMs = Date.now()): boolean {
    const exp = this.codes.get(code);
    if (exp === undefined) return false;
    this.codes.delete(code);
    return exp > nowMs;
  }
}
