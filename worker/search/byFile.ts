// The history of one file: observations that read or modified it, newest first. Stored paths are
// usually relative to the project (src/a.ts) while callers may pass an absolute path, so a stored
// path matches when it equals the given one or either ends with "/" + the other. The full-text
// index narrows the candidates (rows holding the file name's tokens as a phrase) before the
// exact comparison in JS. A memory whose citation followed the file from an older path (a rename)
// is part of its history too.
import * as path from 'node:path';
import { BadRequest, type FileHistoryItem, type FileHistoryResponse } from '../../common/contract';
import type { Store } from '../store/store';
import { indexTokens } from './ftsQuery';
import { hydrate, parseList, toTimelineItem } from './records';

function normalizePath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/\/+$/, '').replace(/^\.\//, '');
}

function pathMatches(stored: string, wanted: string): boolean {
  const s = normalizePath(stored);
  if (s === '' || s === wanted) return s !== '';
  return wanted.endsWith('/' + s) || s.endsWith('/' + wanted);
}

export function fileHistory(store: Store, rawPath: string | undefined, opts: { project?: string; limit: number; offset: number }): FileHistoryResponse {
  const wanted = normalizePath(rawPath ?? '');
  if (wanted === '') throw new BadRequest(`query 'path' is required`);
  if (wanted.length > 4096 || /[\u0000-\u001f]/.test(wanted)) throw new BadRequest(`query 'path' must be a path of at most 4096 characters`);
  const base = path.posix.basename(wanted);
  // As the index holds them: "Übersicht.md" is the tokens Übersicht and md (FTS4 folds only ASCII case).
  const tokens = indexTokens(base);
  // Candidates carry only what the match and the order need; the page shown is read in full after.
  const found: Array<{ id: number; epoch: number; action: 'modified' | 'read'; path: string }> = [];
  const need = opts.offset + opts.limit + 1;
  if (tokens.length > 0) {
    // Any column: this stock FTS4 build has no column filter on phrases. A superset; the exact check follows.
    const expr = `"${tokens.join(' ')}"`;
    const where = [`observations_fts MATCH ?`, ...(opts.project !== undefined ? ['c.project = ?'] : [])];
    // Newest first by rowid, in pages, until enough exact matches are found.
    let before = Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = store.all<{ id: number; epoch: number; filesRead: string; filesModified: string }>(
        `SELECT c.id AS id, c.created_at AS epoch, c.files_read AS filesRead, c.files_modified AS filesModified
         FROM observations_fts CROSS JOIN observations c ON c.id = observations_fts.docid
         WHERE ${where.join(' AND ')} AND observations_fts.docid < ? ORDER BY observations_fts.docid DESC LIMIT 500`,
        [expr, ...(opts.project !== undefined ? [opts.project] : []), before],
      );
      for (const r of rows) {
        const modified = parseList(r.filesModified).find((f) => pathMatches(f, wanted));
        const read = modified ?? parseList(r.filesRead).find((f) => pathMatches(f, wanted));
        if (read !== undefined) found.push({ id: r.id, epoch: r.epoch, action: modified !== undefined ? 'modified' : 'read', path: read });
      }
      if (rows.length < 500 || found.length >= need) break;
      before = rows[rows.length - 1].id;
    }
  }
  // Memories whose citation followed a rename to this file (docs/freshness.md): their file lists
  // still name the old path.
  if (opts.project !== undefined) {
    const have = new Set(found.map((f) => f.id));
    const moved = store.all<{ id: number; epoch: number; path: string; movedFrom: string; filesModified: string }>(
      `SELECT c.observation_id AS id, o.created_at AS epoch, c.path AS path, c.moved_from AS movedFrom, o.files_modified AS filesModified
         FROM citations c JOIN observations o ON o.id = c.observation_id WHERE c.project = ? AND c.moved_from IS NOT NULL`,
      [opts.project],
    );
    for (const r of moved) {
      if (have.has(r.id) || !pathMatches(r.path, wanted)) continue;
      have.add(r.id);
      const modified = parseList(r.filesModified).some((f) => pathMatches(r.movedFrom, normalizePath(f)) || pathMatches(f, r.movedFrom));
      found.push({ id: r.id, epoch: r.epoch, action: modified ? 'modified' : 'read', path: r.path });
    }
  }
  found.sort((a, b) => b.epoch - a.epoch || b.id - a.id);
  const page = found.slice(opts.offset, opts.offset + opts.limit);
  const records = hydrate(store, 'observation', page.map((f) => f.id));
  const items: FileHistoryItem[] = [];
  for (const f of page) {
    const r = records.get(f.id);
    if (r) items.push({ ...toTimelineItem(r), action: f.action, path: f.path });
  }
  return {
    path: rawPath ?? '',
    project: opts.project ?? null,
    items,
    limit: opts.limit,
    offset: opts.offset,
    hasMore: found.length > opts.offset + opts.limit,
  };
}
