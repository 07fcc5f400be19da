// The test-tool installers as a fresh machine runs them: inside `npm test`, whose npm exports its
// own npm_config_* (a user agent naming Node 20) that code-server's postinstall read and refused.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const root = path.resolve(__dirname, '..', '..');
const outerNpm = {
  npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
  npm_config_node_gyp: '/usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js',
  npm_package_name: 'claude-mem-vscode',
  npm_lifecycle_event: 'test',
  npm_command: 'run-script',
  npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
  INIT_CWD: root,
};

describe('test-tool installers', () => {
  it('run nested commands without the outer npm variables', () => {
    const r = spawnSync('bash', ['-c', '. scripts/lib/isolated-npm.sh && isolated_env KEPT=1 env'], {
      cwd: root,
      env: { ...process.env, ...outerNpm },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    const names = r.stdout.split('\n').map((l) => l.split('=')[0]);
    for (const name of Object.keys(outerNpm)) assert.ok(!names.includes(name), `${name} reached the nested command`);
    assert.ok(names.includes('KEPT') && names.includes('PATH'));
  });

  it('call npm only through isolated_env', () => {
    for (const file of ['scripts/code-server/install.sh', 'scripts/install-claude-code.sh']) {
      const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
      const bare = lines.filter((l) => /\bnpm (install|view|ci)\b/.test(l) && !/^\s*(#|log )/.test(l) && !/isolated_env|^\s+npm_config_nodedir=/.test(l));
      // A continued line (`isolated_env PATH=... \` then `npm install`) is fine: check its head.
      for (const l of bare) {
        const i = lines.indexOf(l);
        assert.match(lines.slice(Math.max(0, i - 2), i).join('\n'), /isolated_env/, `${file}: bare npm call: ${l.trim()}`);
      }
    }
  });

  it('test-setup names the step that failed, in one line', () => {
    const shim = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-npm-shim-'));
    fs.writeFileSync(path.join(shim, 'npm'), '#!/bin/sh\necho "npm error registry unreachable" >&2\nexit 1\n', { mode: 0o755 });
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-e2e-cache-'));
    try {
      const r = spawnSync('bash', ['scripts/test-setup.sh'], {
        cwd: root,
        env: { ...process.env, PATH: `${shim}:${process.env.PATH}`, CLAUDE_MEM_E2E_CACHE: cache },
        encoding: 'utf8',
      });
      assert.equal(r.status, 1);
      assert.match(r.stdout, /test-setup: code-server: .*usually 2-4 minutes/);
      const failed = r.stderr.split('\n').filter((l) => l.startsWith('test-setup: FAILED'));
      assert.equal(failed.length, 1, r.stderr);
      assert.match(failed[0], /at step 'code-server'/);
    } finally {
      fs.rmSync(shim, { recursive: true, force: true });
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
