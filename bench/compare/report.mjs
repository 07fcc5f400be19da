// Turns the raw results into rows (ours / theirs / ratio), a console table, and bench/out/compare/report.md.
import * as fs from 'node:fs';
import { pct } from './common.mjs';

const EVENTS = [
  ['context', 'SessionStart'],
  ['session-init', 'UserPromptSubmit'],
  ['observation', 'PostToolUse'],
  ['file-context', 'PreToolUse (Read)'],
  ['summarize', 'Stop'],
  ['session-end', 'SessionEnd'],
];

const finite = (v) => typeof v === 'number' && Number.isFinite(v);
const med = (a) => (a && a.length ? pct(a, 50) : NaN);
const mean = (a) => (a && a.length ? a.reduce((x, y) => x + y, 0) / a.length : NaN);
/** The idle wait of the run (results.json of an older run has none). */
const idleS = (R) => Object.values(R).find((r) => r.idleWaitMs)?.idleWaitMs / 1000 || 65;
const num = (v) => (typeof v === 'number' ? v : NaN); // results read back from JSON have null for NaN

/**
 * @returns {{metric: string, unit: string, better: 'lower'|'higher'|'', ours: number, theirs: number, digits: number, n?: string, why?: {ours?: string, theirs?: string}}[]}
 */
export function buildRows(R, baseline, sides) {
  const o = R.ours ?? {};
  const t = R.theirs ?? {};
  const rows = [];
  const row = (metric, unit, better, fo, ft, digits = 1, extra = {}) => rows.push({ metric, unit, better, ours: sides.includes('ours') ? fo(o) : NaN, theirs: sides.includes('theirs') ? ft(t) : NaN, digits, ...extra });
  const both = (metric, unit, better, f, digits, extra) => row(metric, unit, better, f, f, digits, extra);

  rows.push({ metric: 'bare `node -e 0` beside the hooks, the floor for both (p50 / p95)', unit: 'ms', better: '', ours: pct(baseline, 50), theirs: NaN, digits: 0, alt: pct(baseline, 95), n: `n=${baseline.length}` });
  both('hook observation p50 / bare node p50 (our bar: at most 1.25)', 'x', 'lower', (r) => (r.hooks?.observation?.length ? pct(r.hooks.observation, 50) / pct(baseline, 50) : NaN), 2);
  for (const [ev, name] of EVENTS) {
    for (const p of [50, 95]) {
      both(`hook ${ev} (${name}), whole process, p${p}`, 'ms', 'lower', (r) => (r.hooks?.[ev]?.length ? pct(r.hooks[ev], p) : NaN), 0, {
        n: `n=${o.hooks?.[ev]?.length ?? 0}/${t.hooks?.[ev]?.length ?? 0}`,
      });
    }
  }
  both('POST observation during replay (the hook\'s request alone), p50', 'ms', 'lower', (r) => pct(r.httpObservation ?? [], 50), 2);
  both('GET /api/health at concurrency 8 (HTTP floor), p50', 'ms', 'lower', (r) => med((r.healthFloor ?? []).map((x) => pct(x.lat, 50))), 2);
  both('ingest at concurrency 8: throughput (mean of 2 rounds)', 'req/s', 'higher', (r) => mean((r.ingest ?? []).map((x) => x.rps)), 0);
  both('ingest at concurrency 8: p50 (mean of 2 rounds)', 'ms', 'lower', (r) => mean((r.ingest ?? []).map((x) => pct(x.lat, 50))), 2);
  both('ingest at concurrency 8: p99 (mean of 2 rounds)', 'ms', 'lower', (r) => mean((r.ingest ?? []).map((x) => pct(x.lat, 99))), 2);
  both('after the first ingest burst: until every observation is stored', 's', 'lower', (r) => num(r.drain?.ms) / 1000, 1, {
    n: `${o.drain?.stored ?? '?'}/${o.drain?.expected ?? '?'} vs ${t.drain?.stored ?? '?'}/${t.drain?.expected ?? '?'} obs`,
  });
  both('after the first ingest burst: share stored by the end of the wait', '%', 'higher', (r) => (r.drain ? (100 * r.drain.stored) / r.drain.expected : NaN), 0);
  for (let k = 0; k < 2; k++) {
    both(`time until every observation is searchable, round ${k + 1}`, 's', 'lower', (r) => num(r.searchable?.[k]?.searchableMs) / 1000, 1, {
      n: `${o.searchable?.[k]?.observations ?? '?'}/${o.searchable?.[k]?.expected ?? '?'} vs ${t.searchable?.[k]?.observations ?? '?'}/${t.searchable?.[k]?.expected ?? '?'} obs`,
      tie: 0.1, // polling every 20 ms plus two requests: differences under 0.1 s are not resolved
    });
  }
  row('  then the local embedding index caught up (ours only)', 's', '', (r) => num(r.embedBacklogMs) / 1000, () => NaN, 1);
  both('keyword search at the end, p50', 'ms', 'lower', (r) => pct(r.searchLat ?? [], 50), 2, { n: `n=${o.searchLat?.length ?? 0}/${t.searchLat?.length ?? 0}` });
  both('keyword search at the end, p95', 'ms', 'lower', (r) => pct(r.searchLat ?? [], 95), 2);
  row('keyword search, time inside the worker (ours reports it), p50', 'ms', '', (r) => pct(r.searchServerMs ?? [], 50), () => NaN, 2);
  both('context inject, p50', 'ms', 'lower', (r) => pct(r.contextLat ?? [], 50), 2, { n: `n=${o.contextLat?.length ?? 0}/${t.contextLat?.length ?? 0}` });
  both('context inject, p95', 'ms', 'lower', (r) => pct(r.contextLat ?? [], 95), 2);
  both('context size (characters, median over projects)', 'chars', '', (r) => med(r.contextChars ?? []), 0);
  both('worker CPU over 2 s with no requests, before the searches', '%', 'lower', (r) => num(r.idleCpuPct), 0, { tie: 3 });
  both('worker RSS at the end (process tree)', 'MB', 'lower', (r) => num(r.rss) / 1e6, 0, { n: `${o.rssProcesses ?? 0}/${t.rssProcesses ?? 0} procs` });
  both(`worker RSS idle, ${idleS(R)} s after the last request (process tree; bar: at most 1.0x)`, 'MB', 'lower', (r) => num(r.rssIdle) / 1e6, 0, { n: `${o.rssIdleProcesses ?? 0}/${t.rssIdleProcesses ?? 0} procs` });
  both('cold start to healthy, empty data dir (median)', 'ms', 'lower', (r) => med(r.coldEmpty), 0, { n: `n=${o.coldEmpty?.length ?? 0}/${t.coldEmpty?.length ?? 0}` });
  both('cold start to ready, empty data dir (median)', 'ms', 'lower', (r) => med(r.coldEmptyReady), 0);
  both('cold start to healthy, with round-1 data', 'ms', 'lower', (r) => med(r.coldData), 0);
  both('cold start to ready, with round-1 data', 'ms', 'lower', (r) => med(r.coldDataReady), 0);
  const perObs = (r, f) => (r.stored?.observations > 0 ? f(r) / r.stored.observations : NaN);
  const perSession = (r) => (r.sessions > 0 && r.model ? (r.model.inputTokens + (r.model.outputTokens ?? 0)) / r.sessions : NaN);
  both('model tokens per session (input + output, every call)', 'tokens', 'lower', perSession, 0, { n: `${o.sessions ?? 0}/${t.sessions ?? 0} sessions` });
  both('model input tokens per observation (all calls)', 'tokens', 'lower', (r) => perObs(r, (x) => x.model.inputTokens), 0);
  both('  of which observation calls', 'tokens', 'lower', (r) => perObs(r, (x) => x.model.tokensByKind?.observation ?? 0), 0);
  both('model calls per observation', 'calls', 'lower', (r) => perObs(r, (x) => x.model.requests), 2);
  both('largest single model request', 'tokens', 'lower', (r) => r.model?.maxRequestTokens || NaN, 0);
  both('observations stored at the end', 'obs', '', (r) => r.stored?.observations ?? NaN, 0);
  both('summaries stored at the end', 'sums', '', (r) => r.stored?.summaries ?? NaN, 0);
  both('recall@5, workload questions as keywords', '', 'higher', (r) => r.recall?.['workload-keyword']?.recall ?? NaN, 2, { n: `q=${o.recall?.['workload-keyword']?.questions ?? 0}` });
  both('recall@5, workload questions as an exact phrase', '', 'higher', (r) => r.recall?.['workload-phrase']?.recall ?? NaN, 2, { n: `q=${o.recall?.['workload-phrase']?.questions ?? 0}` });
  row('recall@5, search fixture questions (ours: keyword mode)', '', 'higher', (r) => r.recall?.fixture?.recall ?? NaN, (r) => r.recall?.fixture?.recall ?? NaN, 2, { n: `q=${o.recall?.fixture?.questions ?? t.recall?.fixture?.questions ?? 0}` });
  row('recall@5, search fixture questions (ours: hybrid, its default)', '', 'higher', (r) => r.recall?.['fixture-hybrid']?.recall ?? NaN, (r) => r.recall?.fixture?.recall ?? NaN, 2, { n: `q=${o.recall?.['fixture-hybrid']?.questions ?? 0}` });
  return rows;
}

const fmtNum = (v, d) => (finite(v) ? v.toFixed(d) : 'n/a');

function ratio(r) {
  if (!finite(r.ours) || !finite(r.theirs) || r.theirs === 0) return 'n/a';
  const x = r.ours / r.theirs;
  return x >= 100 ? `${x.toFixed(0)}x` : x >= 10 ? `${x.toFixed(1)}x` : `${x.toFixed(2)}x`;
}

function verdict(r) {
  if (!r.better || !finite(r.ours) || !finite(r.theirs)) return '';
  if (r.ours === r.theirs || (r.tie !== undefined && Math.abs(r.ours - r.theirs) < r.tie)) return 'same';
  const oursBetter = r.better === 'lower' ? r.ours < r.theirs : r.ours > r.theirs;
  return oursBetter ? 'ours' : 'THEIRS';
}

export function cells(r) {
  const ours = r.alt !== undefined ? `${fmtNum(r.ours, r.digits)} / ${fmtNum(r.alt, r.digits)}` : fmtNum(r.ours, r.digits);
  return [r.metric, r.unit, ours, fmtNum(r.theirs, r.digits), ratio(r), verdict(r), r.n ?? ''];
}

export function formatTable(rows, env) {
  const head = ['metric', 'unit', 'ours', 'claude-mem', 'ours/theirs', 'better', 'n'];
  const body = rows.map(cells);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (c) => c.map((x, i) => (i >= 2 && i <= 4 ? String(x).padStart(w[i]) : String(x).padEnd(w[i]))).join('  ');
  return [`${env.sides.ours?.product ?? 'ours'} vs ${env.sides.theirs?.product ?? 'claude-mem'} (${env.quick ? 'QUICK run, not for docs' : 'full run'})`, line(head), w.map((n) => '-'.repeat(n)).join('  '), ...body.map(line)].join('\n');
}

/**
 * Why ours can lose on a figure: mechanisms, checked against the code, printed only for the rows
 * where this run has claude-mem ahead. Keyed by the start of the metric name.
 */
export const REASONS = {
  'GET /api/health':
    'measured on an idle fresh worker, so it is the HTTP stack and the health handler alone: ours is hono on Node\'s http module with a queue-count query on sql.js (WebAssembly) per call; claude-mem is express on bun',
  'recall@5, workload questions':
    'only tool uses worth a model call (a failure, the fix that follows, an edit with a stated reason: worker/compression/triage.ts) get a model-written observation in ours; the rest keep a local note (the file, the command, the names a file declares, the outcome), which does not restate the sentence of tool output a workload question quotes. claude-mem sends every tool use to the model, whose (fake) observation restates it',
  'after the first ingest burst':
    'our queue sends a session\'s tool uses to the model 10 at a time; a partial batch (the last few of each of the 8 sessions) waits until it is 30 s old because no Stop arrives in this burst to flush it. claude-mem sends every tool use on its own as soon as it can, with the session\'s whole conversation each time (see the token rows)',
  'POST observation':
    'our route fsyncs the journal before it answers (a 202 means the tool use survives a crash); claude-mem answers after a SQLite insert in WAL mode without an fsync per request',
  'ingest at concurrency 8':
    'every acknowledged observation is fsynced to our journal before the 202, and the local embedder indexes each new observation in the background on the same 2 cores',
  'time until every observation is searchable':
    'our queue batches up to 10 tool uses of a session into one model call and sends a partial batch only when it ages out (30 s) or a summary is queued (Stop), so the last tool uses of a burst wait for one of those; claude-mem makes one model call per tool use as each arrives (which is also why it spends many times the model tokens: see the token rows)',
  'keyword search':
    'our keyword search is SQLite FTS4 compiled to WebAssembly (sql.js), ranked with BM25 computed in JavaScript from matchinfo over the OR of the query words, plus snippets; claude-mem (Chroma off) runs one native bun:sqlite FTS5 MATCH of the whole query as a single phrase, cheaper but it finds only that exact phrase (see the recall rows)',
  'keyword search, time inside': '',
  'worker RSS':
    'our worker serves the database through a bounded page cache (sql.js) and runs the local embedding model (about 200 MB with tfjs wasm) in a child process that ends 60 s after indexing and 5 min after a semantic query, so the RSS at the end counts it and the idle RSS does not; claude-mem with Chroma off has no embedder, and its vector search, when on, runs in a separate Chroma (Python) process not counted here',
  'cold start':
    'our worker reads the database snapshot into memory (sql.js, WebAssembly) and replays the journal before it answers; claude-mem opens a native SQLite file in place. Our figure includes loading the WebAssembly module',
  'context inject':
    'our builder selects and formats rows under a hard token budget in JavaScript over sql.js (WebAssembly); compare the context size row: when ours injects more characters it also has more to format',
  hook: 'the hook command starts Node and loads dist/cli.js; see the bare `node -e 0` row for the floor of that machine at that moment',
};

export function reasonFor(metric) {
  const key = Object.keys(REASONS)
    .filter((k) => metric.startsWith(k))
    .sort((a, b) => b.length - a.length)[0];
  return key ? REASONS[key] : undefined;
}

function groupByReason(rows) {
  const groups = new Map();
  for (const r of rows) {
    const k = reasonFor(r.metric) ?? '';
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  return [...groups.entries()];
}

/** Markdown; keeps anything outside the compare section of an existing report.md. */
export function writeDocs(file, rows, env, notes) {
  const md = (s) => String(s).replace(/\|/g, '\\|');
  const table = [
    '| metric | unit | ours | claude-mem | ours / theirs | better | n |',
    '| --- | --- | ---: | ---: | ---: | --- | --- |',
    ...rows.map((r) => `| ${cells(r).map(md).join(' | ')} |`),
  ].join('\n');
  const worse = rows.filter((r) => verdict(r) === 'THEIRS');
  const section = [
    '<!-- compare:start (quoted from bench/out/compare/report.md, made by `npm run bench:compare`) -->',
    '## Side by side with claude-mem',
    '',
    `Run ${env.date} on ${env.cpu}, ${env.memGb} GB RAM, ${env.os}; load average ${env.load[0].map((x) => x.toFixed(1)).join(' / ')} at the start and ${env.load[1].map((x) => x.toFixed(1)).join(' / ')} at the end; the whole command took ${env.wallS.toFixed(0)} s.`,
    '',
    `- ours: ${env.sides.ours?.product ?? 'not run'} at ${env.commit} (${env.sides.ours?.runtime ?? ''}; model through ${env.sides.ours?.modelApi ?? ''}; default settings: batching, local embeddings on)`,
    `- claude-mem: ${env.sides.theirs?.product ?? 'not run'} (${env.sides.theirs?.runtime ?? ''}; model through ${env.sides.theirs?.modelApi ?? ''}; Chroma off, telemetry off)`,
    `- workload: ${env.workload.sessions} sessions, ${env.workload.prompts} prompts, ${env.workload.toolUses} tool uses, ${env.workload.questions} questions (seed ${env.workload.seed}); the first ${env.hookTools} tool uses of every session and all lifecycle events through each product's hook command, the rest through the HTTP route its hook calls; ingest ${env.ingestN} requests per round`,
    '',
    table,
    '',
    worse.length ? 'Where claude-mem is ahead in this run, and why:' : 'claude-mem is ahead on none of the compared figures in this run.',
    '',
    ...groupByReason(worse).map(
      ([reason, rs]) => `- ${rs.map((r) => `**${md(r.metric)}** (${fmtNum(r.ours, r.digits)} vs ${fmtNum(r.theirs, r.digits)} ${r.unit})`).join(', ')}: ${reason || 'no known mechanism; treat as noise until a rerun on an idle machine shows it again'}.`,
    ),
    ...(worse.length ? [''] : []),
    ...(notes.length ? ['Not measured, or measured with problems, in this run:', '', ...notes.map((n) => `- ${md(n)}`), ''] : []),
    '<!-- compare:end -->',
  ].join('\n');
  let doc = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const re = /<!-- compare:start[\s\S]*?<!-- compare:end -->/;
  if (re.test(doc)) doc = doc.replace(re, section);
  else doc = `${doc || '# Benchmarks\n\n'}${doc && !doc.endsWith('\n') ? '\n' : ''}${section}\n`;
  fs.writeFileSync(file, doc);
}
