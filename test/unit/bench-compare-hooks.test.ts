// bench:compare replays every hook event through our hook command: it reads the handlers from the
// CLI's usage, and a usage it cannot read, or one without an event, ends the run instead of sending
// those events over HTTP unmeasured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { HOOK_NAMES } from '../../common/contract/hooks';

const root = path.resolve(__dirname, '..', '..');

type HookHandlersFromHelp = (text: string, platform: string) => string[];
async function parser(): Promise<HookHandlersFromHelp> {
  const mod = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'ours.mjs')).href)) as { hookHandlersFromHelp?: HookHandlersFromHelp };
  assert.equal(typeof mod.hookHandlersFromHelp, 'function', 'bench/compare/ours.mjs exports hookHandlersFromHelp');
  return mod.hookHandlersFromHelp as HookHandlersFromHelp;
}

it("reads every hook handler of the contract from the CLI's real usage", async () => {
  const help = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'cli', 'main.ts'), 'help'], { cwd: root, encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  const handlers = (await parser())(help.stdout, 'claude-code');
  assert.deepEqual(handlers, [...HOOK_NAMES]);
});

it('fails with a sentence when the usage has no hook line or not the platform', async () => {
  const parse = await parser();
  assert.throws(() => parse('usage: claude-mem <command>\n  hook claude-code <event>\n', 'claude-code'), /has no "hook <platform> <handler>" line, so the hook commands cannot be measured/);
  assert.throws(() => parse('  hook <codex|gemini-cli> <context|observation>\n', 'claude-code'), /lists hooks for codex, gemini-cli but not claude-code/);
});
