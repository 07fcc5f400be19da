// bench/tokens: input tokens per observation with batching vs one model call per tool use.
// Replays a recorded session (test/fixtures/sessions/agent-session.jsonl, 63 tool uses) through the
// real worker (dist/worker.js, anthropic provider) against the loopback fake Anthropic server, which
// counts input tokens per request (characters / 4) and answers one observation per tool use, so both
// runs store the same number of observations.
//
//   npm run build && node --import tsx bench/tokens.mjs [--batch 10] [--fixture path.jsonl]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { allText, startFakeAnthropic, text } from '../test/helpers/fakeAnthropic.ts';
import { ROOT, startWorker, tempDir } from './lib.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const BATCH = Number(arg('batch', '10'));
const FIXTURE = path.resolve(arg('fixture', path.join(ROOT, 'test', 'fixtures', 'sessions', 'agent-session.jsonl')));
const uses = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

/** One observation per <tool_use> in the request, citing it. */
function observeEach({ body }) {
  const t = allText(body);
  const ns = [...t.matchAll(/<tool_use n="(\d+)" tool="([^"]+)">/g)];
  return text(
    ns
      .map(
        ([, n, tool]) =>
          `<observation><type>discovery</type><title>${tool} step ${n}</title><facts><fact>recorded</fact></facts><narrative>The session used ${tool}.</narrative><concepts><concept>how-it-works</concept></concepts><tool_uses>${n}</tool_uses></observation>`,
      )
      .join('\n'),
  );
}

async function run(label, batchMaxUses) {
  const fake = await startFakeAnthropic(observeEach);
  const dataDir = tempDir('cmem-bench-tokens-');
  // Batches go by count only (no age limit, so the figures do not depend on this machine's speed);
  // the summarize request at the end flushes the last partial batch, and its own call is left out.
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', batchMaxUses, batchMaxAgeMs: 3_600_000, dailyTokenBudget: 0, agentConcurrency: 2 }));
  const w = await startWorker({ dataDir, env: { ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: fake.url, CLAUDE_MEM_PROVIDER: 'anthropic' } });
  try {
    for (const u of uses) {
      const r = await w.req('POST', '/api/sessions/observations', {
        contentSessionId: u.session_id,
        cwd: u.cwd,
        tool_name: u.tool_name,
        tool_input: u.tool_input,
        tool_response: u.tool_response,
        tool_use_id: u.tool_use_id,
      });
      if (r.status !== 202) throw new Error(`post -> ${r.status} ${JSON.stringify(r.body)}`);
    }
    await w.req('POST', '/api/sessions/summarize', { contentSessionId: uses[0].session_id, cwd: uses[0].cwd, last_assistant_message: 'Done.' });
    const t0 = Date.now();
    for (;;) {
      const h = (await w.req('GET', '/api/health')).body;
      if (h.queueDepth === 0) break;
      if (Date.now() - t0 > 300_000) throw new Error('queue did not drain in 5 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const stats = (await w.req('GET', '/api/stats')).body;
    const isSummary = (r) => JSON.stringify(r.body?.system ?? '').includes('progress summary');
    const calls = fake.requests.filter((r) => r.path === '/v1/messages' && !isSummary(r));
    const input = calls.reduce((n, r) => n + r.inputTokens, 0);
    const obs = (await w.req('GET', '/api/observations?limit=1000')).body.items;
    const storedInput = obs.reduce((n, o) => n + o.inputTokens, 0);
    const storedOutput = obs.reduce((n, o) => n + o.outputTokens, 0);
    return { label, batchMaxUses, calls: calls.length, input, observations: stats.observations, storedInput, storedOutput };
  } finally {
    await w.stop();
    await fake.close();
  }
}

const fmt = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const bytes = uses.reduce((n, u) => n + JSON.stringify(u.tool_input).length + JSON.stringify(u.tool_response).length, 0);
console.log(`fixture: ${path.relative(ROOT, FIXTURE)}: ${uses.length} tool uses, ${fmt(bytes / 1024)} KiB of tool input+output`);
const single = await run('one call per tool use', 1);
const batched = await run(`batched (up to ${BATCH} per call)`, BATCH);
console.log('');
console.log(`${'mode'.padEnd(30)} ${'calls'.padStart(6)} ${'observations'.padStart(13)} ${'input tokens'.padStart(13)} ${'input/obs'.padStart(10)} ${'output tokens'.padStart(14)}`);
for (const r of [single, batched]) {
  console.log(`${r.label.padEnd(30)} ${String(r.calls).padStart(6)} ${String(r.observations).padStart(13)} ${fmt(r.input).padStart(13)} ${fmt(r.input / r.observations, 1).padStart(10)} ${fmt(r.storedOutput).padStart(14)}`);
}
const ratio = single.input / single.observations / (batched.input / batched.observations);
console.log('');
console.log(`input tokens per observation, one call per tool use / batched: ${fmt(ratio, 2)}x (${fmt((1 - 1 / ratio) * 100, 0)}% fewer with batching)`);
for (const r of [single, batched]) if (r.storedInput !== r.input) console.log(`note: ${r.label}: the worker stored ${r.storedInput} input tokens, the fake counted ${r.input}`);
