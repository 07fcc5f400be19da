// The browser viewer against a real worker (dist/worker.js; run `npm run build` first), driven
// with playwright-core through Debian's chromium. No timing assertions: every wait is for a state.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT, startWorker, until, type RunningWorker } from '../helpers/worker';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const WAIT = { timeout: 30_000 };

let w: RunningWorker;
let browser: Browser;
let page: Page;
const problems: string[] = [];

interface Obs {
  id: number;
  title: string;
  project: string;
  type: string;
}

async function observations(project?: string): Promise<Obs[]> {
  const r = await w.req('GET', `/api/observations?limit=1000${project ? `&project=${project}` : ''}`);
  return r.body.items as Obs[];
}

async function byTitle(title: string): Promise<Obs> {
  return until(async () => (await observations()).find((o) => o.title === title), 20_000, `observation "${title}"`);
}

const tool = (sid: string, project: string, tool_name: string, tool_input: unknown, tool_response = 'ok') =>
  w.req('POST', '/api/sessions/observations', { contentSessionId: sid, cwd: `/home/u/projects/${project}`, tool_name, tool_input, tool_response });

async function seed(): Promise<void> {
  await w.req('POST', '/api/sessions/init', { contentSessionId: 'a1', cwd: '/home/u/projects/alpha', prompt: 'the login fails after a token refresh' });
  await tool('a1', 'alpha', 'Read', { file_path: '/home/u/projects/alpha/src/db/pool.ts' }, 'export const pool = createPool();');
  // A bug fix by its stated reason (a local note does not call an edit a fix from its code).
  await tool('a1', 'alpha', 'replace_string_in_file', { filePath: '/home/u/projects/alpha/src/auth/login.ts', oldString: 'if (expired) throw', newString: 'if (expired) await refresh();', explanation: 'Fix the token bug: refresh instead of throwing' });
  await w.req('POST', '/api/sessions/init', { contentSessionId: 'b1', cwd: '/home/u/projects/beta', prompt: 'write the guide' });
  await tool('b1', 'beta', 'Write', { file_path: '/home/u/projects/beta/docs/guide.md', content: '# Guide\nHow to start.' });
  await tool('b1', 'beta', 'Grep', { pattern: 'TODO' }, 'src/a.ts:1: TODO one\nsrc/b.ts:9: TODO two');
  await w.req('POST', '/api/memory/save', { text: 'We use pnpm, not npm.', title: 'Package manager', project: 'alpha' });
  await until(async () => (await observations()).length >= 5, 20_000, 'seeded observations');
}

function watch(p: Page): Page {
  p.on('console', (m) => {
    // The search module's routes answer 404 until they land; the app shows a notice for that.
    if (/status of 404/.test(m.text()) && /\/api\/(search|timeline|observations\/batch)/.test(m.location().url)) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()} ${m.location().url}`);
  });
  p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return p;
}

async function openViewer(viewport = { width: 1280, height: 860 }): Promise<Page> {
  const p = watch(await browser.newPage({ viewport }));
  const res = await p.goto(`${w.url}/?token=${encodeURIComponent(w.token)}`);
  assert.equal(res?.status(), 200);
  await p.locator('.conn[data-state="connected"]').waitFor(WAIT);
  return p;
}

const row = (p: Page, title: string) => p.locator('.list button.item', { hasText: title });

before(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  w = await startWorker();
  await seed();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});

after(async () => {
  await browser?.close();
  await w?.stop();
});

describe('browser viewer', () => {
  it('refuses without the token', async () => {
    const none = await fetch(`${w.url}/`);
    assert.equal(none.status, 401);
    assert.match((await none.json()).error, /token/);
    const wrong = await fetch(`${w.url}/?token=not-the-token`);
    assert.equal(wrong.status, 401);
    const p = watch(await browser.newPage());
    const res = await p.goto(`${w.url}/`);
    assert.equal(res?.status(), 401);
    assert.equal(await p.locator('#app').count(), 0, 'no app without the token');
    await p.close();
    problems.length = 0; // the refused page logs its 401
  });

  it('loads with the token under a strict CSP, drops the token from the URL, and shows stored observations', async () => {
    // The entry swaps the token for a session cookie and redirects to the clean URL.
    const entry = await fetch(`${w.url}/?token=${w.token}`, { redirect: 'manual' });
    assert.equal(entry.status, 303);
    const res = await fetch(`${w.url}/`, { headers: { cookie: (entry.headers.get('set-cookie') ?? '').split(';')[0] } });
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'nonce-[^']+'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.match(csp, /default-src 'none'/);
    const html = await res.text();
    assert.ok(!html.includes(w.token), 'the page does not echo the token');

    page = await openViewer();
    assert.ok(!page.url().includes('token'), `the token left the address bar: ${page.url()}`);
    for (const title of ['Read src/db/pool.ts', 'Edited src/auth/login.ts', 'Wrote docs/guide.md', 'Package manager']) {
      await row(page, title).waitFor(WAIT);
    }
    // Grouped by session: the alpha session holds its two tool observations.
    const alpha = page.locator('section.group', { has: page.locator('button.item', { hasText: 'Edited src/auth/login.ts' }) });
    assert.equal(await alpha.locator('button.item').count(), 2);
    assert.deepEqual(problems, []);
  });

  it('shows a new observation posted during the test without a reload', async () => {
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    await tool('a1', 'alpha', 'Read', { file_path: '/home/u/projects/alpha/src/live/arrived.ts' }, 'x');
    await row(page, 'Read src/live/arrived.ts').waitFor(WAIT);
    await w.req('POST', '/api/memory/save', { text: 'Arrived while watching', title: 'Live manual memory', project: 'beta' });
    await row(page, 'Live manual memory').waitFor(WAIT);
    assert.equal(navigations, 0);
  });

  it('search and filters narrow the list', async () => {
    const all = await page.locator('.list button.item').count();
    assert.ok(all >= 7, `expected the whole feed, got ${all}`);

    // Keyword mode: in hybrid mode, once the embedding index has caught up (at a moment this test
    // does not control), every one of these few records is some query's semantic neighbour, so
    // "pool" would keep "Edited src/auth/login.ts" in the list when the index was ready and drop it
    // when it was not. That made this test fail in about 4 of 10 runs.
    await page.locator('button.filter-toggle').click();
    await chooseOption(page, 'vscode-single-select.mode-select', 'Keyword');
    await page.locator('vscode-textfield.search-field input').fill('pool');
    await row(page, 'Edited src/auth/login.ts').waitFor({ state: 'detached', ...WAIT });
    await row(page, 'Read src/db/pool.ts').waitFor(WAIT);
    // Either ranked results from /api/search or, until that route exists, the feed filtered locally (with a notice).
    const unavailable = await page.locator('.search-unavailable').count();
    if (unavailable) assert.match(await page.locator('.search-unavailable').innerText(), /search/i);
    await page.locator('vscode-textfield.search-field input').fill('');
    await row(page, 'Edited src/auth/login.ts').waitFor(WAIT);
    await chooseOption(page, 'vscode-single-select.mode-select', 'Hybrid');

    // Type filter (the filters are open).
    await chooseOption(page, 'vscode-single-select.type-filter', 'bugfix');
    await row(page, 'Read src/db/pool.ts').waitFor({ state: 'detached', ...WAIT });
    await row(page, 'Edited src/auth/login.ts').waitFor(WAIT);
    assert.equal(await page.locator('.list button.item').count(), 1);
    await page.locator('vscode-button.clear-filters').click();
    await row(page, 'Read src/db/pool.ts').waitFor(WAIT);

    // Project filter (loads that project's memory from the worker).
    await chooseOption(page, 'vscode-single-select.project-select', 'beta (');
    await row(page, 'Read src/db/pool.ts').waitFor({ state: 'detached', ...WAIT });
    await row(page, 'Wrote docs/guide.md').waitFor(WAIT);
    const betaCount = (await observations('beta')).length;
    await until(async () => (await page.locator('.list button.item').count()) === betaCount, 20_000, 'beta rows');
    await chooseOption(page, 'vscode-single-select.project-select', 'All projects');
    await row(page, 'Read src/db/pool.ts').waitFor(WAIT);
  });

  it('says so and filters the loaded feed when the worker has no search routes (an older worker)', async () => {
    const old = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    // Answer as a worker without the search module does.
    await old.route(/\/api\/(search|timeline)(\?|$)/, (r) => r.fulfill({ status: 404, contentType: 'application/json', body: JSON.stringify({ error: `no route GET ${new URL(r.request().url()).pathname}` }) }));
    await old.goto(`${w.url}/?token=${encodeURIComponent(w.token)}`);
    await row(old, 'Edited src/auth/login.ts').waitFor(WAIT);
    await old.locator('vscode-textfield.search-field input').fill('pool');
    await old.locator('.search-unavailable').waitFor(WAIT);
    await row(old, 'Edited src/auth/login.ts').waitFor({ state: 'detached', ...WAIT });
    await row(old, 'Read src/db/pool.ts').waitFor(WAIT);
    await row(old, 'Read src/db/pool.ts').click();
    await old.locator('article.detail vscode-button.timeline-button').click();
    await old.locator('section.timeline .notice', { hasText: 'not available from this worker' }).waitFor(WAIT);
    await old.close();
  });

  it('opens the detail with facts, concepts and files, and moves by keyboard', async () => {
    await row(page, 'Edited src/auth/login.ts').click();
    const detail = page.locator('article.detail');
    await detail.locator('h2', { hasText: 'Edited src/auth/login.ts' }).waitFor(WAIT);
    assert.match(await detail.innerText(), /FACTS/i);
    assert.match(await detail.locator('.file-path').first().innerText(), /src\/auth\/login\.ts/);
    assert.equal(await detail.locator('a.file-link').count(), 0, 'the browser shows paths, not editor links');
    // Timeline: ranked rows when the search module's route exists, else a notice that says so.
    await detail.locator('vscode-button.timeline-button').click();
    await detail.locator('section.timeline .notice, section.timeline ul.items, section.timeline p.muted').first().waitFor(WAIT);

    // Keyboard: the list has one tab stop; arrows move; Enter opens; Escape comes back.
    const first = page.locator('.list button.item').first();
    await first.focus();
    await page.keyboard.press('ArrowDown');
    const focusedKey = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.key);
    const secondKey = await page.locator('.list button.item').nth(1).getAttribute('data-key');
    assert.equal(focusedKey, secondKey);
    assert.equal(await page.locator('.list button.item[tabindex="0"]').count(), 1);
    await page.keyboard.press('Enter');
    await page.locator(`article.detail[data-id="${secondKey?.split(':')[1]}"]`).waitFor(WAIT);
  });

  it('deletes an observation from the page, the store, and every other open viewer', async () => {
    const target = await byTitle('Wrote docs/guide.md');
    const other = await openViewer({ width: 420, height: 800 });
    await row(other, 'Wrote docs/guide.md').waitFor(WAIT);

    await row(page, 'Wrote docs/guide.md').click();
    await page.locator(`article.detail[data-id="${target.id}"] vscode-button.delete-button`).click();
    const dialog = page.locator('dialog.confirm[open]');
    await dialog.waitFor(WAIT);
    // Cancel keeps it.
    await dialog.locator('vscode-button.cancel').click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    assert.equal((await w.req('GET', `/api/observation/${target.id}`)).status, 200);
    // Confirm deletes it.
    await page.locator(`article.detail[data-id="${target.id}"] vscode-button.delete-button`).click();
    await page.locator('dialog.confirm[open] vscode-button.ok').click();
    await row(page, 'Wrote docs/guide.md').waitFor({ state: 'detached', ...WAIT });
    await row(other, 'Wrote docs/guide.md').waitFor({ state: 'detached', ...WAIT });
    assert.equal((await w.req('GET', `/api/observation/${target.id}`)).status, 404);

    // Deleted elsewhere (another client): gone here too.
    const pool = await byTitle('Read src/db/pool.ts');
    assert.equal((await w.req('DELETE', `/api/observation/${pool.id}`)).status, 200);
    await row(page, 'Read src/db/pool.ts').waitFor({ state: 'detached', ...WAIT });
    await other.close();
  });

  it('saves a memory by hand and forgets a session after confirmation', async () => {
    await page.locator('vscode-tab-header.tab-save').click();
    await page.locator('vscode-textarea.save-text textarea').fill('The staging database is read-only on Fridays.');
    await page.locator('vscode-textfield.save-title input').fill('Staging freeze');
    await page.locator('vscode-textfield.save-project input').fill('gamma');
    await page.locator('vscode-button.save-button').click();
    await page.locator('.save-result', { hasText: /Saved as #\d+ in gamma/ }).waitFor(WAIT);
    await page.locator('vscode-tab-header.tab-memory').click();
    await row(page, 'Staging freeze').waitFor(WAIT);

    const group = page.locator('section.group', { has: page.locator('button.item', { hasText: 'Staging freeze' }) });
    await group.locator('button.forget-session').click();
    await page.locator('dialog.confirm[open] vscode-button.ok').click();
    await row(page, 'Staging freeze').waitFor({ state: 'detached', ...WAIT });
    assert.equal((await observations('gamma')).length, 0);
  });

  it('shows queue, provider and token economics', async () => {
    await page.locator('vscode-tab-header.tab-status').click();
    const status = page.locator('.status-host');
    await status.locator('section.card[aria-label="Compression provider"] dd', { hasText: 'local' }).first().waitFor(WAIT);
    await status.locator('section.card[aria-label="Queue"] .big').waitFor(WAIT);
    assert.match(await status.innerText(), /Reading \d+ observations? .*costs about/);
    await page.locator('vscode-tab-header.tab-memory').click();
  });

  it('saves screenshots as test artifacts', async () => {
    await page.locator('vscode-textfield.search-field input').fill('');
    await row(page, 'Edited src/auth/login.ts').click();
    await page.locator('article.detail h2', { hasText: 'Edited src/auth/login.ts' }).waitFor(WAIT);
    const wide = path.join(ARTIFACTS, 'viewer.png');
    await page.screenshot({ path: wide, fullPage: true });
    const narrow = watch(await browser.newPage({ viewport: { width: 380, height: 760 }, colorScheme: 'dark' }));
    await narrow.goto(`${w.url}/?token=${encodeURIComponent(w.token)}`);
    await row(narrow, 'Edited src/auth/login.ts').waitFor(WAIT);
    await narrow.screenshot({ path: path.join(ARTIFACTS, 'viewer-narrow-dark.png') });
    await narrow.close();
    assert.ok(fs.statSync(wide).size > 10_000);
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
  });
});

/**
 * Picks an option of a vscode-single-select and waits until the select holds it. The panel rebuilds the project options when
 * a count changes (the worker is still storing the seeded records), which closes an open dropdown;
 * a pick lost that way is made again, up to five times.
 */
async function chooseOption(p: Page, select: string, label: string): Promise<void> {
  const el = p.locator(select);
  const want = await el.evaluate((e, l) => Array.from(e.querySelectorAll('vscode-option') as ArrayLike<Element>).find((o) => (o.textContent ?? '').includes(l))?.getAttribute('value') ?? undefined, label);
  assert.notEqual(want, undefined, `${select} has no option "${label}"`);
  for (let i = 0; i < 5; i++) {
    await el.click();
    await el.locator('.dropdown li, [role="option"]', { hasText: label }).first().click({ timeout: 5_000 }).catch(() => undefined);
    if ((await el.evaluate((e) => (e as unknown as { value: string }).value)) === want) return;
    await p.keyboard.press('Escape');
  }
  assert.fail(`${select}: "${label}" was not chosen after 5 tries`);
}
