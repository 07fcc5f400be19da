// Hardening (the parts with no worker process): vector index files are 0600 in 0700 folders
// like the rest of the data dir, and the worker's log is rotated by size.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { createLogger, rotateIfLarge } from '../../common/node/log';

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [path.join(dir, e.name), ...walk(path.join(dir, e.name))] : [path.join(dir, e.name)]));
}

test('the log is rotated by size: the live file and one older file, each near the cap', () => {
  const dir = tmp('log-rotate-');
  const log = createLogger(dir, 'worker', false, 2000);
  for (let i = 0; i < 200; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
  const live = path.join(dir, 'logs', 'worker.log');
  const older = `${live}.1`;
  assert.ok(fs.existsSync(older), 'no rotated file');
  assert.ok(fs.statSync(live).size <= 2000, `worker.log is ${fs.statSync(live).size} bytes`);
  assert.ok(fs.statSync(older).size <= 2000, `worker.log.1 is ${fs.statSync(older).size} bytes`);
  assert.match(fs.readFileSync(live, 'utf8'), /line 199 /);
  assert.equal(fs.statSync(live).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'logs')).sort(), ['worker.log', 'worker.log.1']);
});

test('a forked worker\'s stdout file (worker.out) is rotated by size before it is opened', () => {
  const dir = tmp('out-rotate-');
  const out = path.join(dir, 'worker.out');
  fs.writeFileSync(out, 'x'.repeat(3000));
  rotateIfLarge(out, 5000);
  assert.ok(fs.existsSync(out) && !fs.existsSync(`${out}.1`), 'a small file stays');
  rotateIfLarge(out, 2000);
  assert.ok(!fs.existsSync(out) && fs.statSync(`${out}.1`).size === 3000, 'a large one moves aside');
  rotateIfLarge(path.join(dir, 'none.out'), 10);
});
