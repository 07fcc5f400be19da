// First end-to-end test: our packaged .vsix in a real VS Code (code-server 4.139.1 = VS Code
// 1.139.1) with the fake language model. Needs `bash scripts/code-server/install.sh` once.
// Run: node --require ./test/ts.cjs --test --test-name-pattern=activation test/e2e/suites.test.ts
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runExtensionTests, type E2eSetup } from '../harness';

/** Registers the suite's tests (test/e2e/suites.test.ts runs it inside its describe). */
export function activationSuite(e2e: E2eSetup): void {
  const OUR_LOG = /claude-mem-vscode\.claude-mem-vscode[/\\][^/\\]*Claude Mem\.log$/;
  const { skip } = e2e;

  test('extension host: our extension activates and the fake model answers', { timeout: 240_000, skip }, async (t) => {
    let activationLog = '';
    const result = await runExtensionTests({
      suite: 'activation',
      testsEntry: 'test/e2e/host/activation.ts',
      vsixes: [e2e.vsix()],
      inspect: (s) => {
        // The LogOutputChannel writes a file; its "activated" line proves activate() ran to the end.
        for (const [rel, text] of s.serverLogs()) if (OUR_LOG.test(rel)) activationLog = text;
      },
    });
    for (const c of result.report.tests) t.diagnostic(`host: ${c.ok ? 'ok' : 'FAIL'} ${c.name} (${c.ms} ms)`);
    assert.equal(result.report.tests.length, 5, 'every host case reported');

    const line = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[info\] .*\bactivated\b/m.exec(activationLog);
    assert.ok(line, `the 'Claude Mem' log channel has no "activated" line:\n${activationLog || '(no log file found)'}`);
    const activatedAt = new Date(line[1].replace(' ', 'T')).getTime(); // local time, like the log
    const { timings, memory } = result;
    t.diagnostic(
      `code-server listening ${timings.listening} ms, workbench ${timings.workbench} ms, ` +
        `extension activated ${activatedAt - result.spawnedAt} ms, tests done ${timings.exit} ms after spawn`,
    );
    t.diagnostic(`peak PSS: code-server ${memory.codeServerMb} MB, chromium ${memory.chromiumMb} MB`);
    t.diagnostic(`CPU: code-server ${result.cpu.codeServerS} s, chromium ${result.cpu.chromiumS} s`);
  });

  // The UI side (status bar, Extensions view, palette, panel, chat) is in suites/memory.ts.
}
