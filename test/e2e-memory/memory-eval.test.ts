// The memory eval from raw hook events: recorded-shape sessions (Claude Code, VS Code agent hooks,
// Codex; format in test/fixtures/e2e-memory/FORMAT.md) are replayed through the hook CLI against a
// real worker (dist/worker.js) with the local compressor (no model) and the local embedder.
// Through real `node dist/cli.js hook <platform> <handler>` processes go every event of the first
// session of each platform (in replay order, so dev's first claude-code, codex and vscode-agent
// sessions, or the only set's) and every `context` request the eval measures: 39 processes. All
// other events (373 of 407) go through the CLI's own entry function (cli/hooks/run.ts runHook: the
// same adapters, handlers and HTTP client, stdin and stdout as strings) in this process, which
// spares a node start per event (~0.16 CPU s each) and gives the same figures. The process
// boundary is also covered by test/integration/hooks*.test.ts. Each set prints where its CPU went.
// Then, per project:
//   - recall@5 and MRR of the answering session for each question, in hybrid search, by where the
//     answer lives (prompt, tool output, final message, code);
//   - how many of the project's "decided" and "left to do" facts appear in the context a new
//     session is given (a fact is present when every one of its mustMention terms is).
// Data: CLAUDE_MEM_EVALSET (a folder of project folders), else both halves of
// test/fixtures/e2e-memory: dev (for development) and test (held out: written before the notes and
// context code it measures, by someone who had not seen that code).
// `node test/run.mjs e2e-memory` runs it; it prints the figures and writes them to
// test-artifacts/e2e-memory/<set>.json. Needs `npm run build`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { procCpu, treeCpu } from '../helpers/procCpu';
import { drained, hookEnv, injected, runHook, runHookHere, waitFor, type HookRun } from '../helpers/replay';
import { ROOT, startWorker, tempDir, type RunningWorker } from '../helpers/worker';

const SETS = process.env.CLAUDE_MEM_EVALSET
  ? [path.resolve(process.env.CLAUDE_MEM_EVALSET)]
  : ['dev', 'test'].map((h) => path.join(ROOT, 'test', 'fixtures', 'e2e-memory', h));
const MODE = (process.env.CLAUDE_MEM_EVAL_MODE || 'hybrid') as 'hybrid' | 'keyword' | 'semantic';

interface Event {
  handler: string;
  payload: unknown;
}
interface SessionFile {
  platform: string;
  sessionId: string;
  startedAt: string;
  events: Event[];
  transcript?: Record<string, unknown>[];
}
interface Question {
  id: string;
  question: string;
  answerSession: string;
  where: string;
}
interface Fact {
  id: string;
  kind: 'decided' | 'left';
  text: string;
  session: string;
  mustMention: string[];
}
interface ProjectResult {
  project: string;
  sessions: number;
  questions: { id: string; where: string; rank: number }[];
  facts: { id: string; kind: string; present: boolean; missing: string[] }[];
  contextTokens: number;
}

const projectsOf = (set: string): string[] =>
  fs
    .readdirSync(set, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(set, d.name, 'questions.json')))
    .map((d) => d.name)
    .sort();

/** A payload with its placeholders filled in (substituted in the JSON text, the root JSON-escaped). */
function fill(value: unknown, vars: { cwd: string; transcript: string }): unknown {
  const esc = (s: string) => JSON.stringify(s).slice(1, -1);
  const text = JSON.stringify(value).split('{{cwd}}').join(esc(vars.cwd)).split('{{transcript}}').join(esc(vars.transcript));
  return JSON.parse(text) as unknown;
}

const stamp = (v: unknown): number | undefined => {
  const t = v && typeof v === 'object' ? (v as { timestamp?: unknown }).timestamp : undefined;
  return typeof t === 'string' ? Date.parse(t) : undefined;
};

type Runner = (platform: string, handler: string, payload: unknown, env: Record<string, string>) => Promise<HookRun>;

/** Replays one session in order; the transcript is written up to each Stop's time before it runs. */
async function replay(s: SessionFile, cwd: string, env: Record<string, string>, run: Runner, settle?: () => Promise<void>): Promise<void> {
  const transcript = path.join(cwd, '.transcripts', `${s.sessionId}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  const vars = { cwd, transcript };
  for (const e of s.events) {
    const payload = fill(e.payload, vars);
    if (e.handler === 'summarize' && s.transcript) {
      const until = stamp(payload);
      const lines = (fill(s.transcript, vars) as Record<string, unknown>[]).filter((l) => until === undefined || (stamp(l) ?? 0) <= until);
      fs.writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    }
    const r = await run(s.platform, e.handler, payload, env);
    assert.equal(r.code, 0, `${s.sessionId} ${e.handler}: exit ${r.code}\n${r.stderr}`);
    await settle?.();
  }
}

function mean(xs: number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function score(qs: { rank: number }[]): { n: number; recallAt5: number; mrr: number } {
  return { n: qs.length, recallAt5: mean(qs.map((q) => (q.rank >= 0 && q.rank < 5 ? 1 : 0))), mrr: mean(qs.map((q) => (q.rank >= 0 ? 1 / (q.rank + 1) : 0))) };
}

const fix = (x: number) => Number(x.toFixed(3));

/** Platforms whose first session (in the first set that has one) went through hook processes. */
const viaProcess = new Set<string>();

for (const SET of SETS) {
const SET_NAME = path.basename(SET);
const projects = projectsOf(SET);
describe(`memory eval from raw hook events (${SET_NAME}, local compressor, ${MODE})`, () => {
  let w: RunningWorker;
  const results: ProjectResult[] = [];

  before(async () => {
    const cpu0 = procCpu('self');
    const calls = { processes: 0, here: 0 };
    w = await startWorker({ env: { CLAUDE_MEM_PROVIDER: 'local' } });
    const env = hookEnv(w);
    const root = tempDir('cmem-eval-');
    const wall = [performance.now()];
    for (const project of projects) {
      const dir = path.join(SET, project);
      const cwd = path.join(root, project);
      fs.mkdirSync(cwd, { recursive: true });
      const files = fs.readdirSync(dir).filter((f) => /^\d+-.*\.json$/.test(f)).sort();
      const sessions = files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as SessionFile);
      for (const s of sessions) {
        const proc = !viaProcess.has(s.platform);
        viaProcess.add(s.platform);
        calls[proc ? 'processes' : 'here'] += s.events.length;
        // An event run here comes milliseconds after the last, not the ~0.2 s a node start takes (or
        // the seconds an agent takes): the queue is let drain after each event, so the worker
        // compresses one tool use at a time as between an agent's events, not several in a batch.
        await replay(s, cwd, env, proc ? runHook : runHookHere, () => drained(w, 60_000));
        await drained(w, 60_000);
      }
      // The context a new session of this project is given.
      const last = sessions[sessions.length - 1];
      const start =
        last.platform === 'vscode-agent'
          ? { session_id: `eval-next-${project}`, hook_event_name: 'SessionStart', cwd, source: 'new', timestamp: new Date().toISOString() }
          : { session_id: `eval-next-${project}`, hook_event_name: 'SessionStart', cwd, source: 'startup', transcript_path: path.join(cwd, 'next.jsonl') };
      const ctx = injected(await runHook(last.platform, 'context', start, env));
      calls.processes++;
      const lower = ctx.toLowerCase();
      const facts = (JSON.parse(fs.readFileSync(path.join(dir, 'facts.json'), 'utf8')) as Fact[]).map((f) => {
        const missing = f.mustMention.filter((t) => !lower.includes(t.toLowerCase()));
        return { id: f.id, kind: f.kind, present: missing.length === 0, missing };
      });
      if (process.env.CLAUDE_MEM_EVAL_SHOW === '1') console.log(`---- context for ${project} ----\n${ctx}`);
      results.push({ project, sessions: sessions.length, questions: [], facts, contextTokens: Math.ceil(ctx.length / 4) });
    }
    wall.push(performance.now());
    // Search once every record is embedded (hybrid and semantic need the vectors).
    await waitFor(
      async () => {
        const st = (await w.req('GET', '/api/search/status')).body;
        return st.pending === 0 && st.embeddings.state !== 'indexing';
      },
      300_000,
      'the background indexer',
      1000,
    );
    wall.push(performance.now());
    for (const r of results) {
      const sessions = (await w.req('GET', `/api/sessions?project=${encodeURIComponent(r.project)}&limit=500`)).body.items as { id: number; contentSessionId: string }[];
      const byContent = new Map(sessions.map((s) => [s.contentSessionId, s.id]));
      const questions = JSON.parse(fs.readFileSync(path.join(SET, r.project, 'questions.json'), 'utf8')) as Question[];
      for (const q of questions) {
        const res = await w.req('GET', `/api/search?${new URLSearchParams({ query: q.question, project: r.project, mode: MODE, limit: '30' })}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.modeUsed, MODE, res.body.notice);
        const order: number[] = [];
        for (const item of res.body.items as { sessionId: number }[]) if (!order.includes(item.sessionId)) order.push(item.sessionId);
        const want = byContent.get(q.answerSession);
        assert.ok(want !== undefined, `${q.id}: session ${q.answerSession} was not recorded`);
        r.questions.push({ id: q.id, where: q.where, rank: order.indexOf(want) });
      }
    }
    wall.push(performance.now());
    const all = results.flatMap((r) => r.questions);
    const wheres = [...new Set(all.map((q) => q.where))].sort();
    const report = {
      set: SET_NAME,
      mode: MODE,
      overall: { ...score(all), ...Object.fromEntries(Object.entries(score(all)).map(([k, v]) => [k, k === 'n' ? v : fix(v)])) },
      byWhere: Object.fromEntries(wheres.map((wh) => [wh, Object.fromEntries(Object.entries(score(all.filter((q) => q.where === wh))).map(([k, v]) => [k, k === 'n' ? v : fix(v)]))])),
      projects: results.map((r) => ({
        project: r.project,
        sessions: r.sessions,
        ...Object.fromEntries(Object.entries(score(r.questions)).map(([k, v]) => [k, k === 'n' ? v : fix(v)])),
        facts: `${r.facts.filter((f) => f.present).length}/${r.facts.length}`,
        factShare: fix(r.facts.filter((f) => f.present).length / Math.max(1, r.facts.length)),
        decided: `${r.facts.filter((f) => f.present && f.kind === 'decided').length}/${r.facts.filter((f) => f.kind === 'decided').length}`,
        left: `${r.facts.filter((f) => f.present && f.kind === 'left').length}/${r.facts.filter((f) => f.kind === 'left').length}`,
        missingFacts: r.facts.filter((f) => !f.present).map((f) => `${f.id} (${f.missing.join(', ')})`),
        missedQuestions: r.questions.filter((q) => q.rank < 0 || q.rank >= 5).map((q) => `${q.id} ${q.where} rank ${q.rank < 0 ? '-' : q.rank + 1}`),
        contextTokens: r.contextTokens,
      })),
    };
    console.log(JSON.stringify(report, null, 2));
    // Where this set's CPU went (Linux): read before the worker stops, so ended children are hooks.
    const cpu1 = procCpu('self');
    const wk = w.proc.pid === undefined ? undefined : treeCpu(w.proc.pid);
    if (cpu0 && cpu1 && wk) {
      const s1 = (x: number) => `${x.toFixed(1)} s`;
      console.log(
        `cpu (${SET_NAME}): test process ${s1(cpu1.self - cpu0.self)} (with ${calls.here} hook events run here), ` +
          `${calls.processes} hook processes ${s1(cpu1.ended - cpu0.ended)}, worker ${s1(wk.self)}, its children ${s1(wk.children)}; ` +
          `wall: replay ${s1((wall[1] - wall[0]) / 1000)}, waiting for vectors ${s1((wall[2] - wall[1]) / 1000)}, questions ${s1((wall[3] - wall[2]) / 1000)}`,
      );
    }
    const out = path.join(ROOT, 'test-artifacts', 'e2e-memory');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, `${SET_NAME}-${MODE}.json`), JSON.stringify({ ...report, questions: results.flatMap((r) => r.questions) }, null, 2) + '\n');
  });

  after(async () => {
    await w?.stop();
  });

  it('every question of every project was asked and every fact looked for', () => {
    assert.ok(projects.length > 0, `no projects in ${SET}`);
    for (const r of results) {
      assert.ok(r.questions.length > 0, r.project);
      assert.ok(r.facts.length > 0, r.project);
    }
  });

  it('finds the answering session in the top 5 for at least 85% of the questions', () => {
    const s = score(results.flatMap((r) => r.questions));
    assert.ok(s.recallAt5 >= 0.85, `recall@5 ${s.recallAt5.toFixed(3)}`);
  });

  it("at least 60% of each project's decided / left-to-do facts are in the next session's context", () => {
    for (const r of results) {
      const share = r.facts.filter((f) => f.present).length / r.facts.length;
      assert.ok(share >= 0.6, `${r.project}: ${r.facts.filter((f) => f.present).length}/${r.facts.length}; missing ${r.facts.filter((f) => !f.present).map((f) => f.id).join(', ')}`);
    }
  });

  it('answers that live only in tool output or the final message are found at least as often as those in the prompt', () => {
    const all = results.flatMap((r) => r.questions);
    const recall = (where: string) => score(all.filter((q) => q.where === where)).recallAt5;
    const prompt = recall('prompt');
    for (const where of ['tool_output', 'final_message']) {
      assert.ok(all.some((q) => q.where === where), `no ${where} questions in ${SET_NAME}`);
      assert.ok(recall(where) >= prompt, `${where} recall@5 ${recall(where).toFixed(3)} < prompt ${prompt.toFixed(3)}`);
    }
  });
});
}
