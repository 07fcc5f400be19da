// bench/ingest: observation ingest at fixed concurrency vs a no-op route (same auth, guards, JSON
// parsing, no store) in the same run; then snapshot cost at 10k and 100k observations, and ingest
// latency while a snapshot runs. Usage: npm run build && node bench/ingest.mjs [--quick]
import { fmt, load, pct, startWorker, syntheticExport } from './lib.mjs';

const quick = process.argv.includes('--quick');
const N = quick ? 2000 : 8000;
const C = 8;

const body = (i) => ({
  contentSessionId: `s${i % 16}`,
  project: 'bench',
  tool_name: 'Read',
  tool_input: { file_path: `/repo/src/file${i}.ts` },
  tool_response: `line one of file ${i}\n`.repeat(20),
  tool_use_id: `t${i}`,
});

function row(name, r) {
  return `${name.padEnd(34)} ${fmt(r.rps, 0).padStart(7)} req/s   p50 ${fmt(pct(r.lat, 50), 2).padStart(6)} ms   p99 ${fmt(pct(r.lat, 99), 2).padStart(6)} ms   worker CPU ${fmt(r.cpuUs, 0).padStart(5)} us/req`;
}

// Twice: with the default local embedder indexing in the background (a thread at lower priority),
// and with embeddings off, which isolates the ingest path itself.
for (const [label, env] of [['default settings (local embedder indexing in the background)', {}], ['embeddings off (the ingest path alone)', { CLAUDE_MEM_EMBEDDINGS: 'off' }]]) {
  const w = await startWorker({ env });
  try {
    // warm up both paths
    await load((i) => w.req('POST', '/api/noop', body(i)), 500, C);
    await load((i) => w.req('POST', '/api/sessions/observations', body(1e6 + i)), 500, C);
    const measured = async (path) => {
      const c0 = w.cpuMs();
      const r = await load((i) => w.req('POST', path, body(i)), N, C);
      return { ...r, cpuUs: ((w.cpuMs() - c0) * 1000) / N };
    };
    const noop = await measured('/api/noop');
    const ingest = await measured('/api/sessions/observations');
    // The compression queue (and the indexer) work through what was just ingested; their CPU counts too.
    const c0 = w.cpuMs();
    await new Promise((r) => setTimeout(r, 3000));
    const drainUs = ((w.cpuMs() - c0) * 1000) / N;
    console.log(`ingest, ${label}: concurrency ${C}, ${N} requests each (every observation fsynced before its 202)`);
    console.log(row('baseline: POST /api/noop', noop));
    console.log(row('POST /api/sessions/observations', ingest));
    console.log(`background work in the next 3 s: ${fmt(drainUs, 0)} us of worker CPU per ingested observation`);
    console.log(`ratio ingest/baseline: throughput ${fmt(ingest.rps / noop.rps, 2)}x, p99 ${fmt(pct(ingest.lat, 99) / pct(noop.lat, 99), 2)}x`);
    console.log(`bar: >= 2000 req/s with p99 < 5 ms -> ${ingest.rps >= 2000 && pct(ingest.lat, 99) < 5 ? 'MET' : 'NOT MET'}\n`);
  } finally {
    await w.stop();
  }
}

console.log('snapshot cost (replica thread vs main-thread export), and ingest while snapshotting');
for (const n of quick ? [10_000] : [10_000, 100_000]) {
  for (const mode of ['replica', 'main']) {
    const env = mode === 'main' ? { CLAUDE_MEM_NO_REPLICA: '1' } : {};
    const w2 = await startWorker({ env });
    try {
      const imp = await w2.req('POST', '/api/import', syntheticExport(n));
      if (imp.status !== 200) throw new Error(JSON.stringify(imp.body));
      await w2.req('POST', '/api/admin/snapshot', {}); // settle: the import record now lives in a snapshot
      const idle = await load((i) => w2.req('POST', '/api/sessions/observations', body(i)), 1000, C);
      const snapP = w2.req('POST', '/api/admin/snapshot', {});
      const during = await load((i) => w2.req('POST', '/api/sessions/observations', body(5e6 + i)), 1000, C);
      const snap = (await snapP).body;
      console.log(
        `${String(n).padStart(6)} obs, ${mode.padEnd(7)}: snapshot ${fmt(snap.bytes / 1e6)} MB in ${fmt(snap.totalMs, 0)} ms, event loop blocked ${fmt(snap.blockedMs, 0)} ms; ` +
          `ingest p99 idle ${fmt(pct(idle.lat, 99), 2)} ms vs during snapshot ${fmt(pct(during.lat, 99), 2)} ms (max ${fmt(Math.max(...during.lat), 1)} ms); RSS ${fmt(w2.rss() / 1e6, 0)} MB`,
      );
    } finally {
      await w2.stop();
    }
  }
}
