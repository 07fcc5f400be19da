// bench/session-tokens: model tokens per session, this build against an older build, in one run.
// Replays the e2e-memory dev sessions (test/fixtures/e2e-memory/dev: recorded-shape Claude Code,
// VS Code agent hook and Codex sessions with prompts, tool uses and closing messages) through each
// build's own hook CLI (dist/cli.js) against its own worker (dist/worker.js, anthropic provider,
// default batching) and one loopback fake Anthropic server, which answers one observation per tool
// use it is sent and a summary per summary call. Prints model calls, input and output tokens per
// session (input: characters / 4 of the request, as the fake counts them; output: of its reply) and
// the mean per session, with the bar: no session costs this build more model tokens (input plus
// output) than the older one, and so neither does the mean.
//
//   npm run build && node --import tsx bench/session-tokens.mjs --baseline <dir of a built older checkout>
//   (e.g. git worktree add /tmp/base 8b55b71 && cd /tmp/base && ln -s <repo>/node_modules && npm run build)
//   without --baseline the "before" is this build with settings.json modelObservations "every".
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { allText, startFakeAnthropic, text } from '../test/helpers/fakeAnthropic.ts';
import { ROOT, startWorker, tempDir } from './lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const BASELINE = arg('baseline', '');
const SET = path.resolve(arg('set', path.join(ROOT, 'test', 'fixtures', 'e2e-memory', 'dev')));

function reply({ body }) {
  const t = allText(body);
  if (JSON.stringify(body.system ?? '').includes('progress summary')) {
    return text('<summary><request>The request.</request><investigated>Files read.</investigated><learned>Decided: what holds now, because of the reason given.</learned><completed>What changed; tests pass.</completed><next_steps>What is left.</next_steps></summary>');
  }
  const ns = [...t.matchAll(/<tool_use n="(\d+)" tool="([^"]+)">/g)];
  return text(ns.map(([, n, tool]) => `<observation><type>discovery</type><title>${tool} step ${n}</title><facts><fact>recorded</fact></facts><narrative>The session used ${tool}.</narrative><concepts><concept>how-it-works</concept></concepts><tool_uses>${n}</tool_uses></observation>`).join('\n'));
}

function fill(value, vars) {
  const esc = (s) => JSON.stringify(s).slice(1, -1);
  return JSON.parse(JSON.stringify(value).split('{{cwd}}').join(esc(vars.cwd)).split('{{transcript}}').join(esc(vars.transcript)));
}
const stamp = (v) => (v && typeof v.timestamp === 'string' ? Date.parse(v.timestamp) : undefined);

function hook(root, platform, handler, payload, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'dist', 'cli.js'), 'hook', platform, handler], { env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${platform} ${handler}: exit ${code} ${err}`))));
    child.stdin.end(JSON.stringify(payload));
  });
}

async function drained(w) {
  const t0 = Date.now();
  for (;;) {
    const q = (await w.req('GET', '/api/queue')).body;
    if (q.pending === 0 && q.inFlight === 0) return;
    if (Date.now() - t0 > 120_000) throw new Error('queue did not drain in 2 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const projects = fs.readdirSync(SET, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();

async function run(label, root, settings) {
  const fake = await startFakeAnthropic(reply);
  const dataDir = tempDir('cmem-bench-session-tokens-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ dailyTokenBudget: 0, ...settings }));
  const w = await startWorker({ dataDir, script: path.join(root, 'dist', 'worker.js'), env: { ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: fake.url, CLAUDE_MEM_PROVIDER: 'anthropic', CLAUDE_MEM_EMBEDDINGS: 'off' } });
  const env = { CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
  const sessions = [];
  try {
    for (const project of projects) {
      const cwd = path.join(tempDir('cmem-bench-project-'), project);
      fs.mkdirSync(cwd, { recursive: true });
      for (const f of fs.readdirSync(path.join(SET, project)).filter((x) => /^\d+-.*\.json$/.test(x)).sort()) {
        const s = JSON.parse(fs.readFileSync(path.join(SET, project, f), 'utf8'));
        const transcript = path.join(cwd, '.transcripts', `${s.sessionId}.jsonl`);
        fs.mkdirSync(path.dirname(transcript), { recursive: true });
        const before = fake.requests.length;
        for (const e of s.events) {
          const payload = fill(e.payload, { cwd, transcript });
          if (e.handler === 'summarize' && s.transcript) {
            const until = stamp(payload);
            const lines = fill(s.transcript, { cwd, transcript }).filter((l) => until === undefined || (stamp(l) ?? 0) <= until);
            fs.writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
          }
          await hook(root, s.platform, e.handler, payload, env);
        }
        await drained(w);
        const calls = fake.requests.slice(before).filter((r) => r.path === '/v1/messages');
        const output = calls.reduce((n, r) => n + Math.max(1, Math.ceil(JSON.stringify([{ type: 'text', text: reply({ body: r.body }).text }]).length / 4)), 0);
        sessions.push({ session: `${project}/${f.replace(/\.json$/, '')}`, toolUses: s.events.filter((e) => e.handler === 'observation').length, calls: calls.length, input: calls.reduce((n, r) => n + r.inputTokens, 0), output });
      }
    }
  } finally {
    await w.stop();
    await fake.close();
  }
  return { label, sessions };
}

const before = BASELINE ? await run(`before (${path.basename(path.resolve(BASELINE))})`, path.resolve(BASELINE), {}) : await run('before (modelObservations every)', ROOT, { modelObservations: 'every' });
const after = await run('after (this build)', ROOT, {});
const pad = (s, n) => String(s).padStart(n);
console.log(`set: ${path.relative(ROOT, SET)}; ${before.sessions.length} sessions; fake Anthropic, default batching`);
console.log(`${'session'.padEnd(40)} ${pad('uses', 5)} | ${pad('calls', 5)} ${pad('input', 8)} ${pad('output', 7)} | ${pad('calls', 5)} ${pad('input', 8)} ${pad('output', 7)}`);
console.log(`${''.padEnd(40)} ${pad('', 5)} | ${before.label.slice(0, 22).padStart(22)} | ${after.label.slice(0, 22).padStart(22)}`);
for (let i = 0; i < before.sessions.length; i++) {
  const b = before.sessions[i];
  const a = after.sessions[i];
  console.log(`${b.session.slice(0, 40).padEnd(40)} ${pad(b.toolUses, 5)} | ${pad(b.calls, 5)} ${pad(b.input, 8)} ${pad(b.output, 7)} | ${pad(a.calls, 5)} ${pad(a.input, 8)} ${pad(a.output, 7)}`);
}
const mean = (r, k) => r.sessions.reduce((n, s) => n + s[k], 0) / r.sessions.length;
const fmt = (x) => x.toFixed(0);
console.log('');
for (const r of [before, after]) console.log(`${r.label.padEnd(40)} mean per session: ${mean(r, 'calls').toFixed(1)} calls, ${fmt(mean(r, 'input'))} input tokens, ${fmt(mean(r, 'output'))} output tokens`);
const total = (s) => s.input + s.output;
const dearer = after.sessions.filter((a, i) => total(a) > total(before.sessions[i]));
for (const a of dearer) {
  const b = before.sessions[after.sessions.indexOf(a)];
  console.log(`costs more: ${a.session} ${total(a)} against ${total(b)} tokens`);
}
const worst = Math.max(...after.sessions.map((a, i) => total(a) / total(before.sessions[i])));
const ratio = (mean(after, 'input') + mean(after, 'output')) / (mean(before, 'input') + mean(before, 'output'));
console.log(`model tokens per session, after / before: ${ratio.toFixed(2)}x mean, ${worst.toFixed(2)}x the dearest session; sessions costing more: ${dearer.length} of ${after.sessions.length} (bar: none) ${dearer.length === 0 ? 'PASS' : 'FAIL'}`);
