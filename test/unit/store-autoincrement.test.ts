// Ids are never reused. Schema 4 rebuilds the id tables with AUTOINCREMENT and
// keeps every row, id, index, trigger and full-text entry of a database made by schema 3.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { currentVersion, migrate, SCHEMA_VERSION } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

const open = (dir: string) => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });

async function addObservation(s: Store, title: string): Promise<number> {
  return s.write((tx) => {
    tx.run(`INSERT OR IGNORE INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (1, 'p', 'c', 'proj', 'active', 1, 1)`);
    return tx.run(`INSERT INTO observations (session_id, project, type, title, narrative, content_hash, created_at) VALUES (1, 'proj', 'discovery', ?, ?, ?, 1)`, [title, `narrative of ${title}`, title]).lastId;
  });
}

it('schema 4 adds AUTOINCREMENT and keeps the data of a schema 3 database', async () => {
  const dir = tempDir();
  const s = await open(dir);
  assert.equal(await migrate(s, 3), 3);
  const ids = [await addObservation(s, 'alpha'), await addObservation(s, 'beta'), await addObservation(s, 'gamma')];
  assert.equal(await migrate(s), SCHEMA_VERSION);
  await s.write((tx) => tx.run(`INSERT INTO vectors (kind, ref_id, project, model, dims, data, created_at, file_gen, file_offset) VALUES ('observation', ?, 'proj', 'm', 1, x'', 1, 1, 0)`, [ids[0]]));
  assert.match(String(s.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = 'observations'`)?.sql), /AUTOINCREMENT/);
  assert.deepEqual(s.all<{ id: number; title: string }>('SELECT id, title FROM observations ORDER BY id'), [
    { id: ids[0], title: 'alpha' },
    { id: ids[1], title: 'beta' },
    { id: ids[2], title: 'gamma' },
  ]);
  // Full text, indexes and triggers still work on the rebuilt table.
  assert.deepEqual(s.all<{ docid: number }>(`SELECT docid FROM observations_fts WHERE observations_fts MATCH 'beta'`).map((r) => r.docid), [ids[1]]);
  assert.ok(s.get(`SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'observations_by_project'`));
  assert.ok(s.get('SELECT 1 AS x FROM vectors WHERE ref_id = ?', [ids[0]]));
  await s.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [ids[0]]));
  assert.equal(s.get('SELECT 1 AS x FROM vectors WHERE ref_id = ?', [ids[0]]), undefined, 'the vector trigger survived the rebuild');
  // The newest id deleted: the next one is still new.
  await s.write((tx) => tx.run('DELETE FROM observations WHERE id = ?', [ids[2]]));
  const next = await addObservation(s, 'delta');
  assert.ok(next > ids[2], `id ${next} reused`);
  assert.deepEqual(s.all<{ docid: number }>(`SELECT docid FROM observations_fts WHERE observations_fts MATCH 'delta'`).map((r) => r.docid), [next]);
  // Replaying the journal rebuilds the same state.
  const s2 = await open(dir);
  assert.equal(currentVersion(s2), SCHEMA_VERSION);
  assert.deepEqual(s2.all('SELECT id, title FROM observations ORDER BY id'), s.all('SELECT id, title FROM observations ORDER BY id'));
  await s2.close(false);
  await s.close(false);
});
