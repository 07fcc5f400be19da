// Entry of the Memory panel bundle (dist/media/panel.js). Picks the transport for where it runs:
// a VS Code webview (acquireVsCodeApi exists) or the worker's browser viewer (?token= in the URL).
import { App } from './app';
import { BrowserTransport } from './browserTransport';
import { installStyles } from './setup';
import type { Transport } from './transport';
import { WebviewTransport } from './webviewTransport';

const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;
// Lit (under vscode-elements) tags any <style> it has to create with this nonce.
(globalThis as { litNonce?: string }).litNonce = nonce;

function browserToken(): string | undefined {
  const url = new URL(location.href);
  const token = url.searchParams.get('token') ?? undefined;
  if (token !== undefined) {
    // Keep the token out of the address bar, history and any later URL: it stays in memory only.
    url.searchParams.delete('token');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return token;
}

function main(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const inWebview = typeof acquireVsCodeApi === 'function';
  installStyles(nonce, !inWebview);
  let transport: Transport;
  if (inWebview) {
    transport = new WebviewTransport(acquireVsCodeApi(), window);
  } else {
    const token = browserToken();
    if (!token) {
      root.textContent = 'This page needs the worker token. Open it with: node dist/cli.js viewer';
      return;
    }
    transport = new BrowserTransport(location.origin, token);
  }
  new App(transport, root).start().catch((e: Error) => {
    root.textContent = `The memory panel failed to start: ${e.message}`;
  });
}

main();
