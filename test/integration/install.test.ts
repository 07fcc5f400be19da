// `claude-mem install|uninstall claude-code` on real files in temp dirs: merge with what is there,
// idempotence, backups, exact removal, refusal of malformed files, and that the commands it writes
// actually run. Runs the built CLI (npm run build) and calls the exported API directly.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CLAUDE_CODE_HOOKS, hookCommand, installClaudeCode, uninstallClaudeCode, InstallError } from '../../common/node/install';
import { CLI_JS, tempDir } from '../helpers/worker';

const CLI = fs.realpathSync(CLI_JS);

function cli(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
}

const readJson = (f: string): any => JSON.parse(fs.readFileSync(f, 'utf8'));
const backups = (dataDir: string): string[] => {
  const d = path.join(dataDir, 'backups', 'claude-code');
  return fs.existsSync(d) ? fs.readdirSync(d).sort() : [];
};

const USER_SETTINGS = {
  model: 'claude-sonnet-4-5',
  permissions: { allow: ['Bash(npm test)'], deny: [] },
  env: { FOO: 'bar' },
  hooks: {
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send claude' }] }],
    Stop: [{ hooks: [{ type: 'command', command: 'echo done', timeout: 5 }] }],
  },
};

function project(settings?: unknown, raw?: string) {
  const dir = fs.realpathSync(tempDir('install-'));
  const dataDir = path.join(dir, 'data');
  const file = path.join(dir, '.claude', 'settings.json');
  if (settings !== undefined || raw !== undefined) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, raw ?? JSON.stringify(settings, null, 4));
  }
  return { dir, dataDir, file, mcp: path.join(dir, '.mcp.json'), env: { CLAUDE_MEM_DATA_DIR: dataDir } };
}

/** Our hook entries per event in a settings object. */
function ours(settings: any): Record<string, any[]> {
  const out: Record<string, any[]> = {};
  for (const [event, groups] of Object.entries<any[]>(settings.hooks ?? {})) {
    for (const g of groups) for (const h of g.hooks) if (/ hook claude-code /.test(h.command)) (out[event] ??= []).push({ matcher: g.matcher, ...h });
  }
  return out;
}

describe('install claude-code --project', () => {
  it('merges into existing settings: keeps every other key and hook, adds ours synchronously with absolute paths', () => {
    const p = project(USER_SETTINGS);
    const before = fs.readFileSync(p.file, 'utf8');
    const r = cli(['install', 'claude-code', '--project', p.dir], p.env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /installed/);
    const s = readJson(p.file);
    for (const k of ['model', 'permissions', 'env'] as const) assert.deepEqual(s[k], USER_SETTINGS[k]);
    // The user's hooks are still first in their events, untouched.
    assert.deepEqual(s.hooks.PostToolUse[0], USER_SETTINGS.hooks.PostToolUse[0]);
    assert.deepEqual(s.hooks.Notification, USER_SETTINGS.hooks.Notification);
    assert.deepEqual(s.hooks.Stop[0], USER_SETTINGS.hooks.Stop[0]);
    const o = ours(s);
    assert.deepEqual(Object.keys(o).sort(), [...new Set(CLAUDE_CODE_HOOKS.map((h) => h.event))].sort());
    for (const spec of CLAUDE_CODE_HOOKS) {
      const [h] = o[spec.event].filter((x) => x.command.endsWith(` ${spec.hook}`));
      assert.ok(h, `${spec.event} -> ${spec.hook}`);
      assert.equal(h.type, 'command');
      assert.equal(h.async, undefined, 'hooks run synchronously');
      assert.equal(h.matcher, spec.matcher);
      assert.ok(h.timeout > 0);
      assert.ok(h.command.startsWith(process.execPath), `absolute node path: ${h.command}`);
      assert.ok(h.command.includes(CLI), `absolute cli path: ${h.command}`);
    }
    assert.equal(o.PreToolUse[0].matcher, 'Read');
    // MCP server registered for the project, and approved in the project settings.
    const mcp = readJson(p.mcp);
    assert.deepEqual(mcp.mcpServers['claude-mem'], { type: 'stdio', command: process.execPath, args: [CLI, 'mcp'] });
    assert.deepEqual(s.enabledMcpjsonServers, ['claude-mem']);
    // The original text is backed up.
    const b = backups(p.dataDir);
    assert.equal(b.length, 1);
    assert.equal(fs.readFileSync(path.join(p.dataDir, 'backups', 'claude-code', b[0]), 'utf8'), before);
  });

  it('is idempotent: a second install changes no byte and writes no backup', () => {
    const p = project(USER_SETTINGS);
    assert.equal(cli(['install', 'claude-code', '--project', p.dir], p.env).status, 0);
    const settings = fs.readFileSync(p.file, 'utf8');
    const mcp = fs.readFileSync(p.mcp, 'utf8');
    const nBackups = backups(p.dataDir).length;
    const again = cli(['install', 'claude-code', '--project', p.dir], p.env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /already up to date/);
    assert.equal(fs.readFileSync(p.file, 'utf8'), settings);
    assert.equal(fs.readFileSync(p.mcp, 'utf8'), mcp);
    assert.equal(backups(p.dataDir).length, nBackups);
    const n = Object.values(ours(readJson(p.file))).flat().length;
    assert.equal(n, CLAUDE_CODE_HOOKS.length, 'no duplicates');
  });

  it('replaces an older install (another path) instead of adding a second copy', () => {
    const old = structuredClone(USER_SETTINGS) as any;
    old.hooks.PostToolUse.push({ matcher: '*', hooks: [{ type: 'command', command: "'/old/node' '/old/ext/dist/cli.js' hook claude-code observation", timeout: 10 }] });
    const p = project(old);
    assert.equal(cli(['install', 'claude-code', '--project', p.dir], p.env).status, 0);
    const post = ours(readJson(p.file)).PostToolUse;
    assert.equal(post.length, 1);
    assert.ok(!post[0].command.includes('/old/'));
  });

  it('uninstall removes exactly what install added', () => {
    const p = project(USER_SETTINGS);
    const original = readJson(p.file);
    assert.equal(cli(['install', 'claude-code', '--project', p.dir], p.env).status, 0);
    const r = cli(['uninstall', 'claude-code', '--project', p.dir], p.env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /7 hook command/);
    assert.deepEqual(readJson(p.file), original);
    assert.equal(fs.existsSync(p.mcp), false, '.mcp.json that held only our server is gone');
    const again = cli(['uninstall', 'claude-code', '--project', p.dir], p.env);
    assert.equal(again.status, 0);
    assert.match(again.stdout, /0 hook command/);
    assert.deepEqual(readJson(p.file), original);
  });

  it('uninstall leaves other MCP servers and removes a settings file it created', () => {
    const p = project();
    fs.writeFileSync(p.mcp, JSON.stringify({ mcpServers: { other: { command: 'other-server' } } }));
    assert.equal(cli(['install', 'claude-code', '--project', p.dir], p.env).status, 0);
    assert.deepEqual(Object.keys(readJson(p.mcp).mcpServers).sort(), ['claude-mem', 'other']);
    assert.equal(cli(['uninstall', 'claude-code', '--project', p.dir], p.env).status, 0);
    assert.deepEqual(readJson(p.mcp), { mcpServers: { other: { command: 'other-server' } } });
    assert.equal(fs.existsSync(p.file), false);
  });

  for (const [name, raw] of [
    ['not JSON', '{ "hooks": { "Stop": [ '],
    ['JSON with comments', '{\n  // my hooks\n  "model": "x"\n}'],
    ['a JSON array', '[1, 2]'],
    ['hooks that are not an object', '{"hooks": []}'],
    ['an event that is not an array', '{"hooks": {"Stop": {"command": "x"}}}'],
  ] as const) {
    it(`refuses a settings file with ${name}, touching nothing`, () => {
      const p = project(undefined, raw);
      for (const cmd of ['install', 'uninstall']) {
        const r = cli([cmd, 'claude-code', '--project', p.dir], p.env);
        assert.equal(r.status, 1, `${cmd}: ${r.stdout}`);
        assert.match(r.stderr, /settings\.json/);
        assert.match(r.stderr, /Nothing was changed/);
        assert.equal(fs.readFileSync(p.file, 'utf8'), raw);
        assert.equal(fs.existsSync(p.mcp), false);
        assert.deepEqual(backups(p.dataDir), []);
      }
    });
  }

  it('refuses a malformed .mcp.json before writing the settings', () => {
    const p = project(USER_SETTINGS);
    const before = fs.readFileSync(p.file, 'utf8');
    fs.writeFileSync(p.mcp, '{"mcpServers": ');
    const r = cli(['install', 'claude-code', '--project', p.dir], p.env);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\.mcp\.json is not valid JSON/);
    assert.equal(fs.readFileSync(p.file, 'utf8'), before);
  });

  it('the hook commands it writes run through a shell, even with spaces and quotes in the paths', () => {
    const p = project();
    const odd = path.join(p.dir, "it's a dir");
    fs.mkdirSync(odd);
    const cliCopy = path.join(odd, 'cli.js');
    // dist/cli.js loads its neighbours (cli-main.js, cli-tools.js): copy every bundle it may need.
    for (const f of fs.readdirSync(path.dirname(CLI))) if (/^cli.*\.js$/.test(f)) fs.copyFileSync(path.join(path.dirname(CLI), f), path.join(odd, f));
    const r = cli(['install', 'claude-code', '--project', p.dir, '--cli', cliCopy, '--no-mcp'], p.env);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(fs.existsSync(p.mcp), false, '--no-mcp');
    const s = readJson(p.file);
    const start = s.hooks.SessionStart[0].hooks[0].command as string;
    const out = execFileSync('bash', ['-c', start], {
      input: JSON.stringify({ session_id: 's', cwd: p.dir, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { ...process.env, ...p.env, CLAUDE_MEM_WORKER_PORT: '1', CLAUDE_MEM_NO_AUTOSTART: '1' },
      encoding: 'utf8',
    });
    assert.deepEqual(JSON.parse(out), { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '' } });
  });
});

describe('install claude-code --user', () => {
  it('writes ~/.claude/settings.json and registers the MCP server in ~/.claude.json, keeping the rest', () => {
    const home = fs.realpathSync(tempDir('home-'));
    const env = { HOME: home, CLAUDE_MEM_DATA_DIR: path.join(home, 'data'), CLAUDE_CONFIG_DIR: '' };
    const globalCfg = { numStartups: 7, projects: { '/x': { allowedTools: [] } }, mcpServers: { other: { type: 'stdio', command: 'x' } } };
    fs.writeFileSync(path.join(home, '.claude.json'), JSON.stringify(globalCfg));
    const r = cli(['install', 'claude-code', '--user'], env);
    assert.equal(r.status, 0, r.stderr);
    const s = readJson(path.join(home, '.claude', 'settings.json'));
    assert.equal(Object.values(ours(s)).flat().length, CLAUDE_CODE_HOOKS.length);
    assert.equal(s.enabledMcpjsonServers, undefined, 'user servers need no approval');
    const g = readJson(path.join(home, '.claude.json'));
    assert.equal(g.numStartups, 7);
    assert.deepEqual(g.projects, globalCfg.projects);
    assert.deepEqual(g.mcpServers.other, globalCfg.mcpServers.other);
    assert.deepEqual(g.mcpServers['claude-mem'].args, [CLI, 'mcp']);
    const u = cli(['uninstall', 'claude-code', '--user'], env);
    assert.equal(u.status, 0, u.stderr);
    assert.deepEqual(readJson(path.join(home, '.claude.json')), globalCfg);
    assert.equal(fs.existsSync(path.join(home, '.claude', 'settings.json')), false);
  });

  it('honours CLAUDE_CONFIG_DIR as Claude Code does', () => {
    const home = fs.realpathSync(tempDir('home-'));
    const cfg = path.join(home, 'cfg');
    const r = cli(['install', 'claude-code'], { HOME: home, CLAUDE_CONFIG_DIR: cfg, CLAUDE_MEM_DATA_DIR: path.join(home, 'data') });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(fs.existsSync(path.join(cfg, 'settings.json')));
    assert.ok(fs.existsSync(path.join(cfg, '.claude.json')));
    assert.equal(fs.existsSync(path.join(home, '.claude')), false);
  });
});

describe('install API (what the VS Code command calls)', () => {
  it('under Electron, runs the binary as Node', () => {
    const dir = fs.realpathSync(tempDir('api-'));
    const r = installClaudeCode({ scope: 'project', projectDir: dir, nodePath: process.execPath, cliPath: CLI, runAsNode: true, backupDir: path.join(dir, 'b') });
    assert.equal(r.settings.changed, true);
    assert.ok(r.commands.every((c) => c.startsWith('ELECTRON_RUN_AS_NODE=1 ')));
    assert.deepEqual(readJson(path.join(dir, '.mcp.json')).mcpServers['claude-mem'].env, { ELECTRON_RUN_AS_NODE: '1' });
    const u = uninstallClaudeCode({ scope: 'project', projectDir: dir, backupDir: path.join(dir, 'b') });
    assert.equal(u.settings.removed, CLAUDE_CODE_HOOKS.length);
  });

  it('refuses a Node or CLI path that does not exist', () => {
    const dir = tempDir('api-');
    assert.throws(() => installClaudeCode({ scope: 'project', projectDir: dir, nodePath: '/no/such/node', cliPath: CLI }), InstallError);
    assert.throws(() => installClaudeCode({ scope: 'project', projectDir: dir, cliPath: 'relative/cli.js' }), InstallError);
    assert.equal(fs.existsSync(path.join(dir, '.claude')), false);
  });

  it('quotes paths for the shell', () => {
    assert.equal(hookCommand({ node: '/usr/bin/node', cli: '/a b/cli.js', runAsNode: false }, 'context'), "/usr/bin/node '/a b/cli.js' hook claude-code context");
    assert.equal(hookCommand({ node: "/it's/node", cli: '/x/cli.js', runAsNode: false }, 'summarize'), "'/it'\\''s/node' /x/cli.js hook claude-code summarize");
  });
});
