// The data dir belongs to its user: a data dir, db/, spool/ or logs/ owned by another uid or
// writable by group/others makes the worker refuse to start, saying what is wrong and what to run.
// Run as root (as here), the foreign owner is `nobody` (chown); as another user, a root-owned folder.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { startWorker, tempDir, WORKER_JS } from '../helpers/worker';

const NOBODY = 65534;
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function runWorker(dataDir: string) {
  return spawnSync(process.execPath, [WORKER_JS], {
    env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', ANTHROPIC_API_KEY: '', CLAUDE_MEM_IDLE_SHUTDOWN_MS: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

/** A folder some other uid owns, with mode 0755 (so only its mode-independent owner is wrong). */
function foreignDir(): { dir: string; uid: number } {
  if (isRoot) {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    fs.chownSync(dir, NOBODY, NOBODY);
    return { dir, uid: NOBODY };
  }
  return { dir: '/', uid: 0 };
}

function refused(r: ReturnType<typeof runWorker>, dir: string, what: RegExp): void {
  assert.equal(r.status, 1, `expected a refusal, got ${r.status}:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, /refuses to start: the data dir must belong to you alone/);
  assert.ok(r.stderr.includes(dir), `the message names ${dir}:\n${r.stderr}`);
  assert.match(r.stderr, what);
  assert.doesNotMatch(r.stdout, /listening on/);
}

describe('a data dir only its owner controls', () => {
  it('a data dir owned by another uid is refused, and nothing is written into it', () => {
    const { dir, uid } = foreignDir();
    const before = fs.readdirSync(dir).sort();
    const r = runWorker(dir);
    refused(r, dir, new RegExp(`belongs to uid ${uid}, not to you.*CLAUDE_MEM_DATA_DIR`));
    assert.deepEqual(fs.readdirSync(dir).sort(), before, 'no token, lock or folder was created in it');
  });

  for (const sub of ['db', 'spool', 'logs']) {
    it(`a ${sub}/ owned by another uid is refused`, () => {
      const dataDir = tempDir();
      const { dir: foreign, uid } = foreignDir();
      if (isRoot) fs.renameSync(foreign, path.join(dataDir, sub));
      else fs.symlinkSync(foreign, path.join(dataDir, sub)); // our link to a folder root owns
      const r = runWorker(dataDir);
      refused(r, path.join(dataDir, sub), new RegExp(`belongs to uid ${uid}`));
      assert.ok(!fs.existsSync(path.join(dataDir, 'worker.pid')), 'no lock taken');
    });
  }

  for (const [sub, mode, who] of [
    ['db', 0o777, /writable by its group and other users \(mode 0777\).*chmod 700/],
    ['logs', 0o777, /writable by its group and other users \(mode 0777\)/],
    ['spool', 0o770, /writable by its group \(mode 0770\)/],
    ['.', 0o703, /writable by other users \(mode 0703\)/],
  ] as const) {
    it(`a ${sub === '.' ? 'data dir' : `${sub}/`} with mode ${mode.toString(8)} is refused and left as it is`, () => {
      const dataDir = tempDir();
      const dir = sub === '.' ? dataDir : path.join(dataDir, sub);
      fs.mkdirSync(dir, { recursive: true });
      fs.chmodSync(dir, mode);
      const r = runWorker(dataDir);
      refused(r, sub === '.' ? dataDir : dir, who);
      assert.equal(fs.statSync(dir).mode & 0o777, mode, 'the worker does not chmod a folder others could write');
    });
  }

  it('a data dir that is a symlink owned by another uid is refused', { skip: !isRoot && 'needs root to chown a link' }, () => {
    const real = tempDir();
    const link = path.join(tempDir(), 'data');
    fs.symlinkSync(real, link);
    fs.lchownSync(link, NOBODY, NOBODY);
    const r = runWorker(link);
    refused(r, link, /symbolic link owned by uid 65534/);
  });

  it('folders of ours that others may only read are tightened to 0700, and the worker starts', async () => {
    const dataDir = tempDir();
    fs.chmodSync(dataDir, 0o755);
    for (const sub of ['db', 'logs']) fs.mkdirSync(path.join(dataDir, sub), { mode: 0o755 });
    fs.chmodSync(path.join(dataDir, 'db'), 0o755);
    const w = await startWorker({ dataDir });
    try {
      assert.equal((await w.req('GET', '/api/stats')).status, 200);
    } finally {
      await w.stop();
    }
    for (const d of [dataDir, path.join(dataDir, 'db'), path.join(dataDir, 'logs'), path.join(dataDir, 'spool')]) {
      assert.equal(fs.statSync(d).mode & 0o777, 0o700, d);
    }
  });

  it('a data dir reached through our own symlink is accepted', async () => {
    const real = tempDir();
    const link = path.join(tempDir(), 'data');
    fs.symlinkSync(real, link);
    const w = await startWorker({ dataDir: link });
    try {
      assert.equal((await w.req('GET', '/api/stats')).status, 200);
      assert.ok(fs.existsSync(path.join(real, 'auth.token')));
    } finally {
      await w.stop();
    }
  });
});
