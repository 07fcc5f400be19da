// What the full-text index reads of a record. FTS4's porter tokenizer takes every non-ASCII
// character as part of a word, so in "the cache—which we added", "the “retry” logic" and "the
// user’s token" the words cache, retry and user were not in the index at all: the tokens were
// "cache—which", "“retry”" and "user’s". Since schema 9 each full-text table reads its content
// table through a view that turns these characters into spaces (the stored text is unchanged), and
// the query parser and the snippets cut words at them too (search/ftsQuery.ts).
//
// Frozen: schema 9's views hold this list. Changing it needs a migration that rebuilds the views
// and the indexes, or queries and the index would cut words differently.

/** Dashes, quotes, apostrophes, ellipsis, bullets, arrows, the multiplication sign and the odd spaces. */
export const FTS_SEPARATORS = [
  '\u00a0', '\u00ab', '\u00b7', '\u00bb', '\u00d7',
  '\u2009', '\u200a', '\u200b', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015',
  '\u2018', '\u2019', '\u201a', '\u201b', '\u201c', '\u201d', '\u201e', '\u201f',
  '\u2022', '\u2026', '\u202f', '\u2039', '\u203a',
  '\u2190', '\u2191', '\u2192', '\u2193', '\u2194', '\u21d2', '\u21d4', '\u2212', '\u3000', '\ufeff',
] as const;

/** The full-text tables, their content tables and the columns they index. */
export const FTS_TABLES = [
  { fts: 'observations_fts', table: 'observations', trigger: 'observations', columns: ['title', 'subtitle', 'narrative', 'facts', 'concepts', 'files_read', 'files_modified'] },
  { fts: 'summaries_fts', table: 'session_summaries', trigger: 'summaries', columns: ['request', 'investigated', 'learned', 'completed', 'next_steps', 'notes'] },
  { fts: 'prompts_fts', table: 'user_prompts', trigger: 'prompts', columns: ['text'] },
] as const;

/**
 * SQL for a column with the separators as spaces. Plain SQL (no JavaScript function), so every
 * connection that writes, and FTS4 reading a row back to delete it, sees the same text. An
 * all-ASCII value (bytes = characters) skips the replace() chain: most rows, at no cost.
 */
export function ftsTextSql(column: string): string {
  const chain = FTS_SEPARATORS.reduce((e, c) => `replace(${e}, '${c}', ' ')`, column);
  return `CASE WHEN length(${column}) = length(CAST(${column} AS BLOB)) THEN ${column} ELSE ${chain} END`;
}

/** Each full-text table reading its content table through a view: the view, the table and its triggers (empty). */
export function ftsTablesSql(): string[] {
  return FTS_TABLES.flatMap((t) => ftsTableSql(t));
}

function ftsTableSql(t: (typeof FTS_TABLES)[number]): string[] {
  const view = `${t.fts}_text`;
  const cols = t.columns.join(', ');
  const out: string[] = [];
  // FTS4 reads an external content table by rowid: the view names the id so.
  out.push(`CREATE VIEW ${view} AS SELECT id AS rowid, ${t.columns.map((c) => `${ftsTextSql(c)} AS ${c}`).join(', ')} FROM ${t.table}`);
  out.push(`CREATE VIRTUAL TABLE ${t.fts} USING fts4(content="${view}", ${cols}, tokenize=porter)`);
  // Deleting an entry, FTS4 reads the row through the view (before the change), so it removes what it indexed.
  out.push(`CREATE TRIGGER ${t.trigger}_bu BEFORE UPDATE ON ${t.table} BEGIN DELETE FROM ${t.fts} WHERE docid = old.id; END`);
  out.push(`CREATE TRIGGER ${t.trigger}_bd BEFORE DELETE ON ${t.table} BEGIN DELETE FROM ${t.fts} WHERE docid = old.id; END`);
  for (const [suffix, when] of [['au', 'AFTER UPDATE'], ['ai', 'AFTER INSERT']]) {
    out.push(`CREATE TRIGGER ${t.trigger}_${suffix} ${when} ON ${t.table} BEGIN INSERT INTO ${t.fts}(docid, ${cols}) SELECT rowid, ${cols} FROM ${view} WHERE rowid = new.id; END`);
  }
  return out;
}

/** Statements of schema 9: each full-text table rebuilt to read its content table through a view. */
export function ftsThroughViewsSql(): string[] {
  const out: string[] = [];
  for (const t of FTS_TABLES) {
    for (const suffix of ['bu', 'bd', 'au', 'ai']) out.push(`DROP TRIGGER IF EXISTS ${t.trigger}_${suffix}`);
    out.push(`DROP TABLE IF EXISTS ${t.fts}`);
    out.push(...ftsTableSql(t));
    out.push(`INSERT INTO ${t.fts}(${t.fts}) VALUES ('rebuild')`);
  }
  return out;
}
