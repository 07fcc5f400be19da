// Loads stock sql.js (WASM) once per thread. The .wasm file sits beside the bundle in dist/,
// or in node_modules when running from source.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import type { Database, SqlJsStatic } from 'sql.js';

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

/**
 * Per-connection settings, applied on open and again after every export() (which reopens).
 * The database lives in Emscripten's in-memory FS and durability comes from our own journal,
 * so SQLite's rollback journal only needs to support ROLLBACK: keeping it in memory saves
 * creating, writing and deleting a MEMFS file on every transaction.
 */
export function tuneConnection(db: Database, pageCacheBytes?: number): void {
  // SQLite's own page cache (default 2 MB); its pages stay in sql.js's heap, which never shrinks.
  if (pageCacheBytes) db.run(`PRAGMA cache_size = -${Math.max(64, Math.floor(pageCacheBytes / 1024))}`);
  db.run('PRAGMA locking_mode=EXCLUSIVE'); // one connection: skip the hot-journal stat() before every transaction
  db.run('PRAGMA journal_mode=MEMORY');
  db.run('PRAGMA temp_store=MEMORY');
  // Deleted rows are overwritten with zeros, so a snapshot exported after a delete holds no trace of them.
  db.run('PRAGMA secure_delete=ON');
}
