// Request guards, in order: Host (DNS rebinding), Origin (cross-site browsers), bearer token.
import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from '../config';
import { tokenChecker } from '../auth';

function hostName(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return colon >= 0 ? hostHeader.slice(0, colon) : hostHeader;
}

export function isAllowedOrigin(origin: string, port: number): boolean {
  if (origin.startsWith('vscode-webview://')) return true;
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && isLoopbackHost(u.hostname) && Number(u.port || 80) === port;
  } catch {
    return false;
  }
}

export interface GuardOptions {
  token: string;
  port: () => number;
  /** Extra host names accepted when remote binding was explicitly allowed. */
  extraHosts: string[];
}

/** Routes anyone may call without a token. */
const PUBLIC = new Set(['/api/health']);

export function guard(opts: GuardOptions): MiddlewareHandler {
  const tokenMatches = tokenChecker(opts.token);
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    const name = hostName(host);
    if (!isLoopbackHost(name) && !opts.extraHosts.includes(name)) return c.json({ error: 'forbidden host' }, 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && !isAllowedOrigin(origin, opts.port())) return c.json({ error: 'cross-origin requests are not allowed' }, 403);
    if (PUBLIC.has(c.req.path) && c.req.method === 'GET') return next();
    const auth = c.req.header('authorization');
    // EventSource cannot send headers, so the stream and the viewer also accept ?token=.
    const given = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : (c.req.query('token') ?? '');
    if (!given || !tokenMatches(given)) return c.json({ error: 'missing or wrong bearer token (see auth.token in the data dir)' }, 401);
    return next();
  };
}
