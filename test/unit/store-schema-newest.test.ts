// A new store is created at the newest schema at once (schema.ts NEWEST) instead of replaying every
// migration: it must be the same schema a store migrated step by step has, and a fresh dir's first
// start keeps it in its first snapshot, so no later start replays it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { createSchema, currentVersion, migrate, SCHEMA_VERSION } from '../../worker/store/schema';
import { recover } from '../../worker/store/recovery';
import { loadSqlJs } from '../../worker/store/sqlite';
import { Store, type StoreOptions } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

const MASTER = 'SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid';
const opts = (dir: string, more: Partial<StoreOptions> = {}): StoreOptions => ({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null, ...more });

it('a new store and a store migrated one version at a time have the same sqlite_master and versions', async () => {
  const stepDir = tempDir();
  const step = await Store.open(opts(stepDir));
  for (let v = 1; v <= SCHEMA_VERSION; v++) assert.equal(await migrate(step, v), v);
  const stepped = step.all(MASTER);
  const steppedVersions = step.all('SELECT version FROM schema_version ORDER BY rowid');
  await step.close(false);

  const newDir = tempDir();
  const fresh = await Store.open(opts(newDir));
  assert.equal(await migrate(fresh), SCHEMA_VERSION);
  assert.deepEqual(fresh.all(MASTER), stepped);
  assert.deepEqual(fresh.all('SELECT version FROM schema_version ORDER BY rowid'), steppedVersions);
  await fresh.close(false);
  // Written in one journal record: a start replays one transaction, not one per migration.
  const again = await Store.open(opts(newDir));
  assert.equal(again.recovery.recordsReplayed, 1);
  assert.deepEqual(again.all(MASTER), stepped);
  await again.close(false);

  // createSchema (a fresh dir's first snapshot, recovery's empty base): the same.
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  createSchema(db);
  const rows = db.exec(MASTER)[0].values.map(([type, name, tbl_name, sql]) => ({ type, name, tbl_name, sql }));
  db.close();
  assert.deepEqual(rows, stepped);
  for (const d of [stepDir, newDir]) fs.rmSync(d, { recursive: true, force: true });
});

it("a fresh dir's first start writes the schema into its first snapshot: the next start replays nothing, and a damaged one is rebuilt from the journals", async () => {
  const dir = tempDir();
  const first = { ...opts(dir), pageCacheBytes: 16 << 20, snapshotAtFirstStart: true, emptySchema: createSchema };
  const s = await Store.open(first);
  assert.equal(currentVersion(s), SCHEMA_VERSION, 'the schema is there before any migration');
  assert.equal(await migrate(s), SCHEMA_VERSION);
  await s.write((tx) => tx.run(`INSERT INTO sessions (platform, content_session_id, project, status, started_at, updated_at) VALUES ('p', 'c', 'proj', 'active', 1, 1)`));
  await s.close(false);
  const again = await Store.open(first);
  assert.equal(again.recovery.recordsReplayed, 1, 'only the session, not the schema');
  assert.equal(currentVersion(again), SCHEMA_VERSION);
  assert.deepEqual(again.all('SELECT project FROM sessions'), [{ project: 'proj' }]);
  await again.close(false);

  // That first snapshot damaged: the journals, which do not create the schema, replay onto it.
  const snapshots = fs.readdirSync(dir).filter((f) => /^snapshot-/.test(f));
  assert.ok(snapshots.length > 0, fs.readdirSync(dir).join(' '));
  for (const n of snapshots) fs.writeFileSync(path.join(dir, n), 'damaged');
  // As the snapshot thread and the keyword warm-up process read the files (nothing moved aside).
  const SQL = await loadSqlJs();
  const read = recover(SQL, dir, { quarantine: false, emptySchema: createSchema });
  assert.deepEqual(read.report.lost, []);
  assert.deepEqual(read.db.exec('SELECT project FROM sessions')[0].values, [['proj']]);
  read.db.close();
  const damaged = await Store.open(first);
  assert.equal(damaged.degraded, undefined, damaged.recovery.lost.join('; '));
  assert.deepEqual(damaged.all('SELECT project FROM sessions'), [{ project: 'proj' }]);
  await damaged.close(false);
  fs.rmSync(dir, { recursive: true, force: true });
});
