// `claude-mem install vscode-agent`: VS Code's hook files (~/.copilot/hooks/claude-mem.json,
// .github/hooks/claude-mem.json) with the Claude Code installer's guarantees; the stable launcher
// in the data dir, and a hook installed by one build that keeps working after an "update" (a
// second install folder, the first removed). Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hookInstallPlaces, bothInstalled, hooksStatusText } from '../../cli/commands/hooksStatus';
import { InstallError, installClaudeCode, installVscodeAgent, uninstallClaudeCode, uninstallVscodeAgent, VSCODE_AGENT_HOOKS, vscodeHookFile } from '../../common/node/install';
import { launcherPath, writeLauncher } from '../../common/node/launcher';
import type { ExportDocument } from '../../worker/transfer';
import { CLI_JS, ROOT, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const read = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8')) as { hooks: Record<string, Array<Record<string, unknown>>>; [k: string]: unknown };

describe('install vscode-agent', () => {
  let home: string;
  let data: string;
  const base = () => ({ scope: 'user' as const, homeDir: home, nodePath: process.execPath, cliPath: CLI_JS, runAsNode: false, env: { CLAUDE_MEM_DATA_DIR: data } });

  before(() => {
    const t = tempDir('install-vscode-');
    home = path.join(t, 'home');
    data = path.join(t, 'data');
    fs.mkdirSync(home);
  });

  it('writes ~/.copilot/hooks/claude-mem.json in VS Code\'s format, keeping hooks others put there', () => {
    const file = vscodeHookFile({ scope: 'user', homeDir: home });
    assert.equal(file, path.join(home, '.copilot', 'hooks', 'claude-mem.json'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const theirs = { type: 'command', command: './scripts/format.sh', timeout: 30 };
    fs.writeFileSync(file, JSON.stringify({ hooks: { PostToolUse: [theirs] }, note: 'keep me' }));
    const r = installVscodeAgent(base());
    assert.equal(r.file.changed, true);
    assert.ok(r.file.backup && fs.existsSync(r.file.backup), 'backup of the file it changed');
    const j = read(file);
    assert.equal(j.note, 'keep me');
    assert.deepEqual(j.hooks.PostToolUse[0], theirs);
    for (const spec of VSCODE_AGENT_HOOKS) {
      const ours = j.hooks[spec.event].filter((h) => String(h.command).endsWith(`hook vscode-agent ${spec.hook}`));
      assert.equal(ours.length, 1, spec.event);
      assert.equal(ours[0].type, 'command');
      assert.equal(ours[0].timeout, spec.timeout);
    }
    assert.ok(!('matcher' in j.hooks.PreToolUse[0]), 'VS Code ignores matchers: none written');
  });

  it('is idempotent: a second install changes no byte and writes no backup', () => {
    const file = vscodeHookFile({ scope: 'user', homeDir: home });
    const before = fs.readFileSync(file, 'utf8');
    const r = installVscodeAgent(base());
    assert.equal(r.file.changed, false);
    assert.equal(r.file.backup, undefined);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  it('an install from another path replaces the old entries', () => {
    const other = path.join(tempDir('other-cli-'), 'cli.js');
    fs.copyFileSync(CLI_JS, other);
    installVscodeAgent({ ...base(), cliPath: other });
    const j = read(vscodeHookFile({ scope: 'user', homeDir: home }));
    assert.equal(j.hooks.Stop.length, 1);
    assert.ok(String(j.hooks.Stop[0].command).includes(other));
    installVscodeAgent(base());
  });

  it('refuses a malformed file and writes nothing', () => {
    const ws = tempDir('ws-');
    const file = vscodeHookFile({ scope: 'workspace', projectDir: ws });
    assert.equal(file, path.join(ws, '.github', 'hooks', 'claude-mem.json'));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    for (const bad of ['{ not json', '{"hooks": []}', '{"hooks": {"Stop": {}}}']) {
      fs.writeFileSync(file, bad);
      assert.throws(() => installVscodeAgent({ ...base(), scope: 'workspace', projectDir: ws }), (e: Error) => e instanceof InstallError && e.message.includes(file));
      assert.equal(fs.readFileSync(file, 'utf8'), bad);
    }
    fs.rmSync(file);
    const r = installVscodeAgent({ ...base(), scope: 'workspace', projectDir: ws });
    assert.equal(r.file.file, file);
    const u = uninstallVscodeAgent({ ...base(), scope: 'workspace', projectDir: ws });
    assert.equal(u.file.removed, VSCODE_AGENT_HOOKS.length);
    assert.ok(!fs.existsSync(file), 'a file that held only ours is removed');
  });

  it('uninstall removes exactly ours', () => {
    const file = vscodeHookFile({ scope: 'user', homeDir: home });
    const u = uninstallVscodeAgent(base());
    assert.equal(u.file.removed, VSCODE_AGENT_HOOKS.length);
    const j = read(file);
    assert.deepEqual(j, { hooks: { PostToolUse: [{ type: 'command', command: './scripts/format.sh', timeout: 30 }] }, note: 'keep me' });
  });

  it('status tells when both Claude Code\'s settings and a VS Code hook file carry our hooks', () => {
    const opts = { cwd: tempDir('cwd-'), homeDir: home, env: { CLAUDE_MEM_DATA_DIR: data } };
    assert.equal(bothInstalled(hookInstallPlaces(opts)), false);
    installClaudeCode({ ...base(), scope: 'user', mcp: false });
    installVscodeAgent(base());
    const places = hookInstallPlaces(opts);
    assert.equal(bothInstalled(places), true);
    const text = hooksStatusText(places);
    assert.match(text, /Claude Code \(user\): \d+ hook\(s\) in .*\n\s+run by: Claude Code; VS Code agent sessions too when chat\.useClaudeHooks is on/);
    assert.match(text, /VS Code agent hooks \(user\): \d+ hook\(s\) in .*\n\s+run by: VS Code agent sessions \(Local harness\), Copilot on the VS Code Agent Host, Copilot CLI/);
    assert.match(text, /injected once per conversation/);
    uninstallClaudeCode({ ...base(), scope: 'user' });
    assert.equal(bothInstalled(hookInstallPlaces(opts)), false);
    assert.doesNotMatch(hooksStatusText(hookInstallPlaces(opts)), /once per conversation/);
  });

  it('the CLI: install, status, uninstall', () => {
    const env = { ...process.env, HOME: home, CLAUDE_MEM_DATA_DIR: data, CLAUDE_MEM_WORKER_PORT: '1' };
    const ws = tempDir('ws-cli-');
    const i = spawnSync(process.execPath, [CLI_JS, 'install', 'vscode-agent', '--workspace', ws], { env, encoding: 'utf8' });
    assert.equal(i.status, 0, i.stderr);
    assert.match(i.stdout, /\.github\/hooks\/claude-mem\.json/);
    const bad = spawnSync(process.execPath, [CLI_JS, 'install', 'vscode-agent', '--project'], { env, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /unknown option "--project"/);
    const u = spawnSync(process.execPath, [CLI_JS, 'uninstall', 'vscode-agent', '--workspace', ws], { env, encoding: 'utf8' });
    assert.equal(u.status, 0, u.stderr);
    assert.match(u.stdout, /7 hook command/);
  });
});

describe('hooks survive an extension update (stable launcher in the data dir)', () => {
  let w: RunningWorker;
  let project: string;

  before(async () => {
    w = await startWorker();
    project = fs.realpathSync(tempDir('launcher-proj-'));
  });
  after(async () => {
    await w?.stop();
  });

  /** A copy of the built extension's dist/, as an installed version folder holds it. */
  function installFolder(name: string): string {
    const dir = path.join(tempDir('ext-'), name, 'dist');
    fs.mkdirSync(dir, { recursive: true });
    for (const f of fs.readdirSync(path.join(ROOT, 'dist'))) if (/^cli(-main|-tools)?\.js$|^worker\.js$/.test(f)) fs.copyFileSync(path.join(ROOT, 'dist', f), path.join(dir, f));
    return path.join(dir, 'cli.js');
  }

  function runInstalled(command: string, payload: unknown) {
    return spawnSync('/bin/sh', ['-c', command], {
      input: JSON.stringify(payload),
      encoding: 'utf8',
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' },
    });
  }

  const payload = (id: string) => ({ sessionId: 'launcher-session', hookEventName: 'PostToolUse', cwd: project, tool_name: 'run_in_terminal', tool_input: { command: `echo ${id}` }, tool_use_id: id, tool_response: id });

  it('a hook installed by build A keeps working after build B replaces it; fails soft while no build is there', async (t) => {
    if (process.platform === 'win32') return t.skip('sh launcher');
    const home = tempDir('launcher-home-');
    const cliA = installFolder('publisher.claude-mem-vscode-0.1.0');
    const launcher = writeLauncher({ dataDir: w.dataDir, node: process.execPath, cli: cliA, runAsNode: false });
    assert.equal(launcher.file, launcherPath(w.dataDir));
    const r = installVscodeAgent({ scope: 'user', homeDir: home, launcher: launcher.file, env: { CLAUDE_MEM_DATA_DIR: w.dataDir } });
    const command = r.commands.find((c) => c.endsWith('hook vscode-agent observation')) as string;
    assert.ok(command.startsWith(launcher.file), `the hook runs the launcher, not the install folder: ${command}`);
    assert.ok(!command.includes('0.1.0'));

    const a = runInstalled(command, payload('tool-a'));
    assert.equal(a.status, 0, a.stderr);
    assert.equal(a.stdout, '{}');

    // The update: build B is installed in a new folder, and build A's folder is deleted.
    const cliB = installFolder('publisher.claude-mem-vscode-0.2.0');
    fs.rmSync(path.dirname(path.dirname(cliA)), { recursive: true, force: true });
    // Before VS Code activates the new build, the launcher still names A: exit 0, `{}`, a log line.
    const gone = runInstalled(command, payload('tool-gone'));
    assert.equal(gone.status, 0);
    assert.equal(gone.stdout, '{}');
    assert.match(fs.readFileSync(path.join(w.dataDir, 'logs', 'hooks.log'), 'utf8'), /launcher: .*0\.1\.0.* is gone/);
    // Activation of B rewrites the launcher; the installed hook file is untouched and works.
    assert.equal(writeLauncher({ dataDir: w.dataDir, node: process.execPath, cli: cliB, runAsNode: false }).changed, true);
    assert.equal(writeLauncher({ dataDir: w.dataDir, node: process.execPath, cli: cliB, runAsNode: false }).changed, false, 'rewriting an unchanged launcher changes nothing');
    const b = runInstalled(command, payload('tool-b'));
    assert.equal(b.status, 0, b.stderr);
    assert.equal(b.stdout, '{}');

    const s = await until(async () => {
      const doc = (await w.req<ExportDocument>('GET', `/api/export?project=${encodeURIComponent(path.basename(project))}`)).body;
      const x = doc.sessions.find((y) => y.contentSessionId === 'launcher-session');
      return x && x.observations.length >= 2 ? x : undefined;
    }, 20_000, 'observations from both builds');
    assert.deepEqual(s.observations.map((o) => o.title).sort(), ['Ran `echo tool-a`: tool-a', 'Ran `echo tool-b`: tool-b']);
    assert.equal(s.platform, 'vscode-agent');
  });

  it('the Claude Code installer points hooks and the MCP server at the launcher too', () => {
    const home = tempDir('launcher-cc-');
    const l = writeLauncher({ dataDir: w.dataDir, node: process.execPath, cli: CLI_JS, runAsNode: false });
    const r = installClaudeCode({ scope: 'user', homeDir: home, launcher: l.file, env: { CLAUDE_MEM_DATA_DIR: w.dataDir } });
    assert.ok(r.commands.every((c) => c.startsWith(l.file) && / hook claude-code /.test(c)));
    const mcp = JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
    assert.deepEqual({ command: mcp.mcpServers['claude-mem'].command, args: mcp.mcpServers['claude-mem'].args }, { command: l.file, args: ['mcp'] });
    const u = uninstallClaudeCode({ scope: 'user', homeDir: home, env: { CLAUDE_MEM_DATA_DIR: w.dataDir } });
    assert.equal(u.settings.removed, r.commands.length);
    assert.equal(u.mcp?.changed, true, 'our launcher-based MCP entry is recognised and removed');
  });
});
