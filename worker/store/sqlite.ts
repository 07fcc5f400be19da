// Loads stock sql.js (WASM) once per thread. The .wasm file sits beside the bundle in dist/,
// or in node_modules when running from source.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

function wasmPath(): string {
  const beside = path.join(__dirname, 'sql-wasm.wasm');
  if (fs.existsSync(beside)) return beside;
  return createRequire(__filename).resolve('sql.js/dist/sql-wasm.wasm');
}

export function loadSqlJs(): Promise<SqlJsStatic> {
  if (!loading) {
    const file = wasmPath();
    loading = initSqlJs({ locateFile: () => file });
  }
  return loading;
}
