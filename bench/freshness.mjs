// Freshness costs, two parts:
//
// 1. Fingerprinting on the hook path: whole-process wall time of `hook claude-code observation`
//    (the PostToolUse fixture, a Read of a file in a git repository with a commit) with and without
//    the fingerprint call, interleaved round-robin in the same run, beside a bare `node -e 0`.
//    While the observation handler does not call common/node/freshness/fingerprint.ts yet, the "with" bundle is
//    built here from the same sources with the call added where the lead will put it (the body of
//    POST /api/sessions/observations gets `citations: fingerprintToolUse(input)`); once it does,
//    the built dist/cli.js is timed with CLAUDE_MEM_FRESHNESS=0 (without) and unset (with).
//    Each variant has its own data dir (a copy of the worker's auth.token) so each keeps its own
//    V8 code cache. Bar: "with" p50 within 1.1x of "without".
// 2. The stale check for 1,000 cited files: a repository of 1,000 files each cited by one memory;
//    the client side (GET /api/freshness/cited, then fingerprints by the git index, finding moves)
//    and the worker side (POST /api/freshness/check), with 10 files changed; and the same when
//    every file's stat differs from the index (each file read and hashed: the worst case).
//
//   npm run build && node bench/freshness.mjs [--runs N] [--warmup N] [--files N] [--callgrind]
//
// --callgrind adds instructions per hook process under valgrind (median of 3, fixed V8 seeds), which
// machine load does not change: wall time on the shared 2-core machine swings by more than 10%.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { fmt, pct, ROOT, startWorker, tempDir } from './lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const RUNS = arg('--runs', 40);
const WARMUP = arg('--warmup', 5);
const FILES = arg('--files', 1000);
const baseEnv = { ...process.env };
delete baseEnv.NODE_EXTRA_CA_CERTS; // see bench/hooks.mjs
const GIT_ENV = { ...baseEnv, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
const git = (cwd, ...a) => execFileSync('git', a, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

const tmp = tempDir('bench-fresh-');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

// ---- the two hook bundles -------------------------------------------------------------------
const HANDLER = path.join(ROOT, 'cli', 'hooks', 'handlers', 'observation.ts');
const wired = fs.readFileSync(HANDLER, 'utf8').includes('fingerprintToolUse');

async function buildCli(outdir, patch) {
  const plugins = patch
    ? [
        {
          name: 'add-fingerprint',
          setup(b) {
            b.onLoad({ filter: /hooks[\\/]claude-code[\\/]observation\.ts$/ }, (a) => {
              const src = fs.readFileSync(a.path, 'utf8');
              const call = "    platform: 'claude-code',\n";
              if (!src.includes(call)) throw new Error(`${a.path} changed: put the fingerprint call in by hand`);
              const contents = `import { fingerprintToolUse } from '../../fingerprint';\n${src.replace(call, `${call}    citations: fingerprintToolUse(input),\n`)}`;
              return { contents, loader: 'ts' };
            });
          },
        },
      ]
    : [];
  const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, legalComments: 'none', define: { __VERSION__: JSON.stringify(pkg.version) }, external: ['vscode'], logLevel: 'warning' };
  await esbuild.build({ ...common, entryPoints: { cli: path.join(ROOT, 'cli/loader.ts') }, outdir });
  await esbuild.build({ ...common, entryPoints: { 'cli-main': path.join(ROOT, 'cli/main.ts') }, outdir, plugins });
  fs.writeFileSync(path.join(outdir, 'package.json'), '{ "type": "commonjs" }\n');
  return path.join(outdir, 'cli.js');
}

const variants = wired
  ? { without: { cli: path.join(ROOT, 'dist', 'cli.js'), env: { CLAUDE_MEM_FRESHNESS: '0' } }, with: { cli: path.join(ROOT, 'dist', 'cli.js'), env: {} } }
  : { without: { cli: await buildCli(path.join(tmp, 'cli-without'), false), env: {} }, with: { cli: await buildCli(path.join(tmp, 'cli-with'), true), env: {} } };

// ---- a project that is a git repository ------------------------------------------------------
const project = path.join(tmp, 'project');
fs.mkdirSync(project);
git(project, 'init', '-q', '-b', 'main');
fs.writeFileSync(path.join(project, 'notes.txt'), 'The mascot is a zebra.\n'.repeat(100));
for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(project, `f${i}.ts`), `export const v${i} = ${i};\n`);
git(project, 'add', '-A');
git(project, 'commit', '-q', '-m', 'initial');
git(project, 'checkout', '-q', '-b', 'feature');

const fixture = (i) =>
  fs
    .readFileSync(path.join(ROOT, 'test', 'fixtures', 'claude-code-hooks', 'PostToolUse.json'), 'utf8')
    .replaceAll('{{PROJECT_DIR}}', project)
    .replaceAll('{{HOME}}', tmp)
    .replaceAll('{{PROJECT_SLUG}}', 'bench')
    .replaceAll('{{SESSION_ID}}', `bench-session-${i}`)
    .replaceAll('{{PROMPT_ID}}', `prompt-${i}`)
    .replaceAll('toolu_fake0000', `toolu_bench${i}`);

const w = await startWorker({ env: { ANTHROPIC_API_KEY: '', CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
/** One retry: a keep-alive socket left idle (during valgrind runs) may have been closed by the worker. */
const req = async (...a) => {
  try {
    return await w.req(...a);
  } catch {
    return w.req(...a);
  }
};
const hookDir = (name) => {
  const d = path.join(tmp, `data-${name}`);
  fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  fs.copyFileSync(path.join(w.dataDir, 'auth.token'), path.join(d, 'auth.token'));
  return d;
};
const envOf = (name) => ({ ...baseEnv, CLAUDE_MEM_DATA_DIR: hookDir(name), CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1', ...variants[name].env });
const envs = { without: envOf('without'), with: envOf('with') };

async function drained() {
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    // A keep-alive socket left idle during a valgrind run may have been closed by the worker: retry.
    const h = await req('GET', '/api/health').catch(() => ({ body: {} }));
    if (h.body.queueDepth === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 50));
}

function timed(args, input, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const rows = { 'node -e 0': [], 'observation without': [], 'observation with fingerprints': [] };
let cited = 0;
const instructions = {};
try {
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const keep = (k, ms) => i >= WARMUP && rows[k].push(ms);
    await drained();
    keep('node -e 0', timed(['-e', '0'], '', envs.without));
    // Alternate which variant goes first, so neither always meets the machine in the same state.
    const order = i % 2 ? ['with', 'without'] : ['without', 'with'];
    for (const v of order) {
      await drained();
      keep(v === 'with' ? 'observation with fingerprints' : 'observation without', timed([variants[v].cli, 'hook', 'claude-code', 'observation'], fixture(`${v}-${i}`), envs[v]));
    }
  }
  if (process.argv.includes('--callgrind')) {
    const SEEDS = ['--hash-seed=1', '--random-seed=1'];
    for (const v of ['without', 'with']) {
      const args = [variants[v].cli, 'hook', 'claude-code', 'observation'];
      spawnSync(process.execPath, [...SEEDS, ...args], { input: fixture(`cg-${v}`), env: envs[v] }); // the code cache for these flags
      const xs = [];
      for (let k = 0; k < 3; k++) {
        await drained();
        const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...SEEDS, ...args], { input: fixture(`cg-${v}-${k}`), env: envs[v], encoding: 'utf8' });
        const m = /Collected : (\d+)/.exec(r.stderr ?? '');
        if (!m) throw new Error(`valgrind failed: ${r.stderr?.slice(-300)}`);
        xs.push(Number(m[1]));
      }
      instructions[v] = pct(xs, 50);
    }
  }
  // The "with" hooks really sent citations: the worker holds them.
  cited = (await req('GET', `/api/freshness/cited?project=project`)).body.files?.length ?? 0;
} catch (e) {
  await w.stop();
  throw e;
}

const bare = pct(rows['node -e 0'], 50);
console.log(`1. observation hook, whole process, ${RUNS} runs each (after ${WARMUP} warm-up), interleaved; node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`   ${wired ? 'dist/cli.js, CLAUDE_MEM_FRESHNESS=0 vs unset' : 'bundles built here from the same sources, the "with" one calling fingerprintToolUse in the handler'}`);
console.log(`${'command'.padEnd(32)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p50/bare'.padStart(9)}`);
for (const [name, xs] of Object.entries(rows)) console.log(`${name.padEnd(32)} ${fmt(pct(xs, 50)).padStart(8)} ${fmt(pct(xs, 95)).padStart(8)} ${(pct(xs, 50) / bare).toFixed(2).padStart(8)}x`);
const ratio = pct(rows['observation with fingerprints'], 50) / pct(rows['observation without'], 50);
console.log(`bar: with p50 within 1.1x of without: ${ratio.toFixed(3)}x ${ratio <= 1.1 ? 'PASS' : 'FAIL'} (cited paths stored by the worker: ${cited})`);
if (instructions.with) console.log(`instructions per hook process (callgrind, median of 3): without ${fmt(instructions.without / 1e6)} M, with ${fmt(instructions.with / 1e6)} M: ${(instructions.with / instructions.without).toFixed(3)}x`);

// ---- 2. the stale check for FILES cited files -------------------------------------------------
const { checkFiles, repoState } = await import(path.join(tmp, 'clientCheck.cjs')).catch(async () => {
  await esbuild.build({ entryPoints: [path.join(ROOT, 'extension/freshness/clientCheck.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: path.join(tmp, 'clientCheck.cjs'), logLevel: 'warning' });
  return import(path.join(tmp, 'clientCheck.cjs'));
});
const { fingerprintToolUse } = await (async () => {
  await esbuild.build({ entryPoints: [path.join(ROOT, 'common/node/freshness/fingerprint.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: path.join(tmp, 'fingerprint.cjs'), logLevel: 'warning' });
  return import(path.join(tmp, 'fingerprint.cjs'));
})();

const big = path.join(tmp, 'big');
fs.mkdirSync(big);
git(big, 'init', '-q', '-b', 'main');
for (let i = 0; i < FILES; i++) {
  const d = path.join(big, 'src', `m${i % 50}`);
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, `file${i}.ts`), `// module ${i}\n${'export const x = 1;\n'.repeat(40)}`);
}
git(big, 'add', '-A');
git(big, 'commit', '-q', '-m', 'big');
const PROJECT = 'big-project';
const t0 = performance.now();
for (let i = 0; i < FILES; i++) {
  const file = path.join(big, 'src', `m${i % 50}`, `file${i}.ts`);
  const input = { cwd: big, tool_input: { file_path: file } };
  const r = await req('POST', '/api/sessions/observations', { contentSessionId: `big-${i % 20}`, tool_name: 'Read', tool_input: input.tool_input, tool_response: 'x', cwd: big, project: PROJECT, citations: fingerprintToolUse(input) });
  if (r.status !== 202) throw new Error(`observation ${i}: ${r.status} ${JSON.stringify(r.body)}`);
}
await drained();
const loadMs = performance.now() - t0;
const citedBig = (await req('GET', `/api/freshness/cited?project=${PROJECT}`)).body.files;
if (citedBig.length !== FILES) throw new Error(`expected ${FILES} cited files, the worker has ${citedBig.length}`);
for (let i = 0; i < 10; i++) fs.appendFileSync(path.join(big, 'src', `m${i % 50}`, `file${i}.ts`), '// changed\n');

const CHECK_RUNS = 15;
const timesOf = async (prepare) => {
  const client = [];
  const worker = [];
  let last;
  for (let i = 0; i < CHECK_RUNS + 2; i++) {
    prepare?.();
    const a = performance.now();
    const list = (await req('GET', `/api/freshness/cited?project=${PROJECT}`)).body.files;
    const s = repoState(big);
    const files = checkFiles(s.repo.root, list);
    const b = performance.now();
    const res = await req('POST', '/api/freshness/check', { project: PROJECT, branch: s.branch, bases: s.bases, commit: s.commit, files });
    const c = performance.now();
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    last = res.body;
    if (i >= 2) {
      client.push(b - a);
      worker.push(c - b);
    }
  }
  return { client, worker, last };
};
const warmIndex = await timesOf();
// Worst case: every file's mtime differs from the index, so each is read and hashed.
let tick = 0;
const cold = await timesOf(() => {
  const t = new Date(Date.now() + 1000 * ++tick);
  for (let i = 0; i < FILES; i++) fs.utimesSync(path.join(big, 'src', `m${i % 50}`, `file${i}.ts`), t, t);
});
await w.stop();

console.log(`\n2. stale check for ${citedBig.length} cited files (${FILES} memories loaded in ${fmt(loadMs / 1000, 1)} s), 10 changed; ${CHECK_RUNS} runs`);
console.log(`${'case'.padEnd(44)} ${'client p50'.padStart(11)} ${'worker p50'.padStart(11)} ${'total p95'.padStart(10)}`);
for (const [name, r] of [
  ['index stat matches (files not read)', warmIndex],
  ['every file read and hashed (stat differs)', cold],
]) {
  const tot = r.client.map((x, i) => x + r.worker[i]);
  console.log(`${name.padEnd(44)} ${(fmt(pct(r.client, 50)) + ' ms').padStart(11)} ${(fmt(pct(r.worker, 50)) + ' ms').padStart(11)} ${(fmt(pct(tot, 95)) + ' ms').padStart(10)}`);
}
console.log(`check result: ${warmIndex.last.checked} citations compared, ${cold.last.stale.length === 0 ? 'stale already marked by the first run' : cold.last.stale.length + ' stale'}`);
fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
