// Freshness in a real VS Code (code-server 4.139.1 = VS Code 1.139.1) with our packaged .vsix:
// the CodeLens on a file shows its memories, and editing the cited lines marks the memory stale in
// the editor and in what the "Memories for This File" view lists (test/e2e/host/freshness.ts).
// Run: node --import tsx --test test/e2e/freshness.test.ts (needs `bash scripts/code-server/install.sh` once)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { assertToolsInstalled, ensureVsix, runExtensionTests } from './harness';

const skip = process.env.CLAUDE_MEM_SKIP_E2E === '1' && 'CLAUDE_MEM_SKIP_E2E=1';
let vsix = '';

before(() => {
  if (skip) return;
  assertToolsInstalled();
  vsix = ensureVsix();
});

test('extension host: CodeLens and file memories go stale as the cited lines are edited', { timeout: 360_000, skip }, async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cm-e2e-fresh-'));
  const dir = path.join(root, 'freshness-e2e');
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'retry.ts'), 'export const RETRIES = 3;\n');
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-q', '-m', 'retry']]) execFileSync('git', args, { cwd: dir, env });
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const result = await runExtensionTests({
    suite: 'freshness-host',
    testsEntry: 'test/e2e/host/freshness.ts',
    vsixes: [vsix],
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
