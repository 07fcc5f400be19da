// The panel as a VS Code webview, both sides with the real message shapes: the real page bundle
// in chromium (under the webview CSP) with `acquireVsCodeApi` bridged to the real PanelHost in
// this process, which talks to a real worker with the extension's WorkerClient. Only VS Code's
// postMessage plumbing is stood in for.
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PanelHost } from '../../extension/panel/host';
import { OP_NAMES, parseHostMessage, parsePageMessage, type HostMessage } from '../../common/contract';
import { WorkerClient } from '../../extension/workerClient';
import { renderPage, webviewCsp } from '../../common/panel/page';
import { ROOT, startWorker, until, type RunningWorker } from '../helpers/worker';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const ORIGIN = 'https://webview.test';
const WAIT = { timeout: 30_000 };

let w: RunningWorker;
let browser: Browser;
let page: Page;
let host: PanelHost;
const toHost: unknown[] = [];
const toPage: HostMessage[] = [];
const opened: { path: string; line?: number; project?: string }[] = [];
const commands: string[] = [];
const errors: string[] = [];
const warnings: string[] = [];
const problems: string[] = [];
let paused = false;

const tool = (sid: string, project: string, tool_name: string, tool_input: unknown, tool_response = 'ok') =>
  w.req('POST', '/api/sessions/observations', { contentSessionId: sid, cwd: `/home/u/projects/${project}`, tool_name, tool_input, tool_response });

async function obsId(title: string): Promise<number> {
  return until(async () => ((await w.req('GET', '/api/observations?limit=1000')).body.items as { id: number; title: string }[]).find((o) => o.title === title)?.id, 20_000, title);
}

before(async () => {
  w = await startWorker();
  await tool('w1', 'alpha', 'Edit', { file_path: '/home/u/projects/alpha/src/auth/login.ts', old_string: 'a', new_string: 'b' });
  await tool('w1', 'alpha', 'Read', { file_path: '/home/u/projects/alpha/README.md' }, '# alpha');
  await tool('w2', 'beta', 'Read', { file_path: '/home/u/projects/beta/src/other.ts' }, 'x');
  await obsId('Read README.md');
  await obsId('Read src/other.ts');

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  page = await browser.newPage({ viewport: { width: 340, height: 800 } });
  page.on('console', (m) => {
    if (/status of 404/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

  const client = new WorkerClient({ host: '127.0.0.1', port: w.port, dataDir: w.dataDir });
  host = new PanelHost({
    client: () => client,
    post: (msg) => {
      toPage.push(msg);
      return page.evaluate((m) => window.postMessage(m, '*'), msg).catch(() => undefined);
    },
    openFile: async (p, line, project) => {
      opened.push({ path: p, line, project });
    },
    executeCommand: async (id) => {
      commands.push(id);
      paused = !paused;
      return paused;
    },
    showError: (m) => errors.push(m),
    log: { warn: (m) => warnings.push(m) },
    capabilities: { openFiles: true, pauseCapture: true },
    project: () => 'alpha',
  });

  await page.exposeFunction('__toHost', (m: unknown) => {
    toHost.push(m);
    void host.handle(m);
  });
  // Scripts for the page are strings: tsx would wrap named functions in a helper the page lacks.
  await page.addInitScript(`window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => undefined });`);
  // VS Code sets its theme's colours as custom properties on <html>; do the same with Dark Modern.
  const darkBlock = /:root\s*{([^}]*)}/.exec(fs.readFileSync(path.join(ROOT, 'media', 'panel', 'styles', 'theme.css'), 'utf8'))?.[1] ?? '';
  const vars = [...darkBlock.matchAll(/(--vscode-[\w-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]);
  await page.addInitScript(`document.addEventListener('DOMContentLoaded', () => { for (const [k, v] of ${JSON.stringify(vars)}) document.documentElement.style.setProperty(k, v); document.body.classList.add('vscode-dark'); });`);
  const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'media', 'panel.js'));
  await page.route(`${ORIGIN}/**`, (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/panel.js') return route.fulfill({ status: 200, contentType: 'text/javascript', body: bundle });
    const nonce = crypto.randomBytes(16).toString('base64');
    return route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: renderPage({ nonce, csp: webviewCsp(ORIGIN, nonce), host: 'webview', script: { src: `${ORIGIN}/panel.js` } }),
    });
  });
  await page.goto(`${ORIGIN}/index.html`);
});

after(async () => {
  host?.dispose();
  await browser?.close();
  await w?.stop();
});

const row = (title: string) => page.locator('.list button.item', { hasText: title });

describe('webview panel: page and host over the typed protocol', () => {
  it('says ready, gets hello with the workspace project, and shows that project through the host', async () => {
    await row('Edited src/auth/login.ts').waitFor(WAIT);
    await row('Read README.md').waitFor(WAIT);
    assert.equal(await row('Read src/other.ts').count(), 0, 'the default filter is the workspace project');
    assert.deepEqual(toHost[0], { type: 'ready' });
    const hello = toPage.find((m) => m.type === 'hello');
    assert.deepEqual(hello, { type: 'hello', capabilities: { openFiles: true, pauseCapture: true }, project: 'alpha' });
    await page.locator('.conn[data-state="connected"]').waitFor(WAIT);
    const requests = toHost.filter((m): m is { type: 'request'; op: string; params: Record<string, unknown> } => (m as { type?: string }).type === 'request');
    const obsReq = requests.find((m) => m.op === 'observations');
    assert.equal(obsReq?.params.project, 'alpha');
  });

  it('opens files in the editor through the host', async () => {
    await row('Edited src/auth/login.ts').click();
    await page.locator('article.detail a.file-link', { hasText: 'src/auth/login.ts' }).click();
    await until(() => opened.length > 0, 10_000, 'openFile');
    assert.deepEqual(opened[0], { path: 'src/auth/login.ts', line: undefined, project: 'alpha' });
    await page.keyboard.press('Escape');
    await page.locator('.memory[data-view="list"]').waitFor(WAIT);
  });

  it('pauses capture by asking the host to run claudeMem.toggleCapture, and shows the state it reports', async () => {
    const button = page.locator('vscode-button.pause-capture');
    await button.waitFor(WAIT);
    await button.click();
    await page.locator('vscode-button.pause-capture', { hasText: 'Resume capture' }).waitFor(WAIT);
    assert.deepEqual(commands, ['claudeMem.toggleCapture']);
    await page.locator('vscode-button.pause-capture[aria-pressed="true"]').waitFor(WAIT); // the label and the attribute can land in separate renders
    assert.equal(await button.getAttribute('aria-pressed'), 'true');
    await button.click();
    await page.locator('vscode-button.pause-capture', { hasText: 'Pause capture' }).waitFor(WAIT);
  });

  it('relays live events: a new observation appears, a deletion elsewhere disappears', async () => {
    await tool('w1', 'alpha', 'Read', { file_path: '/home/u/projects/alpha/src/live.ts' }, 'x');
    await row('Read src/live.ts').waitFor(WAIT);
    assert.ok(toPage.some((m) => m.type === 'event' && m.event.event === 'new_observation'));
    const id = await obsId('Read README.md');
    assert.equal((await w.req('DELETE', `/api/observation/${id}`)).status, 200);
    await row('Read README.md').waitFor({ state: 'detached', ...WAIT });
    // An event of another project does not enter this project's feed.
    await tool('w2', 'beta', 'Read', { file_path: '/home/u/projects/beta/src/elsewhere.ts' }, 'x');
    await until(() => toPage.some((m) => m.type === 'event' && m.event.event === 'new_observation' && m.event.data.project === 'beta' && m.event.data.title === 'Read src/elsewhere.ts'), 20_000, 'beta event');
    assert.equal(await row('Read src/elsewhere.ts').count(), 0);
  });

  it('deletes through the host with confirmation', async () => {
    const id = await obsId('Edited src/auth/login.ts');
    await row('Edited src/auth/login.ts').focus();
    await page.keyboard.press('Delete');
    await page.locator('dialog.confirm[open] vscode-button.ok').click();
    await row('Edited src/auth/login.ts').waitFor({ state: 'detached', ...WAIT });
    assert.equal((await w.req('GET', `/api/observation/${id}`)).status, 404);
    // The keyboard stays in the list, on the row that took its place.
    assert.equal(await page.evaluate('document.activeElement && document.activeElement.matches("button.item")'), true);
    assert.ok(toHost.some((m) => (m as { op?: string }).op === 'deleteObservation'));
  });

  it('ignores malformed messages on both sides', async () => {
    const before = toPage.length;
    await page.evaluate(`(() => {
      window.__toHost({ type: 'request', id: 999, op: 'dropTables', params: {} });
      window.__toHost({ type: 'openFile', path: 'a\\u0000b' });
      window.__toHost('not an object');
      window.postMessage({ type: 'reply', id: 'x', ok: true }, '*');
      window.postMessage({ type: 'event', event: { event: 'nonsense', data: {} } }, '*');
    })()`);
    await until(() => warnings.length >= 3, 10_000, 'warnings');
    assert.equal(toPage.slice(before).filter((m) => m.type === 'reply' && m.id === 999).length, 0);
    // The page still works after the junk.
    await page.locator('vscode-tab-header.tab-status').click();
    await page.locator('section.card[aria-label="Compression provider"] dd', { hasText: 'local' }).first().waitFor(WAIT);
    await page.locator('vscode-tab-header.tab-memory').click();
  });

  it('every message that crossed had a valid shape', async () => {
    assert.ok(toHost.length > 5 && toPage.length > 5);
    // Only the three bad ones sent on purpose above fail to parse (the host logged and dropped them).
    const bad = toHost.filter((m) => parsePageMessage(m) === undefined);
    assert.deepEqual(bad, [{ type: 'request', id: 999, op: 'dropTables', params: {} }, { type: 'openFile', path: 'a\u0000b' }, 'not an object']);
    for (const m of toPage) assert.deepEqual(parseHostMessage(JSON.parse(JSON.stringify(m))), JSON.parse(JSON.stringify(m)));
    const ops = new Set(toHost.flatMap((m) => ((m as { type?: string }).type === 'request' ? [(m as { op: string }).op] : [])));
    ops.delete('dropTables');
    for (const op of ops) assert.ok((OP_NAMES as readonly string[]).includes(op), op);
    assert.deepEqual(errors, []);
    assert.deepEqual(problems, [], 'no console errors or CSP violations in the webview');
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test-artifacts', 'webview-panel.png') });
  });
});

describe('webview panel in another display language', () => {
  it('shows its text from the bundle the extension passes (vscode.l10n.bundle), under the same CSP', async () => {
    const english = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, string>;
    // A pseudo-translation of every message, and one that tries to end the data block early.
    const pseudo: Record<string, string> = Object.fromEntries(Object.keys(english).map((m) => [m, `‹${m}›`]));
    pseudo.Save = '</script><b>Save</b>';
    const p = await browser.newPage({ viewport: { width: 340, height: 800 } });
    const seen: string[] = [];
    p.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && !/status of 404/.test(m.text()) && seen.push(`console ${m.type()}: ${m.text()}`));
    p.on('pageerror', (e) => seen.push(`page error: ${e.message}`));
    const client = new WorkerClient({ host: '127.0.0.1', port: w.port, dataDir: w.dataDir });
    const host2 = new PanelHost({
      client: () => client,
      post: (msg) => p.evaluate((m) => window.postMessage(m, '*'), msg).catch(() => undefined),
      openFile: async () => undefined,
      executeCommand: async () => false,
      showError: (m) => seen.push(`host error: ${m}`),
      log: { warn: (m) => seen.push(`host warning: ${m}`) },
      capabilities: { openFiles: true, pauseCapture: true },
      project: () => 'alpha',
    });
    try {
      await p.exposeFunction('__toHost', (m: unknown) => void host2.handle(m));
      await p.addInitScript(`window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__toHost(m), getState: () => undefined, setState: () => undefined });`);
      const script = fs.readFileSync(path.join(ROOT, 'dist', 'media', 'panel.js'));
      await p.route(`${ORIGIN}/**`, (route) => {
        if (new URL(route.request().url()).pathname === '/panel.js') return route.fulfill({ status: 200, contentType: 'text/javascript', body: script });
        const nonce = crypto.randomBytes(16).toString('base64');
        const body = renderPage({ nonce, csp: webviewCsp(ORIGIN, nonce), host: 'webview', script: { src: `${ORIGIN}/panel.js` }, l10n: pseudo, lang: 'qps-ploc' });
        return route.fulfill({ status: 200, contentType: 'text/html', body });
      });
      await p.goto(`${ORIGIN}/index.html`);
      await p.locator('vscode-tab-header.tab-memory', { hasText: '‹Memory›' }).waitFor(WAIT);
      await p.locator('.conn[data-state="connected"]', { hasText: '‹Live›' }).waitFor(WAIT);
      await p.locator('.list button.item', { hasText: 'Read src/live.ts' }).waitFor(WAIT);
      assert.match((await p.locator('.list-pane .list-head').textContent()) ?? '', /^‹‹\d+ observations? in \d+ sessions?›, newest first›$/);
      assert.equal(await p.locator('vscode-tab-header.tab-save').textContent(), '</script><b>Save</b>', 'shown as text, not markup');
      assert.equal(await p.getAttribute('html', 'lang'), 'qps-ploc');
      assert.equal(await p.locator('vscode-textfield.search-field').getAttribute('placeholder'), '‹Search memory›');
      await p.locator('vscode-tab-header.tab-status').click();
      await p.locator('section.card[aria-label="‹Compression provider›"]').waitFor(WAIT);
      assert.deepEqual(seen, [], 'no console errors or CSP violations with a bundle');
      fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
      await p.screenshot({ path: path.join(ROOT, 'test-artifacts', 'webview-panel-pseudo.png') });
    } finally {
      host2.dispose();
      await p.close();
    }
  });
});
