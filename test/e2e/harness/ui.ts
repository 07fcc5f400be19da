// Workbench gestures the UI suites share: the palette, quick open, and the page inside a webview.
import type { Frame, Page } from 'playwright-core';
import { poll } from './worker';

/** Opens a file by name through quick open (Ctrl+P). */
export async function quickOpen(page: Page, file: string): Promise<void> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ timeout: 20_000 });
  await input.fill(file);
  await page.locator('.quick-input-list .monaco-list-row').filter({ hasText: file }).first().waitFor({ timeout: 20_000 });
  await page.keyboard.press('Enter');
}

/** Runs a command by its palette title (F1, type, pick the row whose label matches). */
export async function runCommand(page: Page, title: string, exact?: RegExp): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ timeout: 20_000 });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: exact ?? title }) }).first();
  await row.waitFor({ timeout: 20_000 });
  await row.click();
}

/**
 * The page inside a webview view: VS Code nests it in two iframes (the webview host, then
 * `active-frame`); the outer one's src names the view (`extensionId=…`, `purpose=webviewView`).
 * The Memory panel's page is the one with `#app`.
 */
export async function webviewFrame(page: Page, marker: string): Promise<Frame> {
  return poll(`a webview page with ${marker}`, async () => {
    for (const f of page.frames()) {
      if (f === page.mainFrame()) continue;
      if (await f.locator(marker).count().catch(() => 0)) return f;
    }
    return undefined;
  }, 30_000);
}
