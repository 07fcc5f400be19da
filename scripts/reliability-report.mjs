// Turns the fault suite's results (test-artifacts/reliability/*.jsonl) into a report,
// test-artifacts/reliability.md (git-ignored); docs/reliability.md quotes a run of it by hand.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = path.join(root, 'test-artifacts', 'reliability');
if (!fs.existsSync(dir)) process.exit(0);
const rows = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl'))
  .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
if (rows.length === 0) process.exit(0);
const order = ['crashes', 'damaged files', 'concurrency', 'bad input', 'attacks'];
rows.sort((a, b) => order.indexOf(a.area) - order.indexOf(b.area) || a.at.localeCompare(b.at));
const esc = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const lines = [
  '# Reliability',
  '',
  'Made by the fault suite (`npm run test:faults`, also part of `npm test`) from its last run.',
  `Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} (figures are noisy on a shared machine).`,
  '',
  '| area | case | result | figure |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${esc(r.area)} | ${esc(r.name)} | ${r.result} | ${esc(r.figure)} |`),
  '',
];
const out = path.join(root, 'test-artifacts', 'reliability.md');
fs.writeFileSync(out, lines.join('\n'));
console.log(`${path.relative(root, out)}: ${rows.length} cases (${rows.filter((r) => r.result === 'pass').length} pass)`);
