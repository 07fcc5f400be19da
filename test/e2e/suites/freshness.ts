// Freshness in a real VS Code (code-server 4.139.1 = VS Code 1.139.1) with our packaged .vsix:
// the CodeLens on a file shows its memories, and editing the cited lines marks the memory stale in
// the editor and in what the "Memories for This File" view lists (test/e2e/host/freshness.ts).
// Run: node --require ./test/ts.cjs --test --test-name-pattern=freshness test/e2e/suites.test.ts
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { poll, quickOpen, runCommand, runExtensionTests, webviewFrame, withCodeServerPage, WorkerApi, type E2eSetup } from '../harness';

/** Registers the suite's tests (test/e2e/suites.test.ts runs it inside its describe). */
export function freshnessSuite(e2e: E2eSetup): void {
  const { skip } = e2e;

  /** A git repository named `name` with src/retry.ts committed on main. */
  function gitWorkspace(name: string): { dir: string; dispose(): void } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-fresh-'));
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'retry.ts'), 'export const RETRIES = 3;\n');
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'retry']]) execFileSync('git', args, { cwd: dir, env });
    return { dir, dispose: () => fs.rmSync(root, { recursive: true, force: true }) };
  }

  test('extension host: CodeLens and file memories go stale as the cited lines are edited', { timeout: 360_000, skip }, async (t) => {
    const ws = gitWorkspace('freshness-e2e');
    const dir = ws.dir;
    t.after(() => ws.dispose());
    const result = await runExtensionTests({
      suite: 'freshness-host',
      testsEntry: 'test/e2e/host/freshness.ts',
      vsixes: [e2e.vsix()],
      workspace: dir,
      settings: { 'files.autoSave': 'off', 'git.enabled': false },
      machineSettings: { 'claudeMem.compression.provider': 'local' },
      timeoutMs: 300_000,
    });
    for (const c of result.report.tests) t.diagnostic(`host: ${c.ok ? 'ok' : 'FAIL'} ${c.name} (${c.ms} ms)${c.ok ? '' : `\n${c.error}`}`);
    t.diagnostic(`recorded: ${JSON.stringify(result.report.data)}`);
    assert.equal(result.report.tests.length, 4, 'every host case reported');
    assert.ok(result.report.tests.every((c) => c.ok));
  });

  test('UI: the Memory panel marks a memory "may be stale" when its cited lines are edited', { timeout: 360_000, skip }, async (t) => {
    const project = 'freshness-ui-e2e';
    const ws = gitWorkspace(project);
    t.after(() => ws.dispose());
    await withCodeServerPage(
      {
        suite: 'freshness-ui',
        vsixes: [e2e.vsix()],
        workspace: ws.dir,
        settings: { 'files.autoSave': 'off', 'git.enabled': false, 'workbench.editor.enablePreview': false, 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' } },
        machineSettings: { 'claudeMem.compression.provider': 'local' },
      },
      async ({ page, step, screenshot, server, steps }) => {
        t.after(() => t.diagnostic(`steps: ${steps.summary()}`));
        const worker = WorkerApi.of(server);
        await step('the extension activates and its worker becomes healthy', () => poll('GET /api/health to answer "ok"', async () => ((await worker.health())?.status === 'ok' ? true : undefined), 90_000));
        const editor = page.locator('.editor-group-container.active .monaco-editor').first();
        await step('add a line to src/retry.ts and save it', async () => {
          await quickOpen(page, 'retry.ts');
          await editor.waitFor({ timeout: 30_000 });
          await editor.click();
          await page.keyboard.press('Control+End');
          await page.keyboard.type('export const JITTER = 0.2;\n');
          await page.keyboard.press('Control+S');
          await page.locator('.tabs-container .tab.active:not(.dirty)').waitFor({ timeout: 30_000 });
        });
        const id = await step('the save becomes a memory citing src/retry.ts', () =>
          poll('GET /api/freshness/file to list a memory citing src/retry.ts', async () => {
            // The save's memory (opening the file may also have made a "Read" one, of the old text).
            const r = await worker.get<{ items: Array<{ id: number; title: string; status: string }> }>(`/api/freshness/file?project=${project}&path=src/retry.ts`);
            return r.items.find((m) => /^Saved src\/retry\.ts/.test(m.title) && m.status === 'fresh')?.id;
          }, 60_000),
        );
        t.diagnostic(`memory #${id}`);
        const panel = await step('the Memory panel lists it, with no stale mark', async () => {
          await runCommand(page, 'Claude Mem: Open Memory Panel');
          const frame = await webviewFrame(page, '#app');
          await frame.locator(`button.item.obs[data-id="${id}"]`).waitFor({ timeout: 30_000 });
          assert.equal(await frame.locator(`button.item.obs[data-id="${id}"] .badge.stale`).count(), 0);
          return frame;
        });
        await step('editing the cited line (unsaved) marks it "may be stale" in the panel', async () => {
          await editor.click();
          await page.keyboard.press('Control+Home');
          await page.keyboard.press('Shift+End');
          await page.keyboard.type('export const RETRIES = 5;');
          const badge = panel.locator(`button.item.obs[data-id="${id}"] .badge.stale`);
          await badge.waitFor({ timeout: 60_000 });
          assert.equal((await badge.innerText()).trim(), 'may be stale');
          assert.match((await badge.getAttribute('title')) ?? '', /src\/retry\.ts changed/);
          await screenshot('memory-panel-stale');
        });
        await step('its detail says what changed', async () => {
          await panel.locator(`button.item.obs[data-id="${id}"]`).click();
          const note = panel.locator(`article.detail[data-id="${id}"] .stale-note`);
          await note.waitFor({ timeout: 20_000 });
          assert.match(await note.innerText(), /may be stale: src\/retry\.ts changed/);
          await screenshot('memory-panel-stale-detail');
        });
      },
    );
  });
}
