// bench/disk: what a data dir holds on disk, by kind. Prints; changes nothing.
//
//   node bench/disk.mjs <dataDir> [<dataDir> ...]
//   BENCH_STEPS=import BENCH_DISK=1 BENCH_SIZES=10000 BENCH_THEIRS=0 node bench/scale.mjs
//       the 10k history imported into a fresh data dir and the worker stopped, then this listing
//
// Kinds: the newest full snapshot (snapshot-<gen>.db), older snapshots (raw .db or compressed
// .dbz), deltas (delta-<gen>.db), journal segments (journal-<gen>.log), vector files and indexes
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
    else if (/^journal-\d+\.log$/.test(name)) kind = 'journals';
    else if (rel.startsWith(`vector-data${path.sep}`) || rel.startsWith(`vectors${path.sep}`)) kind = 'vector files';
    out[kind].bytes += f.bytes;
    out[kind].files.push({ name: rel, bytes: f.bytes });
  }
  return out;
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
    const top = [...files].sort((a, b) => b.bytes - a.bytes).slice(0, 3).map((f) => `${f.name} ${MB(f.bytes)}`);
    lines.push(`  ${k.padEnd(15)} ${MB(bytes).padStart(9)} MB  ${String(files.length).padStart(3)} file(s)  largest: ${top.join(', ')}${files.length > 3 ? ', ...' : ''}`);
  }
  lines.push(`  ${'total'.padEnd(15)} ${MB(total).padStart(9)} MB`);
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.slice(2);
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
  }
}
