// common/ is shared by every process, the webview included: its files import only each other
// (no Node builtin, no vscode, no package, no file of a process folder).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const COMMON = path.resolve(__dirname, '../../common');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []));
}

describe('common/ imports only common/', () => {
  it('every import of a common file resolves inside common/', () => {
    const bad: string[] = [];
    for (const f of files(COMMON)) {
      for (const m of fs.readFileSync(f, 'utf8').matchAll(/^\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        const spec = m[1];
        const inside = spec.startsWith('.') && path.resolve(path.dirname(f), spec).startsWith(COMMON + path.sep);
        if (!inside) bad.push(`${path.relative(COMMON, f)}: ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
