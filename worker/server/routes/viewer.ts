// The browser viewer: the Memory panel's app served at GET / for people outside VS Code.
// Entry: `GET /?code=<single-use code>` (what `claude-mem viewer` opens; the code comes from
// POST /api/viewer/code with the bearer token) or `GET /?token=` once, by hand. Either is swapped for
// an HttpOnly, SameSite=Strict session cookie and a redirect to the clean `/`; no other route takes
// a credential in its URL. Every asset is inlined into the page (styles and the codicon font are in
// the script bundle), and the page never sees the token: its requests and /stream carry the cookie.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hono } from 'hono';
import { renderPage, viewerCsp, viewerCspHeader } from '../../../common/panel/page';
import { tokenChecker } from '../../auth';
import type { AppContext } from '../context';
import { setCookieHeader, ViewerCodes } from '../viewerSession';

/** dist/worker.js serves dist/media/panel.js, written by the same build. */
export const VIEWER_BUNDLE = path.join(__dirname, 'media', 'panel.js');

export function viewerRoutes(app: Hono, ctx: AppContext): void {
  let cached: { mtimeMs: number; text: string } | undefined;
  const bundle = (): string | undefined => {
    try {
      const st = fs.statSync(VIEWER_BUNDLE);
      if (!cached || cached.mtimeMs !== st.mtimeMs) cached = { mtimeMs: st.mtimeMs, text: fs.readFileSync(VIEWER_BUNDLE, 'utf8') };
      return cached.text;
    } catch {
      return undefined;
    }
  };

  const codes = new ViewerCodes();
  const tokenMatches = tokenChecker(ctx.token);

  app.post('/api/viewer/code', (c) => {
    const { code, expiresInMs } = codes.issue();
    return c.json({ code, expiresInMs, path: `/?code=${code}` });
  });

  app.get('/', (c) => {
    const code = c.req.query('code');
    const token = c.req.query('token');
    if (code !== undefined || token !== undefined) {
      c.header('Cache-Control', 'no-store');
      c.header('Referrer-Policy', 'no-referrer');
      const ok = code !== undefined ? codes.consume(code) : tokenMatches(token ?? '');
      if (!ok) {
        const what = code !== undefined ? 'this viewer link has expired or was already used' : 'wrong token';
        return c.json({ error: `${what}; open the viewer again with: claude-mem viewer` }, 401);
      }
      c.header('Set-Cookie', setCookieHeader(ctx.token, ctx.port()));
      return c.redirect('/', 303);
    }
    const js = bundle();
    if (js === undefined) {
      ctx.log.warn(`viewer bundle missing at ${VIEWER_BUNDLE}`);
      return c.json({ error: `the viewer is not built (${VIEWER_BUNDLE} is missing); run npm run build` }, 503);
    }
    const nonce = crypto.randomBytes(18).toString('base64');
    const csp = viewerCsp(nonce);
    c.header('Content-Security-Policy', viewerCspHeader(nonce));
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Cache-Control', 'no-store');
    return c.html(renderPage({ nonce, csp, host: 'browser', script: { inline: js }, title: 'Memory · claude-mem-vscode' }));
  });
}
