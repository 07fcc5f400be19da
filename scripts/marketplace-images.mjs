// Copies the Marketplace screenshots from the last e2e run (test-artifacts/e2e/<suite>/NN-<name>.png)
// to docs/marketplace/images/<file>, which docs/marketplace/README.md shows and scripts/package.mjs
// ships. Run the suites first:
//   CLAUDE_MEM_E2E_CACHE=/work/cache/e2e node test/run.mjs --tier e2e
//   node scripts/marketplace-images.mjs
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = path.join(root, 'test-artifacts', 'e2e');
const to = path.join(root, 'docs', 'marketplace', 'images');

/** suite, the step's screenshot name (without its NN- prefix), the image file. */
const SHOTS = [
  ['memory-ui', 'memory-panel-list', 'memory-panel.png'],
  ['memory-ui', 'chat-memory-answer', 'chat-memory.png'],
  ['memory-ui', 'search-memory-results', 'search-memory.png'],
  ['freshness-host', 'host-editing-the-cited-lines-marks-it-stale-in-the-editor-and-the-view', 'codelens-stale.png'],
];

fs.mkdirSync(to, { recursive: true });
const missing = [];
for (const [suite, name, file] of SHOTS) {
  const dir = path.join(from, suite);
  const shot = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.replace(/^\d+-/, '') === `${name}.png`) : undefined;
  if (!shot) {
    missing.push(`${suite}/NN-${name}.png`);
    continue;
  }
  fs.copyFileSync(path.join(dir, shot), path.join(to, file));
  console.log(`${path.relative(root, path.join(dir, shot))} -> ${path.relative(root, path.join(to, file))}`);
}
if (missing.length) {
  console.error(`not found (run the e2e suites first): ${missing.join(', ')}`);
  process.exit(1);
}
