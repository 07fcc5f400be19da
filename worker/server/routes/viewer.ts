// The browser viewer: the Memory panel's app served at GET / for people outside VS Code.
// The guard has already required the token (`?token=` on the first load); every asset is inlined
// into the page (styles and the codicon font are in the script bundle), so no later URL needs it.
// The app then keeps the token in memory and sends it as a bearer header (and on /stream?token=).
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Hono } from 'hono';
import { renderPage, viewerCsp, viewerCspHeader } from '../../../media/panel/page';
import type { AppContext } from '../context';

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

  app.get('/', (c) => {
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
