// Team memory in a real VS Code (code-server 4.139.1 = VS Code 1.139.1) with our packaged .vsix and
// a real PostgreSQL hub (a throwaway cluster, test/helpers/postgres.ts). Playwright drives the
// workbench as alice; bob is a second worker (his own data dir) started from Node.
//
//   UI suite "team-ui":
//     1. "Claude Mem: Share Project Memory…" from the palette asks for the connection string
//        (a password input box), then which project and what to share; the status bar item shows
//        the hub connected
//     2. the connection string lives in SecretStorage only: "Claude Mem: Restart Worker" gives a new
//        worker that is connected again without asking (the extension handed the stored string
//        over), and no settings file, worker file or log holds the password
//     3. a record bob saves appears in the Memory panel labelled "by bob@devbox"; the panel's author
//        filter narrows the list to bob's record ("bob") or to alice's own ("me")
//     4. the hub stopped: the status bar shows offline with 1 waiting (a record alice saves meanwhile);
//        the hub started again: connected, and the record is on the hub (SQL)
//     5. "Stop Sharing Project Memory…" unshares; "Forget Team Hub Connection" turns team memory off,
//        and a restarted worker stays off (the string is gone from SecretStorage)
// Alice's own records are written through her worker's HTTP API (saving a file through the UI is
// memory-ui's step 2); everything she does to the extension goes through the UI.
//
// Run: node --require ./test/ts.cjs --test --test-name-pattern=team test/e2e/suites.test.ts
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from 'pg';
import type { Locator, Page } from 'playwright-core';
import { ensureHubSchema } from '../../../worker/team/hubSchema';
import { addTeams, createCluster, createHub, pgBinDir, type PgCluster } from '../../helpers/postgres';
import { startWorker, type RunningWorker } from '../../helpers/worker';
import { poll, runCommand, webviewFrame, withCodeServerPage, WorkerApi, type E2eSetup } from '../harness';

/** Registers the suite's tests (test/e2e/suites.test.ts runs it inside its describe). */
export function teamSuite(e2e: E2eSetup): void {
  const skip = e2e.skip || (!pgBinDir() && 'PostgreSQL server binaries not installed (scripts/test-setup.sh)');

  const PROJECT = 'team-e2e';
  const DB = 'team_e2e_hub';

  test('UI: Share Project Memory → connected → a teammate\'s record in the panel, filtered by author → hub down and back', { timeout: 480_000, skip }, async (t) => {
    const pg: PgCluster = await createCluster();
    t.after(() => pg.destroy());
    const hub = await createHub(pg, { db: DB, teams: {}, extraMembers: ['alice', 'bob'] });
    const admin = new Client({ connectionString: hub.admin });
    await admin.connect();
    await ensureHubSchema(admin);
    await admin.end();
    await addTeams(pg, DB, { core: ['alice', 'bob'] });
    const aliceUrl = hub.member('alice');
    const alicePassword = decodeURIComponent(new URL(aliceUrl).password);

    // Bob: another worker, another data dir, already sharing the project.
    const bob: RunningWorker = await startWorker({
      env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local', CLAUDE_MEM_TEAM_URL: hub.member('bob'), CLAUDE_MEM_TEAM_MACHINE: 'devbox' },
    });
    t.after(() => void bob.stop());
    await poll('bob connected to the hub', async () => (await bob.req('GET', '/api/team/status')).body.state === 'connected', 30_000);
    const bobShared = await bob.req('POST', '/api/team/share', { project: PROJECT });
    assert.equal(bobShared.status, 200, JSON.stringify(bobShared.body));

    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-team-'));
    const ws = path.join(root, PROJECT);
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'Notes for the team e2e test.\n');
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));

    await withCodeServerPage(
      {
        suite: 'team-ui',
        vsixes: [e2e.vsix()],
        workspace: ws,
        settings: { 'workbench.editor.enablePreview': false, 'files.autoSave': 'off' },
        env: { CLAUDE_MEM_TEAM_MACHINE: 'laptop', CLAUDE_MEM_EMBEDDINGS: 'off' },
      },
      async ({ page, step, screenshot, server, steps }) => {
        t.after(() => t.diagnostic(`steps: ${steps.summary()}`));
        const worker = WorkerApi.of(server);
        const team = () => worker.get<TeamStatus>('/api/team/status');
        const save = async (text: string, title: string): Promise<number> => {
          const r = await fetch(`${worker.base}/api/memory/save`, {
            method: 'POST',
            headers: { authorization: `Bearer ${worker.token()}`, 'content-type': 'application/json' },
            body: JSON.stringify({ project: PROJECT, text, title }),
          });
          const body = (await r.json()) as { id: number };
          assert.ok(r.ok, `POST /api/memory/save: ${r.status} ${JSON.stringify(body)}`);
          return body.id;
        };

        const health = await step('the extension activates and its worker becomes healthy', () =>
          poll('GET /api/health on the suite worker port to answer "ok"', async () => ((await worker.health())?.status === 'ok' ? worker.health() : undefined), 90_000),
        );
        await step('team memory starts off: no team status bar item', async () => {
          await statusItem(page, /\bMemory\b/).filter({ has: page.locator('.codicon-database') }).waitFor({ timeout: 60_000 });
          assert.equal((await team()).state, 'off');
          assert.equal(await teamItem(page).count(), 0, 'a team item is shown before anything was set up');
        });
        const ownId = await save('Alice decided to keep the retry budget at three attempts.', 'alice retry budget');

        // ---- 1. Share Project Memory, with the connection set-up ----
        await step('"Share Project Memory" asks for the connection string (a password box)', async () => {
          await runCommand(page, 'Claude Mem: Share Project Memory');
          // The palette's own input is reused for the input box: wait for its title first.
          await page.locator('.quick-input-widget').getByText(/Team hub \(PostgreSQL\)/).waitFor({ timeout: 20_000 });
          const input = page.locator('.quick-input-widget .quick-input-box input');
          await poll('the input box to be a password box', async () => (await input.getAttribute('type')) === 'password', 10_000);
          await input.fill(aliceUrl);
          await screenshot('share-connection-string');
          await input.press('Enter');
        });
        await step('it connects, then asks which project (this workspace first) and what to share', async () => {
          const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: PROJECT }).filter({ hasText: 'this workspace' }).first();
          await row.waitFor({ timeout: 60_000 });
          await screenshot('share-pick-project');
          await row.click();
          const what = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: /^Observations and summaries$/ }).first();
          await what.waitFor({ timeout: 20_000 });
          await screenshot('share-pick-what');
          await what.click();
          await notification(page, new RegExp(`Sharing "${PROJECT}" with team core`));
          await screenshot('share-done');
        });
        await step('the status bar shows the hub connected', async () => {
          const item = teamItem(page).filter({ has: page.locator('.codicon-cloud') });
          await item.waitFor({ timeout: 30_000 });
          const label = (await item.getAttribute('aria-label')) ?? '';
          assert.match(label, /Team/, label);
          const st = await team();
          assert.equal(st.state, 'connected');
          assert.equal(st.source, 'extension', 'the connection string came from the extension');
          assert.equal(st.author, 'alice');
          assert.deepEqual(st.shares.map((s) => s.project), [PROJECT]);
          await screenshot('status-connected');
        });
        await step('alice\'s record reaches the hub and bob', async () => {
          await poll('alice\'s record on bob\'s worker', async () => ((await bob.req('GET', `/api/observations?project=${PROJECT}&limit=50`)).body.items as { title: string }[]).some((o) => o.title === 'alice retry budget'), 60_000);
        });

        // ---- 2. the connection string is in SecretStorage only ----
        await step('"Restart Worker": a new worker is connected again without asking (the string came from SecretStorage)', async () => {
          await runCommand(page, 'Claude Mem: Restart Worker');
          const next = await poll('a new worker pid', async () => {
            const h = await worker.health();
            return h && h.pid !== health.pid ? h : undefined;
          }, 90_000);
          t.diagnostic(`worker restarted: pid ${health.pid} -> ${next.pid}`);
          await poll('the new worker connected to the hub with the extension\'s string', async () => {
            const st = await team();
            return st.state === 'connected' && st.source === 'extension' ? st : undefined;
          }, 60_000, 500, team);
          assert.equal(await page.locator('.quick-input-widget .quick-input-box input[type="password"]').isVisible(), false, 'it asked for the string again');
          await teamItem(page).filter({ has: page.locator('.codicon-cloud') }).waitFor({ timeout: 30_000 });
          await screenshot('restarted-connected');
        });
        await step('no settings file, worker file or log holds the connection string\'s password', async () => {
          const leaks: string[] = [];
          for (const dir of [server.userDataDir, server.claudeMemDataDir]) {
            for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
              const file = path.join(dir, rel);
              const st = fs.statSync(file, { throwIfNoEntry: false });
              if (!st?.isFile() || st.size > 20_000_000) continue;
              if (fs.readFileSync(file).includes(alicePassword)) leaks.push(file);
            }
          }
          // (code-server keeps extension secrets on the browser side, encrypted.)
          assert.deepEqual(leaks, [], `the password is in: ${leaks.join(', ')}`);
          assert.ok(!fs.existsSync(path.join(server.claudeMemDataDir, 'team.url')), 'team.url was written');
        });

        // ---- 3. a teammate's record in the panel, and the author filter ----
        const panel = await step('the Memory panel lists alice\'s own record', async () => {
          await runCommand(page, 'Claude Mem: Open Memory Panel');
          const frame = await webviewFrame(page, '#app');
          await frame.locator(`button.item.obs[data-id="${ownId}"]`).waitFor({ timeout: 30_000 });
          // Room for the list in the screenshots: fold the view below it.
          await page.locator('.pane-header').filter({ hasText: /Memories For This File/i }).first().click().catch(() => undefined);
          return frame;
        });
        const bobTitle = 'bob flaky test cause';
        await bob.req('POST', '/api/memory/save', { project: PROJECT, text: 'Bob found the flaky test is caused by a shared temp dir.', title: bobTitle });
        const bobRow = await step('a record bob saves appears in the panel, labelled with its author', async () => {
          const row = panel.locator('button.item.obs').filter({ hasText: bobTitle }).first();
          await row.waitFor({ timeout: 60_000 });
          const text = await row.innerText();
          assert.match(text, /by bob@devbox/, `the row says: ${text}`);
          // Its session's header says whose it is, not "Session #n".
          const head = await panel.locator('section.group', { has: row }).locator('h3').innerText();
          assert.equal(head, 'Session by bob@devbox');
          await screenshot('panel-teammate-record');
          return row;
        });
        await step('the author filter "bob" narrows the list to bob\'s record', async () => {
          await panel.locator('button.filter-toggle').click();
          const author = panel.locator('.author-filter input').first();
          await author.waitFor({ timeout: 10_000 });
          await author.fill('bob');
          await poll('only bob\'s record listed', async () => (await panel.locator(`button.item.obs[data-id="${ownId}"]`).count()) === 0 && (await bobRow.isVisible()), 20_000);
          // The filters fold away (the filter stays on, its count on the button) so the list shows.
          await panel.locator('button.filter-toggle').click();
          await screenshot('panel-filter-bob');
          await panel.locator('button.filter-toggle').click();
          await author.fill('me');
          await poll('only alice\'s own record listed', async () => (await panel.locator(`button.item.obs[data-id="${ownId}"]`).count()) === 1 && (await panel.locator('button.item.obs').filter({ hasText: bobTitle }).count()) === 0, 20_000);
          await panel.locator('button.filter-toggle').click();
          await screenshot('panel-filter-me');
          await panel.locator('button.filter-toggle').click();
          await author.fill('');
        });

        // ---- 4. the hub down: offline with N waiting; back: connected ----
        await step('the hub stopped: the status bar shows offline with 1 waiting', async () => {
          pg.stop('fast');
          await poll('alice\'s worker to see the hub gone', async () => (await team()).state === 'offline', 60_000, 500, team);
          await save('Alice noted the cache key must include the node version.', 'alice cache key');
          const item = teamItem(page).filter({ has: page.locator('.codicon-cloud-offline') }).filter({ hasText: /Team 1\b/ });
          await item.waitFor({ timeout: 45_000 });
          await screenshot('status-offline-waiting');
        });
        await step('the hub started again: connected, and the waiting record is on the hub', async () => {
          pg.start();
          await teamItem(page).filter({ has: page.locator('.codicon-cloud') }).waitFor({ timeout: 120_000 });
          await poll('the outbox drained', async () => (await team()).waiting === 0, 60_000, 500, team);
          const rows = await pg.sql<{ n: number }>(`SELECT count(*)::int AS n FROM claude_mem.records WHERE project = $1 AND payload->>'title' = 'alice cache key'`, [PROJECT], DB);
          assert.equal(rows[0]?.n, 1, 'the record saved while offline is on the hub once');
          await screenshot('status-connected-again');
        });

        // ---- 5. Stop Sharing, Forget Team Hub Connection ----
        await step('"Stop Sharing Project Memory" unshares the picked project', async () => {
          await runCommand(page, 'Claude Mem: Stop Sharing Project Memory');
          const row = page.locator('.quick-input-list .monaco-list-row').filter({ hasText: PROJECT }).first();
          await row.waitFor({ timeout: 20_000 });
          await row.click();
          await poll('no project shared', async () => (await team()).shares.length === 0, 20_000, 250, team);
        });
        await step('"Forget Team Hub Connection" removes it: the item goes, and a restarted worker stays off', async () => {
          await runCommand(page, 'Claude Mem: Forget Team Hub Connection');
          await notification(page, /Team hub connection removed from secret storage/);
          await poll('team memory off', async () => (await team()).state === 'off', 20_000, 250, team);
          await poll('the team item hidden', async () => (await teamItem(page).count()) === 0, 20_000);
          const before = (await worker.health())?.pid;
          await runCommand(page, 'Claude Mem: Restart Worker');
          await poll('a new worker pid', async () => {
            const h = await worker.health();
            return h && h.pid !== before ? h : undefined;
          }, 90_000);
          // The extension hands over what SecretStorage holds as the worker connects: nothing now. An
          // absence can only be watched for a while: 3 s after the new worker answers (a handover takes ms).
          await poll('the new worker answering its team status', () => team(), 30_000);
          await new Promise((r) => setTimeout(r, 3_000));
          assert.equal((await team()).state, 'off', 'the forgotten string came back');
          assert.equal(await teamItem(page).count(), 0);
          await screenshot('forgotten');
        });
      },
    );
  });

  interface TeamStatus {
    state: string;
    source: string | null;
    author: string | null;
    waiting: number;
    shares: { project: string }[];
  }

  function statusItem(page: Page, text: RegExp): Locator {
    return page.locator('.part.statusbar .statusbar-item').filter({ hasText: text });
  }

  /** The team hub's item ("$(cloud) Team", "$(cloud-offline) Team N", ...). */
  function teamItem(page: Page): Locator {
    return statusItem(page, /\bTeam\b/);
  }

  /** A notification's text: a toast, else (hidden already, or never shown as one) in the notification center. */
  async function notification(page: Page, text: RegExp): Promise<void> {
    const toast = page.locator('.notifications-toasts').getByText(text).first();
    if (await toast.waitFor({ timeout: 5_000 }).then(() => true, () => false)) return;
    await runCommand(page, 'Notifications: Show Notifications');
    await page.locator('.notifications-center').getByText(text).first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
  }
}
