// Entry of the Memory panel bundle (dist/media/panel.js). Picks the transport for where it runs:
// a VS Code webview (acquireVsCodeApi exists) or the worker's browser viewer (a session cookie the
// page cannot read, set by the worker's entry route).
import { App } from './app';
import { BrowserTransport } from './browserTransport';
import { l10n } from './l10n';
import { installStyles } from './setup';
import type { Transport } from './transport';
import { WebviewTransport } from './webviewTransport';

const nonce = (document.currentScript as HTMLScriptElement | null)?.nonce || undefined;
// Lit (under vscode-elements) tags any <style> it has to create with this nonce.
(globalThis as { litNonce?: string }).litNonce = nonce;

function main(): void {
  const root = document.getElementById('app');
  if (!root) return;
  const inWebview = typeof acquireVsCodeApi === 'function';
  installStyles(nonce, !inWebview);
  let transport: Transport;
  if (inWebview) {
    transport = new WebviewTransport(acquireVsCodeApi(), window);
  } else {
    transport = new BrowserTransport(location.origin);
  }
  new App(transport, root).start().catch((e: Error) => {
    root.textContent = l10n.t('The memory panel failed to start: {0}', e.message);
  });
}

main();
