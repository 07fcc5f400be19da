// bench/compare: claude-mem-vscode against claude-mem 13.25.3, same machine, same run, same
// workload, same fake models. Prints a table (ours / theirs / ratio) and writes it as markdown to
// bench/out/compare/report.md (git-ignored); docs/benchmarks.md quotes a run of it by hand.
//
//   npm run bench:compare                       (= npm run build && node bench/compare.mjs)
//   node bench/compare.mjs --quick              a small run to check the harness (not for docs)
//   options: --hook-tools N     tool uses per session replayed through the hook commands (default 5)
//            --ingest N         requests per ingest round at concurrency 8 (default 1000)
//            --ingest-cap-s S   an ingest round stops after S seconds (default 20)
//            --drain-cap-s S    wait at most S seconds for the first burst to be stored (default 60)
//            --budget S         whole-command budget that round 2's hook sampling adapts to (default 800)
//            --idle-s S         after the last search, wait S seconds with no requests, then take the
//                               idle RSS (default 65: our indexing model process goes 60 s after its
//                               last call; claude-mem gets the same wait)
//            --only ours|theirs   --no-docs   --keep (keep temp dirs)
//            --report-only      rebuild the table and docs from the last run's results.json
//
// What happens (each side runs alone, never both workers at once; order A B A B):
//   1. claude-mem is installed into .cache/claude-mem-ref if not there (npm, git-ignored).
//   2. A fake model server (bench/compare/fakeModels.mjs, own process) answers both products with
//      the observation/summary the workload recorded for each tool use, and counts input tokens.
//   3. Workload round 1 (the first third of the sessions), ours then theirs, then round 2 (the
//      rest), ours then theirs, each on its own data dir kept between rounds. Every session's
//      lifecycle events and its first N tool uses go through the product's own hook command (timed
//      whole-process, a bare `node -e 0` timed beside them); the remaining tool uses go to the same
//      HTTP route with the body that product's hook sends. After each round: time until every
//      observation is searchable. After round 2: keyword searches, context injections, recall@5, RSS
//      at the end, then RSS again once --idle-s seconds have passed without a request.
//   4. Ingest at concurrency 8 on fresh workers, ours theirs ours theirs (also cold starts), and
//      after the first burst the time until everything is stored.
//   5. Recall@5 on the search fixture (test/fixtures/search), if it is there, on fresh workers.
// A side that cannot be prepared, or whose hook command does not handle every event replayed, ends
// the run with exit 1 and a sentence (never measured some other way); so does a hook run that failed,
// and a store whose observations cannot be traced to the workload's tool uses (recall@5).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { client, freePort, loadRun, median, pct, sleep, timed, treeCpuMs, treeRss } from './compare/common.mjs';
import { loadSearchFixture } from './compare/fixture.mjs';
import { ours as oursSide } from './compare/ours.mjs';
import { buildRows, formatTable, writeDocs } from './compare/report.mjs';
import { theirs as theirsSide } from './compare/theirs.mjs';
import { allToolUses, generateWorkload } from './compare/workload.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const opt = (name, def) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : def;
};
const QUICK = flag('--quick');
const HOOK_TOOLS = Number(opt('--hook-tools', QUICK ? 2 : 5));
const INGEST_N = Number(opt('--ingest', QUICK ? 300 : 1000));
const ONLY = opt('--only', '');
const WRITE_DOCS = !flag('--no-docs') && !QUICK;
const KEEP = flag('--keep');
const SEARCH_REPS = QUICK ? 2 : 3;
const CONTEXT_REPS = QUICK ? 5 : 20;
const SEARCHABLE_TIMEOUT_MS = QUICK ? 120_000 : 240_000;
/** Whole-command budget (s). Round 2's hook sampling shrinks (same plan for both sides) to stay inside it. */
const BUDGET_S = Number(opt('--budget', QUICK ? 600 : 800));
/** Ingest rounds stop after this long even if fewer than --ingest requests were made (a loaded machine). */
const INGEST_CAP_MS = Number(opt('--ingest-cap-s', 20)) * 1000;
const elapsedS = () => (performance.now() - started) / 1000;
/** After the first ingest burst, how long to wait for every observation to be stored. */
const DRAIN_CAP_MS = Number(opt('--drain-cap-s', QUICK ? 30 : 60)) * 1000;
/** Idle RSS: taken this long after the last request of the workload, on both sides. */
const IDLE_MS = Number(opt('--idle-s', 65)) * 1000;

// --report-only: rebuild the table (and docs) from the last run's bench/out/compare/results.json.
if (flag('--report-only')) {
  const file = path.join(path.resolve(path.dirname(new URL(import.meta.url).pathname), '..'), 'bench', 'out', 'compare', 'results.json');
  const last = JSON.parse(fs.readFileSync(file, 'utf8'));
  const rows = buildRows(last.results, last.baseline, Object.keys(last.env.sides));
  console.log(formatTable(rows, last.env));
  if (!flag('--no-docs') && !last.env.quick) {
    writeDocs(path.join(path.dirname(file), 'report.md'), rows, last.env, last.notes);
    console.log('wrote bench/out/compare/report.md');
  }
  process.exit(0);
}

const started = performance.now();
const startedAt = new Date();
const loadStart = os.loadavg();
const log = (...a) => console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...a);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-compare-'));
const outDir = path.join(ROOT, 'bench', 'out', 'compare');
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });
const logDir = path.join(outDir, 'logs');
fs.mkdirSync(logDir, { recursive: true });

const sides = [oursSide(ROOT), theirsSide(ROOT)].filter((s) => !ONLY || s.name === ONLY);
const running = new Set();
const notes = []; // what could not be measured, and why
const R = {}; // results per side
for (const s of sides) {
  R[s.name] = {
    product: '',
    hooks: {}, // event -> [ms]
    hookFailures: {},
    httpObservation: [],
    coldEmpty: [],
    coldEmptyReady: [],
    coldData: [],
    coldDataReady: [],
    searchable: [],
    searchLat: [],
    contextLat: [],
    contextChars: [],
    recall: {},
    rss: NaN,
    rssProcesses: 0,
    rssIdle: NaN,
    rssIdleProcesses: 0,
    ingest: [],
    model: { requests: 0, inputTokens: 0, outputTokens: 0, tokensByKind: {}, byKind: {}, maxRequestTokens: 0, tracesSeen: 0, tracesAnsweredTwice: 0 },
    /** Sessions of the workload replayed (model tokens per session divide by it). */
    sessions: 0,
    stored: { observations: NaN, summaries: NaN },
    errors: [],
    provider: undefined,
  };
}
const baseline = []; // node -e 0

async function cleanup() {
  for (const inst of running) {
    try {
      await inst.side.stop(inst);
    } catch {
      /* best effort */
    }
  }
  running.clear();
  if (fake) fake.proc.kill('SIGTERM');
  if (!KEEP) fs.rmSync(tmp, { recursive: true, force: true });
}
let fake;
/** Ends the run: what it measures could not be found or did not work. */
async function fail(sentence) {
  console.error(`bench:compare failed: ${sentence}`);
  await cleanup();
  process.exit(1);
}
process.on('SIGINT', () => {
  cleanup().finally(() => process.exit(130));
});

// ---------------------------------------------------------------------------------------------
// Preparation

log(`temp dir ${tmp}; logs in ${path.relative(ROOT, logDir)}`);
for (const s of sides) {
  const problems = await s.prepare({ log });
  if (problems.length) await fail(`${s.name} cannot run: ${problems.join('; ')}${ONLY ? '' : ` (--only ${sides.find((o) => o !== s)?.name ?? 'ours'} measures the other side alone)`}`);
  R[s.name].product = s.product;
}
for (const s of sides) log(`${s.name}: ${s.product} on ${s.runtime}`);

const workload = generateWorkload({ root: path.join(tmp, 'projects'), ...(QUICK ? { sessions: 4, toolUses: 120 } : {}) });
for (const p of workload.projects) fs.mkdirSync(path.join(workload.root, p), { recursive: true });
// The files the sessions read exist on disk (PreToolUse hooks look at them: size, mtime).
for (const u of allToolUses(workload)) {
  if (u.tool_name !== 'Read') continue;
  fs.mkdirSync(path.dirname(u.tool_input.file_path), { recursive: true });
  fs.writeFileSync(u.tool_input.file_path, u.tool_response.file.content);
}
const wlPath = path.join(outDir, 'workload.json');
fs.writeFileSync(wlPath, JSON.stringify(workload));
const toolUses = allToolUses(workload);
for (const s of sides) R[s.name].sessions = workload.sessions.length;
log(`workload: ${workload.sessions.length} sessions, ${workload.sessions.reduce((a, s) => a + s.prompts.length, 0)} prompts, ${toolUses.length} tool uses, ${workload.questions.length} questions (seed ${workload.seed})`);

fake = await startFake(wlPath);
log(`fake model server on ${fake.url}`);

async function startFake(file) {
  const proc = spawn(process.execPath, [path.join(ROOT, 'bench', 'compare', 'fakeModels.mjs'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`fake model server exited ${c}`)));
  });
  const port = Number(new URL(url).port);
  const c = client(port);
  return {
    proc,
    url,
    stats: async () => (await c.req('GET', '/__stats')).body,
    reset: async () => c.req('POST', '/__reset'),
  };
}

async function addModelStats(side) {
  const st = (await fake.stats())[side.name];
  await fake.reset();
  if (!st) return;
  const m = R[side.name].model;
  m.requests += st.requests;
  m.inputTokens += st.inputTokens;
  m.outputTokens += st.outputTokens ?? 0;
  m.maxRequestTokens = Math.max(m.maxRequestTokens, st.maxRequestTokens);
  m.tracesSeen += st.tracesSeen;
  m.tracesAnsweredTwice += st.tracesAnsweredTwice;
  for (const [k, v] of Object.entries(st.tokensByKind)) m.tokensByKind[k] = (m.tokensByKind[k] ?? 0) + v;
  for (const [k, v] of Object.entries(st.byKind)) m.byKind[k] = (m.byKind[k] ?? 0) + v;
}

function dirsFor(side, tag) {
  const base = path.join(tmp, `${side.name}-${tag}`);
  const dataDir = path.join(base, 'data');
  const home = path.join(base, 'home');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  return { dataDir, home, logDir, fakeUrl: fake.url };
}

async function start(side, dirs) {
  const port = await freePort();
  const inst = await side.start({ ...dirs, port });
  inst.side = side;
  running.add(inst);
  return inst;
}

async function stop(inst) {
  running.delete(inst);
  await inst.side.stop(inst);
}

// ---------------------------------------------------------------------------------------------
// The hook commands each side runs: every event below goes through them. A side whose hook command
// does not list an event fails the run (never replayed over HTTP in its place).

const HOOK_EVENTS = ['context', 'session-init', 'observation', 'file-context', 'summarize', 'session-end'];
for (const s of sides) {
  if (!s.hookHandlers) continue;
  let known;
  try {
    known = await s.hookHandlers();
  } catch (e) {
    await fail(`${s.name}: ${e.message}`);
  }
  const missing = HOOK_EVENTS.filter((e) => !known.includes(e));
  if (missing.length) await fail(`${s.name}: the hook command has no ${missing.join(', ')} handler (it lists ${known.join(', ')}), so those hooks cannot be measured`);
  log(`${s.name}: hook command handles ${known.join(', ')}`);
}

// ---------------------------------------------------------------------------------------------
// Workload replay

function transcriptLine(type, sessionId, text, model) {
  const message = type === 'user' ? { role: 'user', content: text } : { id: `msg_${Math.random().toString(36).slice(2)}`, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 100, output_tokens: 50 } };
  return `${JSON.stringify({ type, sessionId, uuid: `${type}-${Math.random().toString(36).slice(2)}`, timestamp: new Date().toISOString(), message })}\n`;
}

async function baselineNode() {
  const r = await timed(process.execPath, ['-e', '0'], { env: process.env });
  baseline.push(r.ms);
}

async function runHook(side, inst, event, input) {
  const res = R[side.name];
  const r = await side.hook(inst, event, input);
  let okJson = true;
  if (r.stdout.trim()) {
    try {
      JSON.parse(r.stdout);
    } catch {
      okJson = false;
    }
  }
  if (r.code !== 0 || !okJson) {
    // A failed hook did not do its work: counted and reported, not timed.
    res.hookFailures[event] = (res.hookFailures[event] ?? 0) + 1;
    res.hookFailureSample ??= `${event}: exit ${r.code}${okJson ? '' : ', stdout not JSON'}: ${(r.stderr || r.stdout).replace(/\s+/g, ' ').trim().slice(0, 200)}`;
    if ((res.hookFailures[event] ?? 0) <= 2) log(`${side.name} hook ${event} exit ${r.code}${okJson ? '' : ' (stdout not JSON)'}: ${(r.stderr || r.stdout).slice(0, 300)}`);
    // The work still has to happen for the rest of the run to compare like with like.
    await side.httpEvent(inst, event, input);
  } else (res.hooks[event] ??= []).push(r.ms);
  return r;
}

/**
 * One session, in order. plan.hooks: lifecycle events through the hook command (else their HTTP
 * request); plan.toolHooks: that many tool uses through the hooks, the rest through the HTTP route.
 */
async function replaySession(side, inst, session, transcriptDir, plan) {
  const res = R[side.name];
  const transcript = path.join(transcriptDir, `${session.sessionId}.jsonl`);
  fs.writeFileSync(transcript, '');
  const base = { session_id: session.sessionId, transcript_path: transcript, cwd: session.cwd };
  const event = async (name, input, viaHook) => {
    if (viaHook) return runHook(side, inst, name, input);
    const r = await side.httpEvent(inst, name, input);
    if (r && r.status >= 300) res.errors.push(`${name} over HTTP -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    return r;
  };
  if (plan.hooks) await baselineNode();
  await event('context', { ...base, hook_event_name: 'SessionStart', source: 'startup' }, plan.hooks);
  let i = 0;
  let last;
  for (const p of session.prompts) {
    const common = { ...base, prompt_id: `${p.marker}-id`, permission_mode: 'default' };
    fs.appendFileSync(transcript, transcriptLine('user', session.sessionId, p.text));
    await event('session-init', { ...common, hook_event_name: 'UserPromptSubmit', prompt: p.text }, plan.hooks);
    for (const u of p.toolUses) {
      const post = { ...common, hook_event_name: 'PostToolUse', tool_name: u.tool_name, tool_input: u.tool_input, tool_response: u.tool_response, tool_use_id: u.tool_use_id, duration_ms: 40 };
      if (i < plan.toolHooks) {
        if (u.tool_name === 'Read') await runHook(side, inst, 'file-context', { ...common, hook_event_name: 'PreToolUse', tool_name: u.tool_name, tool_input: u.tool_input, tool_use_id: u.tool_use_id });
        await runHook(side, inst, 'observation', post);
      } else {
        const t0 = performance.now();
        const r = await side.postObservation(inst, post);
        res.httpObservation.push(performance.now() - t0);
        if (r.status >= 300) res.errors.push(`POST observation -> ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      }
      last = u;
      i++;
    }
    fs.appendFileSync(transcript, transcriptLine('assistant', session.sessionId, p.assistantMessage, 'claude-sonnet-4-5'));
    await event('summarize', { ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: p.assistantMessage }, plan.hooks);
  }
  if (plan.hooks) await baselineNode();
  await event('session-end', { ...base, hook_event_name: 'SessionEnd', reason: session.endReason }, plan.hooks);
  return last;
}

/** From the last event on: until the store holds every expected observation and the newest one is found by keyword. */
async function waitSearchable(side, inst, expected, last, expectedSummaries) {
  const t0 = performance.now();
  let c = { observations: 0 };
  let found = false;
  let searchableMs = NaN;
  while (performance.now() - t0 < SEARCHABLE_TIMEOUT_MS) {
    c = await side.counts(inst).catch(() => c);
    if (c.observations >= expected) {
      // The newest observation as the side stored it (ours may keep a local note's title), else the model's.
      const want = side.newestTitle ? await side.newestTitle(inst).catch(() => undefined) : last.observation.title;
      const s = await side.search(inst, last.symbol, undefined, 10).catch(() => ({ titles: [] }));
      found = want !== undefined && s.titles.includes(want);
      if (found) {
        searchableMs = performance.now() - t0;
        break;
      }
    }
    await sleep(20);
  }
  // Let the rest of the background work (summaries) finish so its model calls are counted.
  const t1 = performance.now();
  while (performance.now() - t1 < 60_000) {
    c = await side.counts(inst).catch(() => c);
    if (c.idle && c.summaries >= expectedSummaries) break;
    await sleep(200);
  }
  return { searchableMs, observations: c.observations, summaries: c.summaries, expected };
}

// Round 1: the first third of the sessions; round 2: the rest. Round 2's plan (which sessions go
// through the hook commands) is chosen from round 1's measured costs so the command stays inside
// its budget; the same plan applies to both sides.
const cut = Math.ceil(workload.sessions.length / 3);
const rounds = [workload.sessions.slice(0, cut), workload.sessions.slice(cut)];
const fullPlan = { hooks: true, toolHooks: HOOK_TOOLS };
const plans = [rounds[0].map(() => fullPlan), null];
const wlDirs = {};
const replayed = {};
const roundCost = {}; // side -> { perHookMs, perHttpMs, overheadMs }
const RESERVE_AFTER_WORKLOAD_S = QUICK ? 240 : 300; // ingest + drain + fixture + report: 175-250 s measured on the loaded 2-core machine

function planRound2() {
  const sessions = rounds[1];
  const remaining = BUDGET_S - elapsedS() - RESERVE_AFTER_WORKLOAD_S;
  const cost = (k) => {
    let total = 0;
    for (const side of sides) {
      const c = roundCost[side.name];
      if (!c) continue;
      total += c.overheadMs / 1000;
      sessions.forEach((s, idx) => {
        const tools = s.prompts.reduce((a, p) => a + p.toolUses.length, 0);
        const lifecycle = 2 + 2 * s.prompts.length;
        const hooked = idx < k ? lifecycle + Math.min(HOOK_TOOLS, tools) * 1.25 : 0;
        const http = tools - (idx < k ? Math.min(HOOK_TOOLS, tools) : 0) + (idx < k ? 0 : lifecycle);
        total += (hooked * c.perHookMs + http * c.perHttpMs) / 1000;
      });
    }
    // Round 2's workers hold more data and longer model conversations, and the machine's load
    // moves: measured round-2 costs ran up to ~1.5x the round-1 estimate while this was built.
    return total * 1.5;
  };
  let k = sessions.length;
  while (k > 0 && cost(k) > remaining) k--;
  log(`round 2 plan: ${k} of ${sessions.length} sessions through the hook commands (estimated ${cost(k).toFixed(0)} s of ${remaining.toFixed(0)} s left for the workload)`);
  if (k < sessions.length) notes.push(`time budget (${BUDGET_S} s): in round 2 only ${k} of ${sessions.length} sessions went through the hook commands on both sides, the rest straight to the HTTP routes (in round 1 a hook run cost ${sides.map((sd) => `${sd.name} ${(roundCost[sd.name]?.perHookMs ?? NaN).toFixed(0)} ms`).join(', ')} on average)`);
  return sessions.map((_, idx) => (idx < k ? fullPlan : { hooks: false, toolHooks: 0 }));
}

for (let r = 0; r < rounds.length; r++) {
  if (r === 1) plans[1] = planRound2();
  for (const side of sides) {
    const res = R[side.name];
    wlDirs[side.name] ??= dirsFor(side, 'workload');
    const transcriptDir = path.join(tmp, `${side.name}-transcripts`);
    fs.mkdirSync(transcriptDir, { recursive: true });
    let inst;
    const tRound = performance.now();
    const hooksBefore = Object.values(res.hooks).reduce((a, v) => a + v.length, 0);
    const hookMsBefore = Object.values(res.hooks).reduce((a, v) => a + v.reduce((x, y) => x + y, 0), 0);
    const httpBefore = res.httpObservation.length;
    try {
      inst = await start(side, wlDirs[side.name]);
      res.provider = inst.provider;
      (r === 0 ? res.coldEmpty : res.coldData).push(inst.healthMs);
      (r === 0 ? res.coldEmptyReady : res.coldDataReady).push(inst.readyMs);
      log(`${side.name}: round ${r + 1} worker healthy in ${inst.healthMs.toFixed(0)} ms, ready in ${inst.readyMs.toFixed(0)} ms (${r === 0 ? 'empty' : 'with round 1 data'}); replaying ${rounds[r].length} sessions`);
      let last;
      for (const [idx, s] of rounds[r].entries()) {
        last = await replaySession(side, inst, s, transcriptDir, plans[r][idx]);
        replayed[side.name] = (replayed[side.name] ?? 0) + s.prompts.reduce((a, p) => a + p.toolUses.length, 0);
      }
      const promptsSoFar = workload.sessions.slice(0, r === 0 ? cut : workload.sessions.length).reduce((a, s) => a + s.prompts.length, 0);
      const w = await waitSearchable(side, inst, replayed[side.name], last, promptsSoFar);
      res.searchable.push(w);
      res.stored = { observations: w.observations, summaries: w.summaries };
      log(
        `${side.name}: round ${r + 1} replayed; every observation searchable after ${Number.isFinite(w.searchableMs) ? `${w.searchableMs.toFixed(0)} ms` : `NOT within ${SEARCHABLE_TIMEOUT_MS / 1000} s`} (${w.observations}/${w.expected} observations, ${w.summaries} summaries)`,
      );
      if (r === rounds.length - 1) await endOfWorkload(side, inst);
    } catch (e) {
      res.errors.push(`workload round ${r + 1}: ${e.message}`);
      log(`${side.name}: workload round ${r + 1} failed: ${e.stack ?? e}`);
    } finally {
      if (inst) await stop(inst);
      await addModelStats(side);
    }
    if (r === 0) {
      const hooks = Object.values(res.hooks).reduce((a, v) => a + v.length, 0) - hooksBefore;
      const hookMs = Object.values(res.hooks).reduce((a, v) => a + v.reduce((x, y) => x + y, 0), 0) - hookMsBefore;
      const http = res.httpObservation.slice(httpBefore);
      const perHookMs = hooks ? hookMs / hooks : 1000;
      const perHttpMs = http.length ? http.reduce((a, b) => a + b, 0) / http.length : 20;
      const roundMs = performance.now() - tRound;
      // Start, settle, stop and the end-of-workload searches scale with the data: count them twice for round 2.
      roundCost[side.name] = { perHookMs, perHttpMs, overheadMs: 2 * Math.max(0, roundMs - hookMs - http.reduce((a, b) => a + b, 0)) };
    }
  }
}

async function endOfWorkload(side, inst) {
  const res = R[side.name];
  // Latency is compared at rest: let our local embedder finish indexing the workload first (its
  // cost shows in the RSS row and in the time reported here).
  if (side.waitVectors) {
    const v = await side.waitVectors(inst, 90_000);
    res.embedBacklogMs = v.ok ? v.ms : NaN;
    log(`${side.name}: local embedding index ${v.ok ? `caught up ${(v.ms / 1000).toFixed(1)} s after the observations were searchable` : `not caught up after ${(v.ms / 1000).toFixed(0)} s`}`);
  }
  // Is the worker at rest? CPU it burns over 2 s with no requests (background work left over).
  const cpu0 = treeCpuMs(inst.pid);
  await sleep(2000);
  res.idleCpuPct = ((treeCpuMs(inst.pid) - cpu0) / 2000) * 100;
  // Which tool use each search result came from: by the side's own mapping where it has one (ours:
  // local notes keep local titles), else by the fake model's titles (every claude-mem observation).
  const titleToId = new Map(toolUses.map((u) => [u.observation.title, u.id]));
  let answerOf = (title) => titleToId.get(title);
  let mapped = true;
  if (side.answerKeys) {
    try {
      const { map, byTitle } = await side.answerKeys(inst, workload);
      answerOf = (title, key) => map.get(key);
      log(`${side.name}: ${map.size} observations matched to tool uses in order, ${byTitle} of them with the model's title`);
    } catch (e) {
      mapped = false;
      res.recallUnmapped = e.message;
      res.errors.push(`workload recall: ${e.message}`);
      notes.push(`${side.name}: recall on the workload questions not measured: ${e.message}`);
    }
  }
  const projects = workload.projects;
  const topicQueries = [];
  for (const s of workload.sessions) {
    for (const p of s.prompts) {
      if (!topicQueries.some((t) => t.query === p.topic && t.project === s.project)) topicQueries.push({ query: p.topic, project: s.project });
    }
  }
  const phrase = (q) => {
    const u = toolUses.find((t) => t.id === q.answers[0]);
    return u.detail.text; // a contiguous phrase of the answer's facts
  };
  const sets = {
    keyword: workload.questions.map((q) => ({ ...q })),
    phrase: workload.questions.map((q) => ({ ...q, query: phrase(q) })),
  };
  for (let rep = 0; rep < SEARCH_REPS; rep++) {
    for (const [name, qs] of Object.entries(sets)) {
      let hits = 0;
      let total = 0;
      for (const q of qs) {
        const t0 = performance.now();
        const r = await side.search(inst, q.query, q.project, 5);
        res.searchLat.push(performance.now() - t0);
        ((res.searchLatBySet ??= {})[name] ??= []).push(performance.now() - t0);
        if (typeof r.raw?.body?.tookMs === 'number') (res.searchServerMs ??= []).push(r.raw.body.tookMs);
        if (r.status !== 200) res.errors.push(`search "${q.query}" -> ${r.status}`);
        if (rep === 0) {
          const ids = r.titles.slice(0, 5).map((t, i) => answerOf(t, r.keys[i]));
          hits += q.answers.filter((a) => ids.includes(a)).length / q.answers.length;
          total++;
        }
      }
      if (rep === 0) res.recall[`workload-${name}`] = { recall: mapped ? hits / total : NaN, questions: total };
    }
    for (const q of topicQueries) {
      const t0 = performance.now();
      await side.search(inst, q.query, q.project, 5);
      res.searchLat.push(performance.now() - t0);
      ((res.searchLatBySet ??= {}).topic ??= []).push(performance.now() - t0);
    }
  }
  for (let rep = 0; rep < CONTEXT_REPS; rep++) {
    for (const p of projects) {
      const t0 = performance.now();
      const r = await side.context(inst, p);
      res.contextLat.push(performance.now() - t0);
      if (rep === 0) res.contextChars.push(r.chars);
      if (r.status !== 200) res.errors.push(`context ${p} -> ${r.status}`);
    }
  }
  const rss = treeRss(inst.pid);
  res.rss = rss.bytes;
  res.rssProcesses = rss.processes;
  log(
    `${side.name}: CPU at rest before the searches ${res.idleCpuPct.toFixed(0)}%; search p50 ${median(res.searchLat).toFixed(2)} ms, context p50 ${median(res.contextLat).toFixed(2)} ms, recall@5 keyword ${res.recall['workload-keyword']?.recall.toFixed(2)} phrase ${res.recall['workload-phrase']?.recall.toFixed(2)}, RSS ${(rss.bytes / 1e6).toFixed(0)} MB in ${rss.processes} process(es)`,
  );
  // Idle: what the worker holds once nothing has asked it anything for IDLE_MS (the same wait on
  // both sides); the largest RSS of the tree over the last 5 s of it, so a process about to exit
  // and one about to start both count.
  res.idleWaitMs = IDLE_MS;
  await sleep(Math.max(0, IDLE_MS - 5000));
  let idle = { bytes: 0, processes: 0 };
  for (let i = 0; i < 10; i++) {
    const x = treeRss(inst.pid);
    if (x.bytes > idle.bytes) idle = x;
    await sleep(500);
  }
  res.rssIdle = idle.bytes;
  res.rssIdleProcesses = idle.processes;
  log(`${side.name}: RSS idle, ${IDLE_MS / 1000} s after the last request: ${(idle.bytes / 1e6).toFixed(0)} MB in ${idle.processes} process(es)`);
}

// ---------------------------------------------------------------------------------------------
// Ingest at concurrency 8 (fresh workers, A B A B); each start is also a cold start sample

const INGEST_SESSIONS = 8;
for (let rep = 0; rep < 2; rep++) {
  for (const side of sides) {
    const res = R[side.name];
    let inst;
    try {
      inst = await start(side, dirsFor(side, `ingest-${rep}`));
      res.coldEmpty.push(inst.healthMs);
      res.coldEmptyReady.push(inst.readyMs);
      const sess = Array.from({ length: INGEST_SESSIONS }, (_, k) => {
        const proj = workload.projects[k % workload.projects.length];
        return { sessionId: `ingest-${rep}-${k}`, cwd: path.join(workload.root, proj), project: proj, prompt: `ingest benchmark session ${k}` };
      });
      for (const s of sess) await side.initSession(inst, s);
      // Every request a distinct tool use: the workload's, its trace id given a nonce (the fake still knows it).
      const body = (i) => {
        const u = toolUses[i % toolUses.length];
        const s = sess[i % INGEST_SESSIONS];
        const nonce = (x) => JSON.parse(JSON.stringify(x).replaceAll(u.id, `${u.id}~r${rep}i${i}`));
        return { session_id: s.sessionId, cwd: s.cwd, hook_event_name: 'PostToolUse', tool_name: u.tool_name, tool_input: nonce(u.tool_input), tool_response: nonce(u.tool_response), tool_use_id: `ingest-${rep}-${i}` };
      };
      // The HTTP floor of an idle fresh worker (the same route on both: no storage, no auth on either).
      const floor = await loadRun(() => inst.c.req('GET', '/api/health'), 300, 8);
      res.healthFloor = [...(res.healthFloor ?? []), floor];
      const warmEnd = performance.now() + 5000;
      const warm = await loadRun((i) => side.postObservation(inst, body(100_000 + i)), 100, 8, () => performance.now() > warmEnd); // warm-up
      const deadline = performance.now() + INGEST_CAP_MS;
      const run = await loadRun((i) => side.postObservation(inst, body(i)), INGEST_N, 8, () => performance.now() > deadline);
      if (run.lat.length < INGEST_N) notes.push(`${side.name}: ingest round ${rep + 1} stopped at the ${INGEST_CAP_MS / 1000} s cap after ${run.lat.length} of ${INGEST_N} requests`);
      if (rep === 0) {
        // After the burst: how long until every acknowledged observation is compressed and stored.
        const expected = warm.lat.length + run.lat.length;
        const t0 = performance.now();
        let n = 0;
        while (performance.now() - t0 < DRAIN_CAP_MS) {
          n = (await side.counts(inst).catch(() => ({ observations: n }))).observations;
          if (n >= expected) break;
          await sleep(50);
        }
        res.drain = { ms: n >= expected ? performance.now() - t0 : NaN, stored: n, expected };
        log(`${side.name}: after the burst, ${n}/${expected} observations stored ${n >= expected ? `in ${(res.drain.ms / 1000).toFixed(1)} s` : `(not all within ${DRAIN_CAP_MS / 1000} s)`}`);
      }
      res.ingest.push(run);
      if (run.failures) res.errors.push(`ingest: ${run.failures} failed requests (first: ${run.firstError})`);
      log(`${side.name}: ingest c8 round ${rep + 1}: ${run.rps.toFixed(0)} req/s, p50 ${pct(run.lat, 50).toFixed(2)} ms, p99 ${pct(run.lat, 99).toFixed(2)} ms, ${run.failures} failed; cold start ${inst.healthMs.toFixed(0)} ms`);
    } catch (e) {
      res.errors.push(`ingest round ${rep + 1}: ${e.message}`);
      log(`${side.name}: ingest round ${rep + 1} failed: ${e.stack ?? e}`);
    } finally {
      if (inst) await stop(inst);
      await fake.reset();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Recall@5 on the search fixture

const fixture = loadSearchFixture(ROOT);
if (!fixture.ok) notes.push(`recall on the search fixture: not measured: ${fixture.reason}`);
else {
  log(`search fixture: ${fixture.observations.length} observations, ${fixture.questions.length} questions`);
  const stored = {};
  for (const side of sides) {
    const res = R[side.name];
    let inst;
    try {
      inst = await start(side, dirsFor(side, 'fixture'));
      const imp = await fixture.importInto(side, inst);
      if (!imp.ok) throw new Error(`import failed: ${imp.error}`);
      stored[side.name] = new Set(imp.titles);
      const ask = async (mode) => {
        const answers = [];
        for (const q of fixture.questions) {
          const r = await side.search(inst, q.question, q.project, 5, mode);
          answers.push({ q, keys: (r.keys ?? []).slice(0, 5) });
        }
        return answers;
      };
      res.fixtureAnswers = await ask('keyword');
      if (side.waitVectors) {
        // Our default mode is hybrid (keyword + local embeddings): give the embedder time to index the import.
        const v = await side.waitVectors(inst, Math.max(20, Math.min(120, BUDGET_S - elapsedS() - 60)) * 1000);
        if (v.ok) res.fixtureAnswersHybrid = await ask('hybrid');
        else notes.push(`${side.name}: hybrid recall on the fixture not measured: vector index not ready after ${(v.ms / 1000).toFixed(0)} s (${JSON.stringify(v.status?.embeddings ?? {})})`);
      }
    } catch (e) {
      res.errors.push(`fixture recall: ${e.message}`);
      log(`${side.name}: fixture recall failed: ${e.stack ?? e}`);
    } finally {
      if (inst) await stop(inst);
      await fake.reset();
    }
  }
  // Only questions whose answers are stored on every side that ran.
  const answerable = fixture.questions.filter((q) => sides.every((s) => q.answerTitles.every((t) => stored[s.name]?.has(t))));
  const recallOf = (answers) => {
    let sum = 0;
    for (const a of answers) {
      if (!answerable.includes(a.q)) continue;
      sum += a.q.answerTitles.filter((t) => a.keys.includes(t)).length / a.q.answerTitles.length;
    }
    return { recall: answerable.length ? sum / answerable.length : NaN, questions: answerable.length };
  };
  for (const side of sides) {
    const res = R[side.name];
    if (res.fixtureAnswers) res.recall.fixture = recallOf(res.fixtureAnswers);
    if (res.fixtureAnswersHybrid) res.recall['fixture-hybrid'] = recallOf(res.fixtureAnswersHybrid);
    log(`${side.name}: fixture recall@5 ${res.recall.fixture?.recall?.toFixed(2)}${res.recall['fixture-hybrid'] ? `, hybrid ${res.recall['fixture-hybrid'].recall.toFixed(2)}` : ''} on ${answerable.length} questions`);
  }
  if (answerable.length < fixture.questions.length) notes.push(`search fixture: ${fixture.questions.length - answerable.length} of ${fixture.questions.length} questions left out because a side could not store their answers`);
}

// ---------------------------------------------------------------------------------------------
// Report

const wallS = (performance.now() - started) / 1000;
const env = {
  date: startedAt.toISOString(),
  cpu: `${os.cpus()[0]?.model ?? '?'} x ${os.cpus().length}`,
  memGb: (os.totalmem() / 2 ** 30).toFixed(1),
  os: `${os.type()} ${os.release()}`,
  node: process.version,
  load: [loadStart, os.loadavg()],
  wallS,
  quick: QUICK,
  hookTools: HOOK_TOOLS,
  ingestN: INGEST_N,
  workload: { sessions: workload.sessions.length, prompts: workload.sessions.reduce((a, s) => a + s.prompts.length, 0), toolUses: toolUses.length, questions: workload.questions.length, seed: workload.seed },
  sides: Object.fromEntries(sides.map((s) => [s.name, { product: s.product, runtime: s.runtime, modelApi: s.modelApi }])),
};
const git = (args) => {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
};
env.commit = `${git(['rev-parse', '--short', 'HEAD']) || 'unknown commit'}${git(['status', '--porcelain', '--', 'worker', 'cli', 'extension', 'package.json']) ? ' plus uncommitted changes' : ''}`;
const rows = buildRows(R, baseline, sides.map((s) => s.name));
for (const side of sides) {
  const res = R[side.name];
  const failed = Object.entries(res.hookFailures);
  if (failed.length) {
    const runs = (e) => (res.hooks[e]?.length ?? 0) + (res.hookFailures[e] ?? 0);
    notes.push(`${side.name}: hook runs that failed (not timed; their request was then sent over HTTP): ${failed.map(([e, n]) => `${e} ${n} of ${runs(e)}`).join(', ')}; first: ${res.hookFailureSample}`);
  }
  if (res.errors.length) notes.push(`${side.name}: ${res.errors.length} problem(s): ${[...new Set(res.errors)].slice(0, 5).join(' | ')}`);
}
fs.writeFileSync(path.join(outDir, 'results.json'), JSON.stringify({ env, rows, results: R, baseline, notes }, (k, v) => (v instanceof Set ? [...v] : v), 2));
console.log('\n' + formatTable(rows, env));
if (notes.length) console.log('\nNot measured / problems:\n' + notes.map((n) => `- ${n}`).join('\n'));
console.log(`\nwall time ${wallS.toFixed(0)} s; raw results in ${path.relative(ROOT, path.join(outDir, 'results.json'))}`);
if (WRITE_DOCS) {
  writeDocs(path.join(outDir, 'report.md'), rows, env, notes);
  console.log(`wrote ${path.relative(ROOT, path.join(outDir, 'report.md'))}`);
}
await cleanup();
// A hook run that failed was counted, not timed, and its work sent over HTTP so the rest of the run
// compares like with like; the run still fails, since that hook was not measured.
const hookFailed = sides.filter((s) => Object.keys(R[s.name].hookFailures).length > 0);
if (hookFailed.length) {
  console.error(`bench:compare failed: hook runs failed on ${hookFailed.map((s) => s.name).join(' and ')} (see "Not measured / problems" above)`);
  process.exit(1);
}
// Recall on the workload questions from results that cannot be traced to a tool use is no figure.
const unmapped = sides.filter((s) => R[s.name].recallUnmapped);
if (unmapped.length) {
  console.error(`bench:compare failed: ${unmapped.map((s) => `${s.name}'s search results could not be matched to the workload's tool uses: ${R[s.name].recallUnmapped}`).join('; ')}`);
  process.exit(1);
}
process.exit(0);
