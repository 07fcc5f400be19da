// Page setup shared by both hosts: the vscode-elements components the app uses, and its styles
// (app CSS, the codicon font as a data URL, and, outside VS Code, theme variable fallbacks),
// added as <style> elements that carry the page's CSP nonce.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import codiconCss from '@vscode/codicons/dist/codicon.css';
import codiconFont from '@vscode/codicons/dist/codicon.ttf';
import appCss from './styles/app.css';
import themeCss from './styles/theme.css';

export function installStyles(nonce: string | undefined, browser: boolean): void {
  const add = (css: string) => {
    const el = document.createElement('style');
    if (nonce) el.nonce = nonce;
    el.textContent = css;
    document.head.append(el);
  };
  if (browser) add(themeCss);
  add(codiconCss.replace(/url\((["']?)\.\/codicon\.ttf[^)"']*\1\)/, `url("${codiconFont}")`));
  add(appCss);
}
