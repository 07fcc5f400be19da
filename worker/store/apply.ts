// Executes one journaled transaction against a database, reusing prepared statements.
import type { Database, Statement as SqlStatement } from 'sql.js';
import type { Param, Statement } from './records';

export class StatementCache {
  private readonly map = new Map<string, SqlStatement>();
  /** Column names per prepared statement: sql.js's getAsObject asks SQLite for them on every row. */
  private readonly names = new Map<SqlStatement, string[]>();
  constructor(private readonly db: Database) {}

  /** Every row the statement returns, as objects (Store.all, and the keyword warm-up process's reader). */
  rows<T>(sql: string, params: Param[]): T[] {
    const st = this.get(sql);
    const rows: T[] = [];
    try {
      st.bind(params as never);
      while (st.step()) rows.push(this.row<T>(st));
    } finally {
      st.reset();
    }
    return rows;
  }

  /** The first row the statement returns (Store.get). */
  first<T>(sql: string, params: Param[]): T | undefined {
    const st = this.get(sql);
    try {
      st.bind(params as never);
      return st.step() ? this.row<T>(st) : undefined;
    } finally {
      st.reset();
    }
  }

  /** The current row as an object, like getAsObject but without re-reading the column names. */
  row<T>(st: SqlStatement): T {
    const values = st.get();
    let names = this.names.get(st);
    // A statement re-prepared by SQLite after a schema change may have other columns.
    if (!names || names.length !== values.length) {
      names = st.getColumnNames();
      this.names.set(st, names);
    }
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = values[i];
    return row as T;
  }

  get(sql: string): SqlStatement {
    let st = this.map.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.map.set(sql, st);
    }
    return st;
  }

  /** sql.js frees every statement on export(); forget them so they are prepared again. */
  forget(): void {
    this.map.clear();
    this.names.clear();
  }

  clear(): void {
    for (const st of this.map.values()) {
      try {
        st.free();
      } catch {
        /* already freed */
      }
    }
    this.map.clear();
    this.names.clear();
  }
}

export function runStatement(cache: StatementCache, sql: string, params: Param[]): void {
  const st = cache.get(sql);
  try {
    st.bind(params as never);
    while (st.step()) {
      /* writes return no rows; drain anyway */
    }
  } finally {
    st.reset();
  }
}

/** Runs fn between BEGIN and COMMIT (ROLLBACK if it throws), with the three statements prepared once. */
export function inTransaction<T>(cache: StatementCache, fn: () => T): T {
  runStatement(cache, 'BEGIN', []);
  try {
    const result = fn();
    runStatement(cache, 'COMMIT', []);
    return result;
  } catch (e) {
    runStatement(cache, 'ROLLBACK', []);
    throw e;
  }
}

export function applyTx(cache: StatementCache, stmts: Statement[]): void {
  inTransaction(cache, () => {
    for (const [sql, params] of stmts) runStatement(cache, sql, params);
  });
}
