// The HTML shell of the Memory panel, shared by its two hosts: the extension's webview
// (script loaded from the extension's dist/media) and the worker's browser viewer (script
// inlined, since every URL of the worker needs the token). Plain strings: no DOM, no Node.
import { BUNDLE_ELEMENT_ID, localizer, type L10nBundle } from './l10n';

export interface PageOptions {
  /** A fresh random nonce per page: the only scripts and styles that run carry it. */
  nonce: string;
  /** The Content-Security-Policy, also sent as a header by the worker. */
  csp: string;
  /** Either a script URL (webview) or the script text itself (viewer). */
  script: { src: string } | { inline: string };
  /** `webview` or `browser`: which transport the app uses. */
  host: 'webview' | 'browser';
  title?: string;
  /** vscode.l10n.bundle (the webview in a translated VS Code); none means English. */
  l10n?: L10nBundle;
  /** The page's language (vscode.env.language), set only with a bundle so the text matches it. */
  lang?: string;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Makes script text safe inside <script>…</script>: no early close, no comment state. */
export function inlineScript(js: string): string {
  return js.replace(/<(\/script|!--)/gi, '\\x3C$1');
}

export function webviewCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `font-src ${cspSource} data:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function viewerCsp(nonce: string): string {
  return [
    "default-src 'none'",
    'img-src data:',
    'font-src data:',
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** frame-ancestors only works as a header (a <meta> CSP ignores it, with a console error). */
export function viewerCspHeader(nonce: string): string {
  return `${viewerCsp(nonce)}; frame-ancestors 'none'`;
}

/** The bundle as a JSON data block (not run, so the CSP does not apply; `<` escaped so no text closes it). */
function bundleBlock(nonce: string, bundle: L10nBundle | undefined): string {
  if (!bundle) return '';
  return `<script type="application/json" id="${BUNDLE_ELEMENT_ID}" nonce="${esc(nonce)}">${JSON.stringify(bundle).replace(/</g, '\\u003c')}</script>\n`;
}

export function renderPage(o: PageOptions): string {
  const l10n = localizer(o.l10n);
  const script = 'src' in o.script ? `<script nonce="${esc(o.nonce)}" src="${esc(o.script.src)}"></script>` : `<script nonce="${esc(o.nonce)}">${inlineScript(o.script.inline)}</script>`;
  return `<!DOCTYPE html>
<html lang="${esc(o.l10n && o.lang ? o.lang : 'en')}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(o.csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${esc(o.title ?? l10n.t('Memory'))}</title>
</head>
<body data-host="${o.host}">
<div id="app" aria-busy="true"><p class="boot">${esc(l10n.t('Loading memory…'))}</p></div>
<noscript>${esc(l10n.t('The memory viewer needs JavaScript.'))}</noscript>
${bundleBlock(o.nonce, o.l10n)}${script}
</body>
</html>
`;
}
