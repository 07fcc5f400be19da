// The web workbench: its URL (folder + smoke-test payload) and "it has loaded".
import type { Page } from 'playwright-core';
import type { CodeServer } from './codeServer';

export type Payload = Array<[string, string]>;

/** The payload query is honoured only with the smoke-test driver (a built workbench ignores it otherwise). */
export function workbenchUrl(server: CodeServer, folder: string, payload?: Payload): string {
  const q = new URLSearchParams({ folder });
  if (payload?.length) q.set('payload', JSON.stringify(payload));
  return `${server.url}/?${q.toString()}`;
}

/** Waits until the workbench has rendered its parts and connected to the server. */
export async function waitForWorkbench(page: Page, timeoutMs = 60_000): Promise<void> {
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: timeoutMs });
  await page.waitForSelector('.monaco-workbench .part.activitybar, .monaco-workbench .part.sidebar', { timeout: timeoutMs });
  // The explorer shows the folder only once the remote file system answers.
  await page.waitForSelector('.explorer-folders-view, .explorer-viewlet .monaco-list', { timeout: timeoutMs });
}
