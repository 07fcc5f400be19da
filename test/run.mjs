// Runs every test file under test/ (unit, integration, e2e) with node's built-in runner.
// TypeScript is loaded through tsx. Pass a substring to run only matching files.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.dirname(new URL(import.meta.url).pathname);
const filter = process.argv[2];
const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'fixtures' && e.name !== 'node_modules') walk(p);
    } else if (/\.test\.ts$/.test(e.name) && (!filter || p.includes(filter))) files.push(p);
  }
};
walk(root);
files.sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
// The fault suite appends its results here and docs/reliability.md is made from them: only a run
// that includes the whole fault suite rewrites it (a partial run would replace it with a part).
const faults = fs.readdirSync(path.join(root, 'faults')).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(root, 'faults', f));
const wholeFaultSuite = faults.every((f) => files.includes(f));
if (wholeFaultSuite) fs.rmSync(path.join(root, '..', 'test-artifacts', 'reliability'), { recursive: true, force: true });
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { stdio: 'inherit' });
if (wholeFaultSuite) spawnSync(process.execPath, [path.join(root, '..', 'scripts', 'reliability-report.mjs')], { stdio: 'inherit' });
process.exit(r.status ?? 1);
