// The contract declares every route: each `app.get/post/delete(...)` the worker registers has its
// reply in common/contract's RouteReplies (ROUTE_KEYS), and nothing is declared that no route serves.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ROUTE_KEYS } from '../../common/contract';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

/** "METHOD /path" of every route registered on a hono app in the worker's sources. */
function servedRoutes(): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of sources(path.join(ROOT, 'worker'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bapp\.(get|post|put|patch|delete)\(\s*(['"`])([^'"`]+)\2/g)) {
      out.set(`${m[1].toUpperCase()} ${m[3]}`, path.relative(ROOT, file));
    }
  }
  return out;
}

describe('contract: every route is declared', () => {
  it('finds the routes (the scan works)', () => {
    const served = servedRoutes();
    assert.ok(served.has('GET /api/health') && served.has('POST /api/sessions/observations') && served.size > 40, `found ${served.size}`);
  });

  it('each served route has its reply in RouteReplies', () => {
    const declared = new Set<string>(ROUTE_KEYS);
    const missing = [...servedRoutes()].filter(([k]) => !declared.has(k)).map(([k, f]) => `${k} (${f})`);
    assert.deepEqual(missing, [], 'declare these routes in common/contract/routes.ts (RouteReplies and ROUTE_KEYS)');
  });

  it('declares no route the worker does not serve', () => {
    const served = servedRoutes();
    assert.deepEqual(ROUTE_KEYS.filter((k) => !served.has(k)), []);
  });
});
