// bench/disk: what a data dir holds on disk, by kind. Prints; changes nothing.
//
//   node bench/disk.mjs <dataDir> [<dataDir> ...]
//   node --import tsx bench/disk.mjs --tables <dataDir>
//       also each table's and index's share of the database rebuilt from the files (read-only:
//       sql.js has no dbstat, so each is dropped from a vacuumed copy and the copy weighed)
//   BENCH_STEPS=import BENCH_DISK=1 BENCH_SIZES=10000 BENCH_THEIRS=0 node bench/scale.mjs
//       the 10k history imported into a fresh data dir and the worker stopped, then this listing
//
// Kinds: the newest full snapshot (snapshot-<gen>.db), older snapshots (raw .db or compressed
// .dbz), deltas (delta-<gen>.db; a snapshot or delta whose chunks are deflated is listed as packed), journal segments (journal-<gen>.log, or .logz: compressed once a
// checkpoint covers them), vector files and indexes
// (vector-data/, vectors/), damaged copies (db/damaged/), and everything else (settings, token,
// spool...). Log folders are left out, as bench/scale leaves them out of "data on disk".
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const KINDS = ['snapshot', 'older snapshot', 'deltas', 'journals', 'vector files', 'damaged', 'other'];

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'logs') walk(p, out);
    } else out.push({ path: p, bytes: fs.statSync(p).size });
  }
  return out;
}

/** The files of a data dir by kind: { kind: { bytes, files: [{ name, bytes }] } }. */
export function diskByKind(dataDir) {
  const files = walk(dataDir);
  const gen = (name, re) => Number(re.exec(name)?.[1] ?? NaN);
  const snaps = files.map((f) => gen(path.basename(f.path), /^snapshot-(\d+)\.db$/)).filter(Number.isFinite);
  const newest = snaps.length ? Math.max(...snaps) : NaN;
  const out = Object.fromEntries(KINDS.map((k) => [k, { bytes: 0, files: [] }]));
  for (const f of files) {
    const rel = path.relative(dataDir, f.path);
    const name = path.basename(f.path);
    let kind = 'other';
    if (rel.split(path.sep).includes('damaged')) kind = 'damaged';
    else if (/^snapshot-\d+\.dbz?$/.test(name)) kind = gen(name, /^snapshot-(\d+)\.db$/) === newest ? 'snapshot' : 'older snapshot';
    else if (/^delta-\d+\.db$/.test(name)) kind = 'deltas';
    else if (/^journal-\d+\.logz?$/.test(name)) kind = 'journals';
    else if (rel.startsWith(`vector-data${path.sep}`) || rel.startsWith(`vectors${path.sep}`)) kind = 'vector files';
    out[kind].bytes += f.bytes;
    out[kind].files.push({ name: rel, bytes: f.bytes, packed: /^(snapshot|delta)-\d+\.db$/.test(name) && isPacked(f.path) });
  }
  return out;
}

/** A snapshot (CMEMSNP4, or CMEMSNP3 from before sub-blocks) or delta (CMEMDLT3, CMEMDLT2) whose chunks are deflated (worker/store/packChain.ts). */
function isPacked(file) {
  const head = Buffer.alloc(8);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 8, 0);
  } finally {
    fs.closeSync(fd);
  }
  return ['CMEMSNP3', 'CMEMSNP4', 'CMEMDLT2', 'CMEMDLT3'].includes(head.toString('latin1'));
}

const MB = (b) => (b / 1e6).toFixed(2);

/** Lines for one data dir: a row per kind (MB, files, the largest few), then the total. */
export function formatDiskByKind(dataDir, label = dataDir) {
  const by = diskByKind(dataDir);
  const total = Object.values(by).reduce((n, k) => n + k.bytes, 0);
  const lines = [`data on disk by kind: ${label}`];
  for (const k of KINDS) {
    const { bytes, files } = by[k];
    if (files.length === 0) continue;
    const top = [...files].sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((f) => `${f.name} ${MB(f.bytes)}${f.packed ? ' (packed)' : ''}`);
    lines.push(`  ${k.padEnd(15)} ${MB(bytes).padStart(9)} MB  ${String(files.length).padStart(3)} file(s)  largest: ${top.join(', ')}${files.length > 3 ? ', ...' : ''}`);
  }
  lines.push(`  ${'total'.padEnd(15)} ${MB(total).padStart(9)} MB`);
  return lines.join('\n');
}

/**
 * Each table's and index's share of the database in `dataDir` (rebuilt read-only from its files):
 * bytes saved by dropping an index, or by emptying a table (its own indexes with it), from a
 * VACUUMed copy without triggers. Needs the TypeScript sources (node --import tsx).
 */
export async function tableShares(dataDir) {
  const { loadSqlJs } = await import('../worker/store/sqlite.ts');
  const { recover } = await import('../worker/store/recovery.ts');
  const SQL = await loadSqlJs();
  const { db } = recover(SQL, path.join(dataDir, 'db'), { quarantine: false, eager: true });
  const one = (d, sql) => d.exec(sql)[0]?.values ?? [];
  const pageSize = one(db, 'PRAGMA page_size')[0][0];
  const pages = one(db, 'PRAGMA page_count')[0][0];
  const free = one(db, 'PRAGMA freelist_count')[0][0];
  const objs = one(db, "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'index')");
  const base = db.export();
  db.close();
  const weigh = (change) => {
    const d = new SQL.Database(base);
    for (const [n] of one(d, "SELECT name FROM sqlite_master WHERE type = 'trigger'")) d.run(`DROP TRIGGER "${n}"`);
    change(d);
    d.run('VACUUM');
    const n = d.export().length;
    d.close();
    return n;
  };
  const vacuumed = weigh(() => undefined);
  const shares = [];
  for (const [type, name, sql] of objs) {
    if (type === 'index' && !name.startsWith('sqlite_autoindex')) shares.push({ name, kind: 'index', bytes: vacuumed - weigh((d) => d.run(`DROP INDEX "${name}"`)) });
    else if (type === 'table' && !/^CREATE VIRTUAL/i.test(sql ?? '')) shares.push({ name, kind: 'table and its indexes', bytes: vacuumed - weigh((d) => d.run(`DELETE FROM "${name}"`)) });
  }
  return { bytes: base.length, pageSize, pages, freePages: free, vacuumed, shares: shares.filter((s) => s.bytes > 0).sort((a, b) => b.bytes - a.bytes) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tables = process.argv.includes('--tables');
  const dirs = process.argv.slice(2).filter((a) => a !== '--tables');
  if (dirs.length === 0) {
    console.error('usage: node bench/disk.mjs <dataDir> [...]  (or BENCH_STEPS=import BENCH_DISK=1 node bench/scale.mjs)');
    process.exit(2);
  }
  for (const d of dirs) {
    if (!fs.existsSync(d)) {
      console.error(`${d}: no such directory`);
      process.exit(1);
    }
    console.log(formatDiskByKind(d));
    if (tables) {
      const t = await tableShares(d);
      console.log(`database: ${MB(t.bytes)} MB (${t.pages} pages of ${t.pageSize} B, ${t.freePages} free); vacuumed without triggers ${MB(t.vacuumed)} MB`);
      for (const s of t.shares) console.log(`  ${s.name.padEnd(36)} ${MB(s.bytes).padStart(8)} MB  ${((100 * s.bytes) / t.vacuumed).toFixed(1).padStart(5)}%  ${s.kind}`);
    }
  }
}
