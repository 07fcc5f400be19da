// Runs the test files under test/ with node's built-in runner, several files at once, and prints
// one summary (# tests / # pass / # fail) for the whole run.
//
//   node test/run.mjs                       every tier: unit, integration, faults, e2e, eval, e2e-memory
//   node test/run.mjs --tier unit           one tier (repeat --tier for more); a tier is a folder
//   node test/run.mjs search store          files whose path contains any of the substrings
//                                           (eval/ only when a substring names it)
//   options: --jobs N (files at once; default: one more than the CPUs, or TEST_JOBS)
//            --setup  install the test tools (`scripts/test-setup.sh tools`: code-server, Claude
//                     Code) while the files that do not need them run (what `npm test` does)
//
// One file alone: `node --require ./test/ts.cjs --test test/unit/foo.test.ts` (the same hook; the
// files it loads that the cache does not hold yet are compiled in that process).
//
// Each file runs in its own process (`node --require test/ts.cjs --test-reporter=tap <file>`): the
// TypeScript is compiled here once, before the first file starts, into the cache test/ts.cjs reads
// (.cache/ts/, named by each source's hash), so a test process only loads compiled files. Its
// output is printed in one piece when it ends, with its own summary replaced by one line. Files
// run at once unless they share something: the groups below run one file of the group at a time.
// Files known to be long start first, so that the run ends when the longest file does, not after it.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const testDir = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(testDir, '..');
const TIERS = ['unit', 'integration', 'faults', 'e2e', 'eval', 'e2e-memory'];

/**
 * Files that share something with other files of their group: at most one of a group runs at a
 * time. Paths are relative to test/ (a prefix names a folder).
 */
const GROUPS = {
  // A code-server and Chromium per file: about 1 GB and both cores while a window loads.
  'code-server': ['e2e/'],
};

/**
 * Files that run with no other file at once, after the others. claude-code misbehaved beside other
 * files in a concurrent run on a machine at load average 10-24 and passed alone (a search over MCP
 * timed out at 30 s; cause not found).
 */
const ALONE = ['integration/claude-code.test.ts'];

/**
 * Files that take minutes, started first, in this order: the longest chain first, so that the run
 * ends when the CPU work does, not with one long file left alone on one core (the 10-minute SSE
 * soak, mostly waiting; the memory eval, which replays hundreds of hook processes; the search evals).
 * Then the unit tier's longest (15-35 s each, where its other files take 1-10 s), so that
 * `--tier unit` does not end with one of them alone.
 */
const LONG = [
  'faults/soak.test.ts', 'e2e-memory/', 'eval/', 'faults/crash.test.ts', 'faults/damage-any.test.ts', 'faults/concurrency.test.ts', 'faults/fuzz.test.ts', 'e2e/', 'faults/damaged.test.ts', 'integration/claude-code.test.ts',
  'unit/store-cold-snapshot.test.ts', 'unit/privacy-construction.test.ts', 'unit/embed-lifecycle.test.ts', 'unit/search-membership.test.ts', 'unit/search-postings.test.ts', 'unit/search-topk.test.ts', 'unit/store-cold-journal.test.ts', 'unit/store-delta.test.ts', 'unit/search-keyword.test.ts', 'unit/context-budget.test.ts',
];

/**
 * Files that mostly wait, run beside the others without taking one of the --jobs places: the SSE
 * soak paces its load to a sixth of a core for ten minutes; in a place of its own it would leave
 * most of a core idle for all that time.
 */
const LIGHT = ['faults/soak.test.ts'];

/**
 * Files whose background work runs at their own priority (CLAUDE_MEM_BACKGROUND_NICE=0): the search
 * evals, one after the other the longest chain of the run, spend most of their CPU in the sentence
 * encoder, which the product runs at nice 10. Beside the other files that took it only what they
 * left idle: search-eval-models took 607 s for 82 CPU s in a full run.
 */
const FOREGROUND = ['eval/'];

/**
 * Files that need what `scripts/test-setup.sh tools` installs (code-server and Node 24, Claude
 * Code) and the packaged .vsix: with --setup they wait for it, the other files do not.
 */
const NEEDS_TOOLS = ['e2e/', 'integration/claude-code.test.ts', 'integration/claudeCodeHarness.test.ts'];

const args = process.argv.slice(2);
const tiers = [];
const substrings = [];
// One more than the CPUs: most files spend much of their time waiting (on a worker starting, a
// poll), so a CPU is rarely idle for lack of a file to run.
let jobs = Number(process.env.TEST_JOBS) || os.availableParallelism() + 1;
let setup = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--tier') tiers.push(...args[++i].split(','));
  else if (args[i] === '--jobs') jobs = Number(args[++i]);
  else if (args[i] === '--setup') setup = true;
  else substrings.push(args[i]);
}
for (const t of tiers) {
  if (!TIERS.includes(t)) {
    console.error(`unknown tier "${t}" (tiers: ${TIERS.join(', ')})`);
    process.exit(2);
  }
}
if (!(jobs >= 1)) {
  console.error('--jobs needs a number >= 1');
  process.exit(2);
}

const files = [];
const walk = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'fixtures' && e.name !== 'node_modules') walk(p);
    } else if (/\.test\.ts$/.test(e.name)) files.push(path.relative(testDir, p));
  }
};
walk(testDir);
const tierOf = (f) => f.split(path.sep)[0];
const selected = files
  .filter((f) => (tiers.length === 0 ? true : tiers.includes(tierOf(f))))
  .filter((f) => substrings.length === 0 || substrings.some((s) => f.includes(s) && (tierOf(f) !== 'eval' || s.includes('eval'))))
  .sort();
if (selected.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// The fault suite appends its results to test-artifacts/reliability/ and a report is made from
// them there: only a run that includes the whole fault suite starts them afresh.
const faults = files.filter((f) => tierOf(f) === 'faults');
const wholeFaultSuite = faults.length > 0 && faults.every((f) => selected.includes(f));
if (wholeFaultSuite) fs.rmSync(path.join(root, 'test-artifacts', 'reliability'), { recursive: true, force: true });

const needsTools = (f) => NEEDS_TOOLS.some((p) => f.startsWith(p));
const started = performance.now();

// How busy the whole machine was (all processes, from /proc/stat), per minute of the run: a run
// whose cores are not all busy can gain from more files at once, one that keeps them busy cannot.
const readCpu = () => {
  try {
    const v = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] ?? 0);
    return { busy: v.reduce((a, b) => a + b, 0) - idle, idle };
  } catch {
    return undefined;
  }
};
const cpuMinutes = [];
let cpuMark = readCpu();
const cpuTimer = cpuMark
  ? setInterval(() => {
      const now = readCpu();
      const busy = now.busy - cpuMark.busy;
      const all = busy + now.idle - cpuMark.idle;
      cpuMinutes.push(all > 0 ? (busy / all) * os.availableParallelism() : 0);
      cpuMark = now;
    }, 60_000).unref()
  : undefined;

// The workers the files start keep their V8 code cache (worker/loader.ts) in one folder made for
// this run and removed at its end, instead of in each one's fresh data dir: each start then loads
// the compiled worker made by the first (about 0.3 CPU s a start), and no run reads what an
// earlier one left.
const runCache = process.env.CLAUDE_MEM_CODE_CACHE_DIR ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'claude-mem-test-run-'));
if (runCache) process.env.CLAUDE_MEM_CODE_CACHE_DIR = runCache;

// Every temp dir the files make (data dirs, stores, repos, clusters: hundreds a run, some hundreds
// of MB in all) goes into one folder made for this run and removed at its end, so runs do not
// fill the machine's temp folder. Open to all like /tmp: PostgreSQL runs as its own user.
const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-mem-test-tmp-'));
fs.chmodSync(runTmp, 0o1777);
process.env.TMPDIR = runTmp;

/** Runs a command to its end; resolves to its exit code and what it printed. */
function runStep(cmd, cmdArgs, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code, signal) => resolve({ ok: code === 0, out: out + (code === 0 ? '' : `(${cmd} ${cmdArgs.join(' ')}: ${signal ?? `exit ${code}`})\n`) }));
  });
}

// The e2e suites install a .vsix; package it once here instead of once per suite (each would
// rebuild dist/ while other files read it). dist/ is rebuilt before any file starts; the package
// is made (and with --setup the tools installed, at the same time) while the files that do not
// need them run.
const steps = [];
if (setup && selected.some(needsTools)) {
  steps.push(() => runStep('bash', [path.join(root, 'scripts', 'test-setup.sh'), 'tools']));
}
if (selected.some((f) => tierOf(f) === 'e2e') && !process.env.CLAUDE_MEM_VSIX) {
  const out = path.join(root, '.cache', 'e2e', 'claude-mem-vscode.vsix');
  const env = { ...process.env, NODE_OPTIONS: '' };
  const r = spawnSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`esbuild.config.mjs failed (exit ${r.status}): the e2e suites need the .vsix`);
    process.exit(1);
  }
  steps.push(() => runStep(process.execPath, ['scripts/package.mjs', '--out', out, '--quiet'], env));
  process.env.CLAUDE_MEM_VSIX = out;
}
/** Settles when the tools and the .vsix are ready: ok false (with what the failed step printed) if a step failed. */
let tools = { done: steps.length === 0, ok: true, out: '' };
const toolsReady = (async () => {
  // The tools and the .vsix need nothing of each other: made at once.
  for (const r of await Promise.all(steps.map((step) => step()))) {
    tools.out += r.out;
    if (!r.ok) tools.ok = false;
  }
  tools.done = true;
  if (steps.length > 0) process.stdout.write(`${tools.out.replace(/\n*$/, '\n')}# tools and .vsix for ${selected.filter(needsTools).length} files: ${tools.ok ? 'ready' : 'FAILED'} after ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
})();

// No test may change a tracked file or leave an untracked one outside the ignored folders.
const gitStatus = () => {
  const r = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout : undefined;
};
const statusBefore = gitStatus();

const groupOf = (f) => Object.keys(GROUPS).find((g) => GROUPS[g].some((p) => f.startsWith(p)));
const isLong = (f) => LONG.some((p) => f.startsWith(p));
const isAlone = (f) => ALONE.includes(f);
const isLight = (f) => LIGHT.includes(f);
const longRank = (f) => LONG.findIndex((p) => f.startsWith(p));
const queue = [...selected.filter((f) => isLong(f) && !isAlone(f)).sort((a, b) => longRank(a) - longRank(b)), ...selected.filter((f) => !isLong(f) && !isAlone(f)), ...selected.filter(isAlone)];

const SUMMARY = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)\s*$/;
const totals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failedFiles = [];
/** What each failed test said (its `not ok` line and diagnostics), repeated at the end of the run. */
const failureNotes = [];
/** [file, wall s, CPU s] of each file, for the list of the heaviest at the end. */
const costs = [];
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
let cpuTotal = 0;

/** The hook that loads a test file's TypeScript (and the .ts files it imports) from the cache. */
const HOOK = path.join(testDir, 'ts.cjs');

// Every .ts file a test process may load, compiled here at once (one esbuild service, all cores)
// unless the cache holds it already: the repository's sources, helpers and fixtures, and the
// selected test files (a test file imports no other).
{
  const t0 = performance.now();
  const sources = [];
  const walkTs = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walkTs(p);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts')) sources.push(p);
    }
  };
  for (const d of ['common', 'worker', 'cli', 'extension', 'media', 'bench', 'test']) walkTs(path.join(root, d));
  sources.push(...selected.map((f) => path.join(testDir, f)));
  try {
    const { compiled, errors } = await createRequire(import.meta.url)(HOOK).compileAll(sources);
    console.log(`# TypeScript: ${sources.length} files, ${compiled} compiled into .cache/ts/ in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${sources.length - compiled - errors.length} there already`);
    // A file that does not compile fails the test files that load it, with esbuild's message.
    for (const e of errors) console.log(`# TypeScript: does not compile: ${e}`);
  } catch (e) {
    console.log(`# TypeScript: not compiled ahead (each test process compiles what it loads): ${String(e.message ?? e).split('\n')[0]}`);
  }
}

function runFile(f) {
  if (needsTools(f) && !tools.ok) {
    // Not run: what it needs is not there. Counted as one failed test, with the step's output.
    totals.tests += 1;
    totals.fail += 1;
    failedFiles.push(f);
    failureNotes.push(`# test/${f}: not run: the tools or the .vsix it needs failed to install (output above)`);
    process.stdout.write(`# file test/${f}: FAILED (not run: the tools or the .vsix it needs failed to install)\n`);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const t0 = performance.now();
    const cmd = [process.execPath, '--require', HOOK, '--test-reporter=tap', path.join(testDir, f)];
    // GNU time adds the file's CPU seconds (its processes and the ones they waited for).
    const env = FOREGROUND.some((p) => f.startsWith(p)) ? { ...process.env, CLAUDE_MEM_BACKGROUND_NICE: '0' } : process.env;
    const child = TIME ? spawn(TIME, ['-f', '# cpu_s %U %S', ...cmd], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }) : spawn(cmd[0], cmd.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code, signal) => {
      const counts = {};
      const kept = [];
      let cpu;
      for (const line of out.split('\n')) {
        const m = SUMMARY.exec(line);
        const c = /^# cpu_s ([\d.]+) ([\d.]+)\s*$/.exec(line);
        if (m) counts[m[1]] = Number(m[2]);
        else if (c) cpu = Number(c[1]) + Number(c[2]);
        else if (!/^Command (exited with non-zero status|terminated by signal)/.test(line)) kept.push(line);
      }
      if (cpu !== undefined) cpuTotal += cpu;
      for (const k of Object.keys(totals)) totals[k] += counts[k] ?? 0;
      // A file that dies outside a test (a syntax error, a crash) reports no failed test.
      let fail = counts.fail ?? 0;
      if ((code !== 0 || signal) && fail === 0) {
        fail = 1;
        totals.fail += 1;
        totals.tests += 1;
      }
      if (fail > 0) {
        failedFiles.push(f);
        failureNotes.push(`# test/${f}:\n${failures(kept).join('\n') || `(no failed test reported; ${signal ?? `exit ${code}`})\n${kept.slice(-20).join('\n')}`}`);
      }
      costs.push([f, (performance.now() - t0) / 1000, cpu]);
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      const at = ((t0 - started) / 1000).toFixed(0);
      const line = `# file test/${f}: ${fail > 0 ? 'FAILED' : 'ok'} (pass ${counts.pass ?? 0}, fail ${fail}, skipped ${counts.skipped ?? 0}; ${s} s from ${at} s${cpu !== undefined ? `, ${cpu.toFixed(1)} CPU s` : ''}${signal ? `; ${signal}` : code ? `; exit ${code}` : ''})`;
      process.stdout.write(kept.join('\n').replace(/\n*$/, '\n') + line + '\n');
      resolve();
    });
  });
}

/**
 * The failed tests of a file's TAP output: each `not ok` line with its diagnostics (the YAML block
 * up to its `...`), at most 40 lines each, without the suites that only failed because of them.
 */
function failures(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*not ok /.test(lines[i])) continue;
    const block = [lines[i]];
    for (let j = i + 1; j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]); j++) block.push(lines[j]);
    if (block.some((l) => /failureType: '?subtestsFailed/.test(l))) continue;
    out.push(...block.slice(0, 40), ...(block.length > 40 ? [`  (${block.length - 40} more lines above in the file's output)`] : []));
  }
  return out;
}

// A pool of `jobs` places; a file waits while another file of its group runs. A light file starts
// at once and takes no place.
const busyGroups = new Set();
let running = 0;
let runningLight = 0;
await new Promise((done) => {
  const start = (f) => {
    const g = isAlone(f) ? 'alone' : groupOf(f);
    if (g) busyGroups.add(g);
    if (isLight(f)) runningLight++;
    else running++;
    runFile(f).then(() => {
      if (isLight(f)) runningLight--;
      else running--;
      if (g) busyGroups.delete(g);
      next();
    });
  };
  const next = () => {
    if (queue.length === 0 && running === 0 && runningLight === 0) return done();
    for (let i; (i = queue.findIndex((f) => isLight(f) && !busyGroups.has('alone'))) >= 0; ) start(queue.splice(i, 1)[0]);
    while (running < jobs) {
      // A file that runs alone waits for the others to end, and nothing starts beside it.
      if (busyGroups.has('alone')) break;
      const i = queue.findIndex((f) => !busyGroups.has(groupOf(f)) && (!isAlone(f) || running + runningLight === 0) && (tools.done || !needsTools(f)));
      if (i < 0) break;
      start(queue.splice(i, 1)[0]);
    }
  };
  void toolsReady.then(next);
  next();
});

if (runCache) fs.rmSync(runCache, { recursive: true, force: true });
fs.rmSync(runTmp, { recursive: true, force: true });
if (wholeFaultSuite) spawnSync(process.execPath, [path.join(root, 'scripts', 'reliability-report.mjs')], { stdio: 'inherit' });
const statusAfter = gitStatus();
if (statusBefore !== undefined && statusAfter !== statusBefore) {
  const before = new Set(statusBefore.split('\n'));
  const changed = statusAfter.split('\n').filter((l) => l && !before.has(l));
  console.log(`not ok - the run left the working tree changed (git status --porcelain):\n${changed.map((l) => `#   ${l}`).join('\n') || '#   (files changed back to how they were committed)'}`);
  totals.tests += 1;
  totals.fail += 1;
}
const wall = (performance.now() - started) / 1000;
if (TIME && costs.length > 10) {
  console.log('# the ten files that took the most CPU (wall s, CPU s):');
  for (const [f, w, c] of costs.filter((x) => x[2] !== undefined).sort((a, b) => b[2] - a[2]).slice(0, 10)) console.log(`#   test/${f}: ${w.toFixed(1)} s, ${c.toFixed(1)} CPU s`);
}
if (cpuTimer) {
  clearInterval(cpuTimer);
  const mean = cpuMinutes.length ? cpuMinutes.reduce((a, b) => a + b, 0) / cpuMinutes.length : 0;
  if (cpuMinutes.length > 0) console.log(`# machine CPU busy (cores of ${os.availableParallelism()}), per minute: ${cpuMinutes.map((c) => c.toFixed(1)).join(' ')}; mean ${mean.toFixed(2)}`);
}
if (failureNotes.length > 0) console.log(`# what failed, once more:\n${failureNotes.join('\n')}`);
console.log(`# files ${selected.length} (${jobs} at once${TIME ? `, ${cpuTotal.toFixed(0)} CPU s` : ''}), ${failedFiles.length} failed${failedFiles.length ? ': ' + failedFiles.map((f) => `test/${f}`).join(', ') : ''}`);
for (const [k, v] of Object.entries(totals)) console.log(`# ${k} ${v}`);
console.log(`# duration_ms ${(wall * 1000).toFixed(0)}`);
process.exit(totals.fail > 0 || failedFiles.length > 0 ? 1 : 0);
