// claude-mem recover [--accept-loss] [--json], which runs `node dist/worker.js recover …` (the
// worker's offline mode, worker/main.ts): rebuilding the store from its files is the worker's code,
// so the CLI starts the worker bundle for it instead of carrying a copy of the store.
// Rebuilds the database from the files in <dataDir>/db while the worker is stopped: the newest
// snapshot that checks out and every journal record after it; or, when no snapshot is usable and
// the early journals are gone, every surviving journal record replayed onto an empty schema.
// Without --accept-loss it only reports (no file is changed). With it, the rebuilt database is
// written as a new snapshot (verified by reading it back) that the worker starts from; nothing is
// deleted: files recovery could not use are moved to db/damaged/, the rest stay where they are.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadConfig } from '../common/node/config';
import { acquireLock, releaseLock } from './lock';
import { holdDirLock } from './dirLock';
import { segmentName, syncDir } from './store/journal';
import { recover, type RecoveryReport } from './store/recovery';
import { createSchema } from './store/schema';
import { snapshotName, verifySnapshot, writeSnapshot } from './store/snapshot';
import { loadSqlJs } from './store/sqlite';

export const RECOVER_USAGE = 'usage: claude-mem recover [--accept-loss] [--json]\n';

/** Exit status when acknowledged data is missing and --accept-loss was not given. */
export const EXIT_LOSS = 3;

export interface RecoverResult {
  report: RecoveryReport;
  counts: Record<string, number>;
  installed: string | null;
}

export async function runRecover(args: string[]): Promise<number> {
  let acceptLoss = false;
  let json = false;
  for (const a of args) {
    if (a === '--accept-loss') acceptLoss = true;
    else if (a === '--json') json = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(RECOVER_USAGE);
      return 0;
    } else {
      process.stderr.write(`unexpected argument "${a}"\n${RECOVER_USAGE}`);
      return 2;
    }
  }
  const { dataDir } = loadConfig();
  const dbDir = path.join(dataDir, 'db');
  if (!fs.existsSync(dbDir)) {
    process.stdout.write(`nothing to recover: ${dbDir} does not exist\n`);
    return 0;
  }
  // The worker must not run meanwhile: it would write to the same files.
  const dirLock = await holdDirLock(dataDir);
  if (!dirLock.ok) {
    const pid = dirLock.holder?.pid;
    process.stderr.write(`${pid ? `the worker (pid ${pid})` : 'a worker'} is running on this data dir: stop it first (claude-mem stop), then run recover again\n`);
    return 1;
  }
  const lock = acquireLock(dataDir, 0);
  if (!lock.ok) {
    dirLock.release();
    process.stderr.write(`the worker (pid ${lock.holder.pid}) is running on this data dir: stop it first (claude-mem stop), then run recover again\n`);
    return 1;
  }
  try {
    const out = await rebuild(dbDir, acceptLoss);
    const { report, counts, installed } = out;
    if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
    else {
      const say = (s: string) => process.stdout.write(`${s}\n`);
      say(`data dir: ${dataDir}`);
      say(`base: ${report.snapshotGen !== null ? snapshotName(report.snapshotGen) : report.emptySchema ? 'an empty schema (no usable snapshot)' : 'the first journal'}`);
      say(`replayed ${report.recordsReplayed} journal record(s) from ${report.segmentsReplayed.length} segment(s); ${report.recordsFailed} could not be replayed`);
      say(`rebuilt: ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(', ')}`);
      for (const p of report.problems) say(`  note: ${p}`);
      for (const l of report.lost) say(`  LOST: ${l}`);
      if (report.lost.length === 0) say('Every acknowledged write rebuilds from the files: nothing to recover.');
      else if (installed) say(`Installed ${installed}: the worker starts from it (ready, with what survived). Damaged files are in ${path.join(dbDir, 'damaged')}.`);
      else say(`Acknowledged data is missing (above). Run \`claude-mem recover --accept-loss\` to start the worker with what was rebuilt; no file is deleted.`);
    }
    return report.lost.length > 0 && !installed ? EXIT_LOSS : 0;
  } finally {
    releaseLock(dataDir);
    dirLock.release();
  }
}

async function rebuild(dbDir: string, install: boolean): Promise<RecoverResult> {
  const SQL = await loadSqlJs();
  // A dry run changes nothing; installing moves what could not be used to damaged/ first.
  const { db, nextGen, report } = recover(SQL, dbDir, { quarantine: install, emptySchema: createSchema, eager: true });
  try {
    const counts: Record<string, number> = {};
    for (const t of ['sessions', 'observations', 'session_summaries', 'user_prompts']) {
      try {
        counts[t] = Number(db.exec(`SELECT count(*) FROM ${t}`)[0]?.values[0]?.[0] ?? 0);
      } catch {
        counts[t] = 0;
      }
    }
    if (!install || report.lost.length === 0) return { report, counts, installed: null };
    // A new snapshot after every existing file, and its (empty) journal segment: the worker starts from it.
    const bytes = db.export();
    const file = await writeSnapshot(dbDir, nextGen, bytes);
    await verifySnapshot(file);
    fs.closeSync(fs.openSync(path.join(dbDir, segmentName(nextGen)), 'a', 0o600));
    await syncDir(dbDir);
    return { report, counts, installed: path.basename(file) };
  } finally {
    db.close();
  }
}
