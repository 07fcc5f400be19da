// Probe for the page cache: the same database served to sql.js fully loaded (today's store after
// its background load) or through PagedBytes (worker/store/pagedFile.ts, a bounded page cache; not
// wired into the store yet). Each mode runs in its own process, so RSS is its own. Prints open
// time, RSS after open and after a keyword workload, query p50/p95, and the cache's reads/evictions.
//
//   node --import tsx bench/pagecache-probe.mjs <data dir with snapshot-*.db> [budgetMiB ...]
//   (e.g. a dir kept by BENCH_KEEP=1 node bench/scale.mjs, or bench/search.mjs's BENCH_DIR/<n>/db)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const [, , dir, ...budgets] = process.argv;
if (process.env.PROBE_MODE) {
  await child(process.env.PROBE_MODE, dir);
  process.exit(0);
}
if (!dir) {
  console.error('usage: node --import tsx bench/pagecache-probe.mjs <data dir> [budgetMiB ...]');
  process.exit(1);
}
const modes = ['full', ...(budgets.length ? budgets : ['64', '16']).map((b) => `paged:${b}`)];
console.log(`# pagecache probe on ${dir}`);
console.log('| mode | open (ms) | RSS after open (MB) | RSS after queries (MB) | keyword p50 / p95 (ms) | chunk reads / evictions | SQLite heap in use (MB) | JS external (MB) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const mode of modes) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), dir], { env: { ...process.env, PROBE_MODE: mode }, encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`| ${mode} | failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')} |`);
    continue;
  }
  console.log(r.stdout.trim().split('\n').pop());
}

async function child(mode, dir) {
  const { loadSqlJs, tuneConnection } = await import('../worker/store/sqlite.ts');
  const { listSnapshots, snapshotName, readSnapshot, snapshotHeader } = await import('../worker/store/snapshot.ts');
  const { openPagedSnapshot } = await import('../worker/store/pagedFile.ts');
  const { bm25Idf } = await import('../worker/search/bm25.ts');
  const { keywordSearch } = await import('../worker/search/keyword.ts');
  const { parseFtsQuery } = await import('../worker/search/ftsQuery.ts');
  const { bm25, FTS_WEIGHTS } = await import('../worker/search/bm25.ts');
  const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
  const SQL = await loadSqlJs();
  const snaps = listSnapshots(dir);
  const file = path.join(dir, snapshotName(snaps[snaps.length - 1]));
  const t0 = performance.now();
  let paged;
  let db;
  if (mode === 'full') db = new SQL.Database(readSnapshot(file));
  else {
    paged = openPagedSnapshot(file, Number(mode.split(':')[1]) << 20, snapshotHeader(file));
    db = new SQL.Database(paged);
  }
  tuneConnection(db);
  const openMs = performance.now() - t0;
  global.gc?.();
  const rssOpen = rss();
  db.create_function('cm_bm25', (blob, table) => {
    if (!(blob instanceof Uint8Array)) return 0;
    const b = blob.byteOffset % 4 === 0 ? blob : blob.slice();
    return bm25(new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4), FTS_WEIGHTS[table], bm25Idf.values);
  });
  const store = {
    all: (sql, params = []) => {
      const st = db.prepare(sql);
      st.bind(params);
      const rows = [];
      while (st.step()) rows.push(st.getAsObject());
      st.free();
      return rows;
    },
    get: (sql, params = []) => store.all(sql, params)[0],
  };
  const words = store.all(`SELECT title FROM observations ORDER BY id DESC LIMIT 400`).flatMap((r) => String(r.title).split(/\s+/));
  const lat = [];
  for (let i = 0; i < 300; i++) {
    const q = parseFtsQuery(`${words[(i * 7) % words.length]} ${i % 3 === 0 ? words[(i * 13) % words.length] : ''}`);
    if (!q) continue;
    const t = performance.now();
    await keywordSearch(store, q, { kinds: ['observation'], ...(i % 2 ? { project: undefined } : {}) }, 20);
    // What a result list then reads: the rows of the newest hits of one project (context-like).
    store.all(`SELECT id, title, narrative FROM observations WHERE project = (SELECT project FROM observations WHERE id = ?) ORDER BY created_at DESC LIMIT 50`, [1 + ((i * 7919) % 90000)]);
    lat.push(performance.now() - t);
  }
  global.gc?.();
  const pct = (p) => [...lat].sort((a, b) => a - b)[Math.floor(p * (lat.length - 1))];
  const st = paged?.stats;
  console.log(`| ${mode} | ${openMs.toFixed(0)} | ${rssOpen.toFixed(0)} | ${rss().toFixed(0)} | ${pct(0.5).toFixed(1)} / ${pct(0.95).toFixed(1)} | ${st ? `${st.reads} / ${st.evictions}` : ''} | ${(Number(SQL._sqlite3_memory_used()) / 1048576).toFixed(0)} | ${(process.memoryUsage().arrayBuffers / 1048576).toFixed(0)} |`);
}
