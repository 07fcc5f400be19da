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

type HookEventsFromHooksJson = (text: string, platform: string) => string[];
async function theirsParser(): Promise<HookEventsFromHooksJson> {
  const mod = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'theirs.mjs')).href)) as { hookEventsFromHooksJson?: HookEventsFromHooksJson };
  assert.equal(typeof mod.hookEventsFromHooksJson, 'function', 'bench/compare/theirs.mjs exports hookEventsFromHooksJson');
  return mod.hookEventsFromHooksJson as HookEventsFromHooksJson;
}

// The shape of claude-mem 13.25.3's plugin/hooks/hooks.json: a bash preamble that finds the plugin
// folder, then `node "$_P/scripts/bun-runner.js" "$_P/scripts/worker-service.cjs" hook claude-code <event>`.
const preamble = 'export PATH="$HOME/.local/bin:$PATH"; _P=$(find_plugin); ';
const command = (tail: string) => ({ type: 'command', shell: 'bash', command: `${preamble}node "$_P/scripts/bun-runner.js" "$_P/scripts/worker-service.cjs" ${tail}` });
const hooksJson = (tails: Record<string, string[]>) =>
  JSON.stringify({ description: 'hooks', hooks: Object.fromEntries(Object.entries(tails).map(([k, ts]) => [k, [{ matcher: '*', hooks: ts.map(command) }]])) });

it("reads claude-mem's hook events from its hooks.json commands, not the lifecycle commands around them", async () => {
  const parse = await theirsParser();
  const text = hooksJson({
    SessionStart: ['start', 'hook claude-code context'],
    UserPromptSubmit: ['hook claude-code session-init'],
    PostToolUse: ['hook claude-code observation'],
    PreToolUse: ['hook claude-code file-context'],
    Stop: ['hook claude-code summarize'],
    SessionEnd: ['hook claude-code session-end', 'hook cursor session-end'],
  });
  assert.deepEqual(parse(text, 'claude-code'), ['context', 'session-init', 'observation', 'file-context', 'summarize', 'session-end']);
  assert.deepEqual(parse(text, 'cursor'), ['session-end']);
});

it("fails with a sentence when claude-mem's hooks.json runs no hook command for the platform", async () => {
  const parse = await theirsParser();
  assert.throws(() => parse(hooksJson({ SessionStart: ['start'], Stop: ['hook-summarize claude-code'] }), 'claude-code'), /runs no "worker-service.cjs hook claude-code <event>" command \(2 commands\), so its hook commands cannot be measured/);
});
