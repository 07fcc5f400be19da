// Request guards, in order: Host (DNS rebinding), Origin (cross-site browsers), then credentials:
// a bearer header (every client), or the browser viewer's session cookie (same-origin only).
// The token is never accepted in a URL: the viewer's entry route takes it (or a single-use code)
// once and swaps it for the cookie (routes/viewer.ts).
import type { Context, MiddlewareHandler } from 'hono';
import { isLoopbackHost } from '../../common/node/config';
import { tokenChecker } from '../auth';
import { cookieValid, viewerCookieName } from './viewerSession';

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon >= 0 ? hostHeader.slice(0, colon) : hostHeader;
}

/** The worker's own page (the browser viewer): http, loopback, this port. */
function isSelfOrigin(origin: string, port: number): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname) && Number(u.port || 80) === port;
  } catch {
    return false;
  }
}

export function isAllowedOrigin(origin: string, port: number): boolean {
  return origin.startsWith('vscode-webview://') || isSelfOrigin(origin, port);
}

export interface GuardOptions {
  token: string;
  port: () => number;
  /** Extra host names accepted when remote binding was explicitly allowed. */
  extraHosts: string[];
}

/** Routes anyone may call without a token. */
const PUBLIC = new Set(['/api/health']);

/** Requests that carried a valid credential (so /api/health may say more to them). */
const authed = new WeakSet<Context>();
export function isAuthed(c: Context): boolean {
  return authed.has(c);
}

/** The cookie header's value for one name. */
export function cookie(c: Context, name: string): string | undefined {
  for (const part of (c.req.header('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export function guard(opts: GuardOptions): MiddlewareHandler {
  const tokenMatches = tokenChecker(opts.token);
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    const name = hostName(host);
    if (!isLoopbackHost(name) && !opts.extraHosts.includes(name)) return c.json({ error: 'forbidden host' }, 403);
    const origin = c.req.header('origin');
    const port = opts.port();
    if (origin !== undefined && !isAllowedOrigin(origin, port)) return c.json({ error: 'cross-origin requests are not allowed' }, 403);
    const auth = c.req.header('authorization');
    const bearer = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
    if (bearer && tokenMatches(bearer)) {
      authed.add(c);
      return next();
    }
    const isPublic = PUBLIC.has(c.req.path) && c.req.method === 'GET';
    // The viewer's entry route: it checks the one-time code or token itself, then redirects.
    if (c.req.path === '/' && c.req.method === 'GET' && (c.req.query('code') !== undefined || c.req.query('token') !== undefined)) return next();
    // The session cookie, only from the viewer's own page (never a webview, never another site:
    // SameSite=Strict does not tell ports apart, so the Origin and Fetch-Metadata checks do).
    const session = bearer === undefined ? cookie(c, viewerCookieName(port)) : undefined;
    if (session !== undefined && cookieValid(opts.token, port, session)) {
      const site = c.req.header('sec-fetch-site');
      if ((origin !== undefined && !isSelfOrigin(origin, port)) || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
        if (isPublic) return next();
        return c.json({ error: 'the viewer session cookie is only accepted from the viewer itself' }, 403);
      }
      authed.add(c);
      return next();
    }
    if (isPublic) return next();
    if (c.req.query('token') !== undefined) {
      return c.json({ error: 'the token is not accepted in a URL; send it as Authorization: Bearer <token> (the browser viewer: open it with `claude-mem viewer`)' }, 401);
    }
    return c.json({ error: 'missing or wrong bearer token (see auth.token in the data dir)' }, 401);
  };
}
