// Executes one journaled transaction against a database, reusing prepared statements.
import type { Database, Statement as SqlStatement } from 'sql.js';
import type { Param, Statement } from './records';

export class StatementCache {
  private readonly map = new Map<string, SqlStatement>();
  constructor(private readonly db: Database) {}

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

export function applyTx(db: Database, cache: StatementCache, stmts: Statement[]): void {
  db.run('BEGIN');
  try {
    for (const [sql, params] of stmts) runStatement(cache, sql, params);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  }
}
