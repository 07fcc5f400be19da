// A model where it pays: with the anthropic provider (the fake server on loopback) and the default
// scope (`modelObservations: "worth"`), one Claude Code-shaped session goes through the real worker.
// Asserted: which tool uses reach the model (the failing test run, the edit that fixes it, the
// passing run) and which get only their local note (reads, an empty search, a re-read, a repeated
// run); what is listed, injected and searchable (quiet notes); the session's model tokens against
// every tool use sent to the model; and the fallback when the model is down. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { allText, httpError, startFakeAnthropic, text, type FakeAnthropic, type MessagesBody, type Reply } from '../helpers/fakeAnthropic';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const CWD = '/repo';
const PROMPT = 'The retry helper hammers the payment API when it is down: add exponential backoff with jitter, cap at 30s.';
const FINAL = 'Added exponential backoff with full jitter to retry(), capped at 30 s; tests pass.';
const failing = { stdout: 'FAIL src/retry.test.ts\n  ✕ caps the delay at 30s (3 ms)\n  ✓ backs off exponentially (2 ms)\n\nTests:       1 failed, 1 passed, 2 total\n', stderr: '', interrupted: false, isImage: false };
const passing = { stdout: 'PASS src/retry.test.ts\n  ✓ caps the delay at 30s (3 ms)\n  ✓ backs off exponentially (2 ms)\n\nTests:       2 passed, 2 total\n', stderr: '', interrupted: false, isImage: false };
/** A source file as a session reads it: a few dozen lines. */
const RETRY_TS = [
  "import { sleep } from './sleep';",
  "import { BASE_MS } from './config';",
  '',
  '/** Calls fn until it resolves, at most n times. */',
  'export async function retry<T>(fn: () => Promise<T>, n = 3): Promise<T> {',
  '  let last: unknown;',
  '  for (let attempt = 0; attempt < n; attempt++) {',
  '    try {',
  '      return await fn();',
  '    } catch (e) {',
  '      last = e;',
  '      const base = BASE_MS;',
  '      const delay = base * 2 ** attempt;',
  '      await sleep(delay);',
  '    }',
  '  }',
  '  throw last;',
  '}',
  '',
  'export function isRetryable(e: unknown): boolean {',
  "  return e instanceof Error && /ECONNRESET|ETIMEDOUT|503/.test(e.message);",
  '}',
  '',
].join('\n');
const CONFIG_TS = ['/** Settings of the payment client. */', 'export const BASE_MS = 100;', 'export const TIMEOUT_MS = 10_000;', "export const API_URL = process.env.PAYMENT_API_URL ?? 'https://pay.example.test';", ''].join('\n');
const readOf = (file: string, content: string) => ({ type: 'text', file: { filePath: `${CWD}/${file}`, content, numLines: content.split('\n').length - 1, startLine: 1, totalLines: content.split('\n').length - 1 } });
const EDIT = { file_path: `${CWD}/src/retry.ts`, old_string: 'const delay = base * 2 ** n;', new_string: 'const delay = Math.min(30_000, Math.random() * base * 2 ** n);' };

/** The session, in order: [tool, input, response, goes to the model, quiet]. */
const USES: [string, Record<string, unknown>, unknown, boolean, boolean][] = [
  ['Read', { file_path: `${CWD}/src/retry.ts` }, readOf('src/retry.ts', RETRY_TS), false, false],
  ['Grep', { pattern: 'jitterRatio' }, { mode: 'content', content: 'No matches found', numFiles: 0, filenames: [] }, false, true],
  ['Bash', { command: 'npm test -- retry' }, failing, true, false],
  ['Edit', EDIT, { filePath: EDIT.file_path, oldString: EDIT.old_string, newString: EDIT.new_string, originalFile: 'const delay = base * 2 ** n;\n', structuredPatch: [] }, true, false],
  ['Bash', { command: 'npm test -- retry' }, passing, true, false],
  ['Read', { file_path: `${CWD}/src/config.ts` }, readOf('src/config.ts', CONFIG_TS), false, false],
  ['Read', { file_path: `${CWD}/src/config.ts` }, readOf('src/config.ts', CONFIG_TS), false, true],
  ['Bash', { command: 'npm test -- retry' }, passing, false, true],
];

interface StoredObs {
  id: number;
  title: string;
  source: string;
  toolName: string | null;
  facts: string[];
  inputTokens: number;
}
interface StoredSummary {
  request: string | null;
  learned: string | null;
  completed: string | null;
  inputTokens: number;
  outputTokens: number;
}

const isSummary = (body: MessagesBody) => JSON.stringify(body.system ?? '').includes('progress summary');
const messages = (fake: FakeAnthropic) => fake.requests.filter((r) => r.path === '/v1/messages');

/** One model observation per tool use of an observer call, titled after its number and tool. */
function script({ body }: { body: MessagesBody }): Reply {
  if (isSummary(body)) {
    return text(
      '<summary><request>Add backoff with jitter to retry()</request><learned>Decided: full jitter with a 30 s cap, because the payment API was hammered while down.</learned><completed>retry() backs off with full jitter, capped at 30 s; 2 tests pass.</completed><next_steps></next_steps></summary>',
    );
  }
  const uses = [...allText(body).matchAll(/<tool_use n="(\d+)" tool="([^"]+)">/g)];
  return text(
    uses
      .map(([, n, tool]) => `<observation><type>bugfix</type><title>Model: ${tool} step ${n}</title><facts><fact>the delay was not capped</fact></facts><narrative>The cap was missing.</narrative><concepts><concept>problem-solution</concept></concepts><tool_uses>${n}</tool_uses></observation>`)
      .join('\n'),
  );
}

async function modelWorker(fake: FakeAnthropic | string, settings: Record<string, unknown>): Promise<RunningWorker> {
  const dataDir = tempDir('cmem-worth-');
  const base = { agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 3, agentTimeoutMs: 5000, dailyTokenBudget: 0 };
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ ...base, ...settings }));
  const url = typeof fake === 'string' ? fake : fake.url;
  return startWorker({ dataDir, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: url, CLAUDE_MEM_PROVIDER: 'anthropic', CLAUDE_MEM_EMBEDDINGS: 'off' } });
}

const drained = (w: RunningWorker) => until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, 30_000, 'the queue to drain');

/** Replays the session; with `eachDrained` every tool use is compressed before the next is posted. */
async function replay(w: RunningWorker, session: string, eachDrained: boolean): Promise<void> {
  const init = await w.req('POST', '/api/sessions/init', { contentSessionId: session, project: session, cwd: CWD, prompt: PROMPT });
  assert.equal(init.status, 200, JSON.stringify(init.body));
  let n = 0;
  for (const [tool, input, response] of USES) {
    n += 1;
    const r = await w.req('POST', '/api/sessions/observations', { contentSessionId: session, project: session, cwd: CWD, tool_name: tool, tool_input: input, tool_response: response, tool_use_id: `${session}-${n}` });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    if (eachDrained) await drained(w);
  }
  const s = await w.req('POST', '/api/sessions/summarize', { contentSessionId: session, project: session, cwd: CWD, last_assistant_message: FINAL });
  assert.equal(s.status, 202, JSON.stringify(s.body));
  await drained(w);
}

async function stored(w: RunningWorker, project: string): Promise<{ observations: StoredObs[]; summaries: StoredSummary[] }> {
  const r = await w.req('GET', `/api/export?project=${encodeURIComponent(project)}`);
  assert.equal(r.status, 200);
  const sessions = r.body.sessions as { observations: StoredObs[]; summaries: StoredSummary[] }[];
  return { observations: sessions.flatMap((s) => s.observations), summaries: sessions.flatMap((s) => s.summaries) };
}

describe('a model where it pays (fake Anthropic, scope worth)', () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('only the failing run, its fix and the passing run go to the model; the rest get local notes, noise is quiet', async () => {
    const fake = await startFakeAnthropic(script);
    cleanup.push(() => fake.close());
    // One tool use per batch: triage reads the session's earlier notes from the store.
    const w = await modelWorker(fake, { batchMaxUses: 1, batchMaxAgeMs: 0 });
    cleanup.push(() => w.kill());
    await replay(w, 'worth', true);

    const calls = messages(fake);
    const observe = calls.filter((r) => !isSummary(r.body as MessagesBody)).map((r) => allText(r.body as MessagesBody));
    const sent = observe.map((t) => [...t.matchAll(/<tool_use n="\d+" tool="([^"]+)">\s*<input>\s*([\s\S]*?)\s*<\/input>/g)].map((m) => `${m[1]} ${m[2]}`)).flat();
    const want = USES.filter((u) => u[3]).map(([tool, input]) => `${tool} ${tool === 'Edit' ? 'src/retry.ts' : String(input.command)}`);
    assert.equal(sent.length, want.length, `tool uses sent to the model: ${sent.join(' | ')}`);
    sent.forEach((s, i) => assert.ok(s.startsWith(want[i].split(' ')[0]) && s.includes(want[i].split(' ').slice(1).join(' ')), `call ${i + 1}: ${s}`));
    for (const t of observe) {
      assert.ok(!/jitterRatio|src\/config\.ts/.test(t), 'no read or search reached the model');
      assert.match(t, /<note>\n/, 'the model reads the local note');
    }
    assert.match(observe[0], /<note>\nRan `npm test -- retry`: 1 failed, 1 passed[\s\S]*<output>[\s\S]*caps the delay at 30s/, "a failure's output is its evidence");
    assert.ok(!/<output>/.test(observe[1]) && !/<output>/.test(observe[2]), 'an edit and a passing run: the note, not the raw output');
    assert.ok(!observe[1].includes('originalFile'), "the edit's whole file is not sent");

    const { observations, summaries } = await stored(w, 'worth');
    const local = observations.filter((o) => o.source === 'local');
    const model = observations.filter((o) => o.source === 'anthropic');
    assert.equal(local.length, USES.length, 'every tool use has its local note, stored');
    assert.deepEqual(model.map((o) => o.title), ['Model: Bash step 1', 'Model: Edit step 1', 'Model: Bash step 1']);
    assert.ok(local.every((o) => o.inputTokens === 0) && model.every((o) => o.inputTokens > 0));

    // Listed: the model's observations and the local notes that say something; quiet: the rest.
    const listed = (await w.req('GET', '/api/observations?project=worth&limit=100')).body.items as StoredObs[];
    const all = (await w.req('GET', '/api/observations?project=worth&limit=100&quiet=include')).body.items as StoredObs[];
    assert.equal(all.length, observations.length);
    const listedLocal = listed.filter((o) => o.source === 'local').map((o) => o.title).sort();
    const expectListed = USES.map((u, i) => ({ u, note: local[i] })).filter(({ u }) => !u[3] && !u[4]).map(({ note }) => note.title).sort();
    assert.deepEqual(listedLocal, expectListed, 'local notes listed: the first reads only');
    assert.equal(listed.filter((o) => o.source === 'anthropic').length, 3);
    const bad = await w.req('GET', '/api/observations?project=worth&quiet=maybe');
    assert.equal(bad.status, 400);
    assert.match(String(bad.body.error), /quiet/);

    // Injected: no quiet note; searchable: every one.
    const ctx = String((await w.req('GET', '/api/context/inject?project=worth')).body);
    assert.ok(!ctx.includes('jitterRatio'), 'the empty search is not injected');
    const found = (await w.req('GET', '/api/search?project=worth&mode=keyword&query=jitterRatio')).body.items as { id: number; title: string }[];
    assert.ok(found.some((f) => f.title === local[1].title && local[1].title.startsWith('Searched for `jitterRatio`')), `the quiet search note is found by search: ${JSON.stringify(found.map((f) => f.title))}`);

    // The summary: the model's, written from the local draft and the closing message.
    const sumCall = calls.find((r) => isSummary(r.body as MessagesBody));
    assert.ok(sumCall, 'the summary went to the model');
    const sumText = allText(sumCall.body as MessagesBody);
    assert.match(sumText, /Draft written without a model/);
    assert.match(sumText, /tests passed: 2 passed/);
    assert.match(sumText, /Observations a model wrote[\s\S]*Model: Edit step 1/, "the model's own observations (cause, fix) are in it");
    assert.ok(sumText.includes(FINAL));
    assert.equal(summaries.length, 1);
    assert.match(String(summaries[0].learned), /full jitter with a 30 s cap/);
    assert.ok(summaries[0].inputTokens > 0);
  });

  it('model tokens per session: the same session costs fewer input tokens than with every tool use sent to the model', async () => {
    const run = async (modelObservations: string) => {
      const fake = await startFakeAnthropic(script);
      cleanup.push(() => fake.close());
      // Default batching (10 per call): the summary flushes the partial batch.
      const w = await modelWorker(fake, { modelObservations, batchMaxUses: 10, batchMaxAgeMs: 600_000 });
      cleanup.push(() => w.kill());
      await replay(w, `tokens-${modelObservations}`, false);
      const calls = messages(fake);
      return { calls: calls.length, input: calls.reduce((n, r) => n + r.inputTokens, 0), stored: await stored(w, `tokens-${modelObservations}`) };
    };
    const every = await run('every');
    const worth = await run('worth');
    console.log(`model calls / input tokens for the ${USES.length}-tool-use session: every tool use ${every.calls} / ${every.input}, worth ${worth.calls} / ${worth.input}`);
    assert.ok(worth.input < every.input, `worth ${worth.input} < every ${every.input}`);
    const storedIn = (s: typeof worth.stored) => s.observations.reduce((n, o) => n + o.inputTokens, 0) + s.summaries.reduce((n, o) => n + o.inputTokens, 0);
    assert.equal(storedIn(worth.stored), worth.input, 'the stored tokens are what the calls cost');
  });

  it('model down: every tool use keeps its local note and the summary is the local one; nothing waits or dies', async () => {
    const fake = await startFakeAnthropic(() => httpError(500, { message: 'overloaded' }));
    cleanup.push(() => fake.close());
    const w = await modelWorker(fake, { batchMaxUses: 1, batchMaxAgeMs: 0 });
    cleanup.push(() => w.kill());
    await replay(w, 'down', false);
    assert.ok(messages(fake).length >= 1, 'the model was tried');
    const { observations, summaries } = await stored(w, 'down');
    assert.equal(observations.length, USES.length);
    assert.ok(observations.every((o) => o.source === 'local' && o.inputTokens === 0));
    assert.ok(observations.some((o) => o.facts.includes('tests: 1 failed, 1 passed')));
    assert.equal(summaries.length, 1);
    assert.match(String(summaries[0].completed), /Outcome: first test run failed/);
    assert.equal(summaries[0].inputTokens, 0);
    const q = (await w.req('GET', '/api/queue')).body;
    assert.equal(q.dead.length, 0, 'no job dead-lettered');
    assert.match(String((await w.req('GET', '/api/health')).body.provider.lastError), /overloaded|500/);
  });
});
