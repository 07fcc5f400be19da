// What the extension does for a user, end to end in a real VS Code (code-server 4.139.1 = VS Code
// 1.139.1) with our packaged .vsix and the fake language model (test/e2e/README.md):
//
//   UI suite "memory-ui" (Playwright drives the workbench; each UI step leaves a screenshot):
//     1. the extension activates, its worker becomes healthy, the status bar item shows it (and the
//        Extensions view lists it as activated)
//     2. editing and saving a file becomes an observation in the worker (its HTTP API, token from the data dir)
//     3. "Search Memory" from the command palette finds it and opens it; the Memory panel lists it and opens its detail
//     4. `@memory` typed into the chat input answers with a citation of that observation
//     6. closing the window completes the session; the worker then idles out
//   Extension-host suite "memory-host" (the real `vscode` API, test/e2e/host/memory.ts):
//     2. a save through the API becomes an observation; 4. vscode.lm.tools, invokeTool('memory_search'),
//     a model-driven tool call round trip, workbench.action.chat.open with a query;
//     5. with claudeMem.compression.provider = vscode the fake model compresses the queued observation
//
// A failure reads `[e2e <suite>] step "<step>" failed: <why>` with the screenshot taken at that moment.
// Run: node --require ./test/ts.cjs --test --test-name-pattern=memory test/e2e/suites.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { isAlive, poll, quickOpen, runCommand, runExtensionTests, webviewFrame, withCodeServerPage, WorkerApi, type WorkerObservation, type E2eSetup } from '../harness';

/** Registers the suite's tests (test/e2e/suites.test.ts runs it inside its describe). */
export function memorySuite(e2e: E2eSetup): void {
  const { skip } = e2e;

  /** A workspace folder whose name is the project the worker files everything under. */
  function makeWorkspace(project: string, files: Record<string, string>): { dir: string; dispose(): void } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-ws-'));
    const dir = path.join(root, project);
    fs.mkdirSync(dir);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return { dir, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
  }

  /** Settings for every suite here: no editor popups in the way of typing. */
  const quietEditor = {
    'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
    'editor.suggestOnTriggerCharacters': false,
    'editor.wordBasedSuggestions': 'off',
    'editor.parameterHints.enabled': false,
    'workbench.editor.enablePreview': false,
    'files.autoSave': 'off',
  };

  const UNIQUE = 'zebracorn';

  test('UI: save → observation → Search Memory → Memory panel → @memory → window closed', { timeout: 420_000, skip }, async (t) => {
    const project = 'memory-e2e';
    const ws = makeWorkspace(project, { 'notes.txt': 'Notes for the e2e test.\n' });
    t.after(() => ws.dispose());
    await withCodeServerPage(
      {
        suite: 'memory-ui',
        vsixes: [e2e.vsix()],
        workspace: ws.dir,
        settings: quietEditor,
        machineSettings: { 'claudeMem.worker.idleShutdownMinutes': 0.1 },
        // (The harness starts code-server with --reconnection-grace-time 3: a closed page's extension host ends within seconds.)
      },
      async ({ page, step, screenshot, server, steps }) => {
        t.after(() => t.diagnostic(`steps: ${steps.summary()}`));
        const worker = WorkerApi.of(server);

        // ---- 1. activation, worker health, status bar ----
        // Only our extension can start a worker on this suite's own port and data dir.
        const health = await step('the extension activates and its worker becomes healthy', () =>
          poll('GET /api/health on the suite worker port to answer "ok"', async () => {
            const h = await worker.health();
            return h?.status === 'ok' ? h : undefined;
          }, 90_000),
        );
        t.diagnostic(`worker pid ${health.pid} on port ${health.port}, provider ${health.provider?.name}`);
        await step('the status bar item shows the connected worker', async () => {
          // Connected: the database icon and "Memory" (spinner while starting, warning when down).
          const item = statusItem(page).filter({ has: page.locator('.codicon-database') });
          await item.waitFor({ timeout: 60_000 });
          await screenshot('status-bar-connected');
        });
        await step('the Extensions view lists Claude Mem as installed and activated', async () => {
          await page.keyboard.press('Control+Shift+X');
          const ext = page.locator('.extension-list-item').filter({ hasText: 'Claude Mem for VS Code' }).first();
          await ext.waitFor({ timeout: 30_000 });
          // The view shows an activation time ("145ms") only for activated extensions.
          await ext.getByText(/^\d+ms$/).waitFor({ timeout: 30_000 });
          await screenshot('extensions-view');
          await page.keyboard.press('Control+Shift+E');
        });

        // ---- 2. edit + save → observation ----
        await step('open notes.txt, type a line and save it', async () => {
          await quickOpen(page, 'notes.txt');
          const editor = page.locator('.editor-group-container.active .monaco-editor').first();
          await editor.waitFor({ timeout: 30_000 });
          await editor.click();
          await page.keyboard.press('Control+End');
          await page.keyboard.type(`${UNIQUE} line added by the e2e test\n`);
          await page.keyboard.press('Control+S');
          // The tab loses its dirty marker once the file is written.
          await page.locator('.tabs-container .tab.active:not(.dirty)').waitFor({ timeout: 30_000 });
          await screenshot('saved-notes');
        });
        const obs = await step('the save becomes an observation in the worker', () =>
          poll(
            `an observation of ${project}: the save of notes.txt (GET /api/observations)`,
            async () => (await worker.observations(project)).find((o) => o.toolName === 'FileSave' && o.filesModified.some((f) => f.endsWith('notes.txt'))),
            60_000,
            250,
            async () => ({ observations: await worker.observations(), queue: await worker.get('/api/queue') }),
          ),
        );
        t.diagnostic(`observation #${obs.id}: ${obs.title}`);

        // ---- 3. Search Memory (palette) and the Memory panel ----
        await step('"Search Memory" from the command palette finds it', async () => {
          await runCommand(page, 'Claude Mem: Search Memory');
          const input = page.locator('.quick-input-widget .quick-input-box input');
          await input.waitFor({ timeout: 20_000 });
          await input.fill('notes.txt');
          await quickPickRow(page, obs).waitFor({ timeout: 30_000 });
          await screenshot('search-memory-results');
        });
        await step('accepting the search result opens the observation', async () => {
          await quickPickRow(page, obs).click();
          // The detail opens as the document claude-mem:/observation/<id>.md, in the markdown preview.
          await page.locator('.tabs-container .tab').filter({ hasText: `${obs.id}.md` }).first().waitFor({ timeout: 30_000 });
          await webviewFrame(page, `h3:has-text("#${obs.id} ")`);
          await screenshot('search-memory-detail');
        });
        const panel = await step('the Memory panel lists the observation', async () => {
          await runCommand(page, 'Claude Mem: Open Memory Panel');
          const frame = await webviewFrame(page, '#app');
          await frame.locator(`button.item.obs[data-id="${obs.id}"]`).waitFor({ timeout: 30_000 });
          await screenshot('memory-panel-list');
          return frame;
        });
        await step('clicking it in the Memory panel opens its detail', async () => {
          await panel.locator(`button.item.obs[data-id="${obs.id}"]`).click();
          const detail = panel.locator(`article.detail[data-id="${obs.id}"]`);
          await detail.waitFor({ timeout: 20_000 });
          assert.match(await detail.innerText(), new RegExp(`#${obs.id}\\b`));
          await screenshot('memory-panel-detail');
        });

        // ---- 4. @memory in the chat input ----
        await step('@memory typed into the chat answers with a citation', async () => {
          await runCommand(page, 'Chat: Open Chat', /^Chat: Open Chat$/);
          const input = page.locator('.interactive-input-part .monaco-editor').first();
          await input.waitFor({ timeout: 30_000 });
          // A chat view that is still setting itself up can replace what was typed (a CI run ended
          // with "@agent" in the box): type, read the box back, and only then send.
          const query = '@memory what did I change in notes.txt?';
          const typed = async () => (await input.locator('.view-lines').innerText()).replace(/[\s\u00a0]+/g, ' ').trim(); // wrapped lines, nbsp
          for (let attempt = 1; ; attempt++) {
            await input.click();
            await page.keyboard.press('Control+A');
            await page.keyboard.press('Backspace');
            await page.keyboard.type(query);
            await page.waitForTimeout(500);
            if ((await typed()) === query) break;
            if (attempt === 3) assert.fail(`the chat input holds "${await typed()}" instead of the query`);
          }
          await page.keyboard.press('Enter');
          // The fake model cites every memory it was given in full ("#<id>"); the handler then
          // lists the cited ones under "Cited memories".
          const response = page.locator('.interactive-item-container.interactive-response').last();
          await response.getByText(/From memory: see #/).waitFor({ timeout: 60_000 });
          // The "Cited memories" line is a later part of the stream: wait for it too before reading.
          await response.getByText(/Cited memories:/).waitFor({ timeout: 30_000 }).catch(() => undefined);
          const text = await response.innerText();
          assert.match(text, new RegExp(`From memory: see [#\\d, ]*#${obs.id}\\b`), `the answer cites #${obs.id}:\n${text}`);
          assert.match(text, new RegExp(`Cited memories:.*#${obs.id}\\b`), `the answer lists #${obs.id} under "Cited memories":\n${text}`);
          await screenshot('chat-memory-answer');
        });

        // ---- 6. closing the window ends the session; the worker idles out ----
        await step('closing the window completes the session', async () => {
          const open = await worker.sessions(project);
          assert.ok(open.some((x) => x.platform === 'vscode' && x.status === 'active'), `no active vscode session of ${project} before closing: ${JSON.stringify(open)}`);
          await screenshot('before-close');
          await page.close({ runBeforeUnload: true });
          await poll(
            `the vscode session(s) of ${project} to be "completed" (GET /api/sessions)`,
            async () => {
              const s = (await worker.sessions(project)).filter((x) => x.platform === 'vscode');
              return s.length > 0 && s.every((x) => x.status === 'completed') ? s : undefined;
            },
            90_000,
          );
        });
        await step('the worker idles out once no window is connected', async () => {
          await poll(`worker pid ${health.pid} to exit (claudeMem.worker.idleShutdownMinutes = 0.1)`, async () => !(await worker.health()) && !isAlive(health.pid), 90_000);
          // It stopped because it was idle, not because its parent went away or it crashed.
          const log = fs.readFileSync(path.join(server.claudeMemDataDir, 'logs', 'worker.log'), 'utf8');
          assert.match(log, /shutting down: idle/, `worker.log does not say it stopped for being idle:\n${log.split('\n').slice(-15).join('\n')}`);
        });
      },
    );
  });

  function statusItem(page: Page): Locator {
    return page.locator('.part.statusbar .statusbar-item').filter({ hasText: /\bMemory\b/ });
  }

  function quickPickRow(page: Page, o: WorkerObservation): Locator {
    return page.locator('.quick-input-list .monaco-list-row').filter({ hasText: o.title }).filter({ hasText: `#${o.id}` }).first();
  }

  test('extension host: the memory tools, chat.open and compression by the fake model', { timeout: 360_000, skip }, async (t) => {
    const ws = makeWorkspace('memory-host-e2e', { 'notes.txt': 'Notes for the e2e test.\n' });
    t.after(() => ws.dispose());
    const result = await runExtensionTests({
      suite: 'memory-host',
      testsEntry: 'test/e2e/host/memory.ts',
      vsixes: [e2e.vsix()],
      workspace: ws.dir,
      settings: quietEditor,
      machineSettings: { 'claudeMem.compression.provider': 'vscode' },
      // The worker's own settings: every tool use goes to the model (a plain save is not one the
      // default scope sends, and this suite tests the window's model as the provider), a batch goes at
      // once (not after 30 s), and work waits 20 s (not 2 min) for a window's model before falling
      // back to the local heuristic.
      workerSettings: { modelObservations: 'every', batchMaxAgeMs: 0, vscodeWaitMs: 20_000 },
      timeoutMs: 300_000,
    });
    for (const c of result.report.tests) t.diagnostic(`host: ${c.ok ? 'ok' : 'FAIL'} ${c.name} (${c.ms} ms)`);
    t.diagnostic(`recorded: ${JSON.stringify(result.report.data)}`);
    assert.equal(result.report.tests.length, 8, 'every host case reported');
  });
}
