// A request path the worker serves is plain: it starts with "/", and the URL parser leaves it as it
// is. A dot segment ("..", "%2e%2e", ".%2E"), a backslash (a "/" to the URL parser) or anything else
// the parser would rewrite could move a request to another route than the one it names (e.g.
// "/api/%2e%2e/stream" is "/stream"), so such a path is refused, over HTTP (worker/server/app.ts)
// and the hook spool (common/spool.ts) alike.

/** The path part of a request target (before "?" or "#"). */
export function pathPart(target: string): string {
  const cut = target.search(/[?#]/);
  return cut < 0 ? target : target.slice(0, cut);
}

/** Whether the target's path is one the URL parser would not rewrite. */
export function isPlainPath(target: string): boolean {
  const p = pathPart(target);
  if (!p.startsWith('/') || p.startsWith('//') || p.includes('\\') || /%5c/i.test(p)) return false;
  try {
    return new URL(p, 'http://127.0.0.1').pathname === p;
  } catch {
    return false;
  }
}

/** The one request with a dot segment that is served: forgetting a project named "." or "..". */
export function dotProjectName(method: string, target: string): string | undefined {
  if (method !== 'DELETE') return undefined;
  const m = /^\/api\/projects\/((?:\.|%2e){1,2})$/i.exec(pathPart(target));
  return m ? m[1].replace(/%2e/gi, '.') : undefined;
}
