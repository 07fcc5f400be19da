// Schema 9: the full-text tables read their records through views that cut words at dashes, curly
// quotes and arrows (worker/store/ftsText.ts). A schema 8 database is indexed again on upgrade, and
// a reopened store (the journal replayed) holds the same index.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { currentVersion, migrate, SCHEMA_VERSION } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { ftsTextSql } from '../../worker/store/ftsText';
import { tempDir } from '../helpers/worker';

const open = (dir: string) => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
const match = (s: Store, table: string, q: string) => s.all<{ docid: number }>(`SELECT docid FROM ${table} WHERE ${table} MATCH ? ORDER BY docid`, [q]).map((r) => r.docid);

it('schema 9 indexes again the words a schema 8 index glued to punctuation', async () => {
  const dir = tempDir('store-fts-text-');
  const s = await open(dir);
  assert.equal(await migrate(s, 8), 8);
  await s.write((tx) => {
    tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'p', 'c', 'proj', 'active', 1, 1)`);
    tx.run(`INSERT INTO observations (id, session_id, project, type, title, narrative, content_hash, created_at) VALUES (1, 1, 'proj', 'discovery', 'The cache—which we added—was stale', 'Plain words', 'h1', 1)`);
    tx.run(`INSERT INTO observations (id, session_id, project, type, title, narrative, content_hash, created_at) VALUES (2, 1, 'proj', 'discovery', 'A cache note', 'ASCII only', 'h2', 2)`);
    tx.run(`INSERT INTO session_summaries (id, session_id, project, request, completed, content_hash, created_at) VALUES (1, 1, 'proj', 'make the “retry” work', 'done', 's1', 3)`);
    tx.run(`INSERT INTO user_prompts (id, session_id, project, prompt_number, text, created_at) VALUES (1, 1, 'proj', 1, 'why does the user’s token expire→refresh', 4)`);
  });
  assert.deepEqual(match(s, 'observations_fts', 'cache'), [2], 'schema 8 missed "cache—which"');
  assert.equal(await migrate(s), SCHEMA_VERSION);
  const check = (st: Store) => {
    assert.deepEqual(match(st, 'observations_fts', 'cache'), [1, 2]);
    assert.deepEqual(match(st, 'observations_fts', '"which we added"'), [1]);
    assert.deepEqual(match(st, 'summaries_fts', 'retry'), [1]);
    assert.deepEqual(match(st, 'prompts_fts', 'user token refresh'), [1]);
  };
  check(s);
  // The stored text is what was written; only the index reads it cut.
  assert.equal(s.get<{ title: string }>('SELECT title FROM observations WHERE id = 1')?.title, 'The cache—which we added—was stale');
  const s2 = await open(dir);
  assert.equal(currentVersion(s2), SCHEMA_VERSION);
  check(s2);
  await s2.write((tx) => {
    for (const t of ['observations_fts', 'summaries_fts', 'prompts_fts']) tx.run(`INSERT INTO ${t}(${t}) VALUES ('integrity-check')`);
  });
  await s2.close(false);
  await s.close(false);
});

it('the view expression leaves ASCII text alone and turns each separator into a space', async () => {
  const s = await open(tempDir('store-fts-text-'));
  const cut = (v: string | null) => s.get<{ v: string | null }>(`SELECT ${ftsTextSql('?1')} AS v`, [v])?.v;
  assert.equal(cut('plain ascii - text'), 'plain ascii - text');
  assert.equal(cut('a—b “c” d’s e→f g…h 1920×1080'), 'a b  c  d s e f g h 1920 1080');
  assert.equal(cut('Übersicht café'), 'Übersicht café');
  assert.equal(cut(null), null);
  await s.close(false);
});
