// Our side: the built worker (dist/worker.js) and hook CLI (dist/cli.js), Anthropic provider
// pointed at the fake model server through ANTHROPIC_BASE_URL.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { client, spawnLogged, stopGroup, timed, waitFor } from './common.mjs';
import { keyOf } from './fixture.mjs';
import { launchEnv } from '../lib.mjs';

/**
 * The handlers of `hook <platform|…> <handler|…>` in the CLI's usage (cli/main.ts writes it from
 * common/contract/hooks.ts), when `platform` is among its platforms. Throws with a sentence
 * otherwise: a bench that cannot find the hooks it measures must not measure something else.
 */
export function hookHandlersFromHelp(text, platform) {
  const m = /^\s*hook <([^<>\s]+)> <([^<>\s]+)>/m.exec(text);
  if (!m) throw new Error(`the CLI's usage (node dist/cli.js help) has no "hook <platform> <handler>" line, so the hook commands cannot be measured; its first line: ${JSON.stringify(text.split('\n')[0] ?? '')}`);
  const platforms = m[1].split('|');
  if (!platforms.includes(platform)) throw new Error(`the CLI's usage lists hooks for ${platforms.join(', ')} but not ${platform}`);
  return m[2].split('|');
}

/**
 * Which workload tool use each stored observation came from, keyed as search results are (title +
 * time), from an export document (GET /api/export). Titles alone cannot say: only tool uses worth a
 * model call carry the fake model's title (worker/compression/triage.ts), and local notes repeat
 * ("Read `x.ts`"). A session's observations oldest first (an observation's time is its hook
 * event's) are its tool uses in order. Throws with a sentence when the store does not line up with
 * the workload: a recall figure from a guessed mapping would not be a measurement.
 */
export function answerKeysOfExport(doc, workload) {
  const stored = new Map(doc.sessions.map((s) => [s.contentSessionId, s.observations]));
  const map = new Map();
  let byTitle = 0;
  for (const s of workload.sessions) {
    const uses = s.prompts.flatMap((p) => p.toolUses);
    const obs = [...(stored.get(s.sessionId) ?? [])].sort((a, b) => a.createdAt - b.createdAt);
    if (obs.length !== uses.length) throw new Error(`session ${s.sessionId} holds ${obs.length} observations for ${uses.length} tool uses`);
    for (let i = 0; i < uses.length; i++) {
      if (i > 0 && obs[i].createdAt === obs[i - 1].createdAt) throw new Error(`session ${s.sessionId}: two observations at the same millisecond, so their order is unknown`);
      if (obs[i].title === uses[i].observation.title) byTitle++;
      else if (uses.some((u, j) => j !== i && u.observation.title === obs[i].title)) throw new Error(`session ${s.sessionId}: observation ${i + 1} carries the model's title of another tool use`);
      const key = keyOf(obs[i].title, obs[i].createdAt);
      if (map.has(key)) throw new Error(`two observations share the title and time ${JSON.stringify(obs[i].title)} ${obs[i].createdAt}`);
      map.set(key, uses[i].id);
    }
  }
  return { map, byTitle };
}

export function ours(ROOT) {
  const worker = path.join(ROOT, 'dist', 'worker.js');
  const cli = path.join(ROOT, 'dist', 'cli.js');
  const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

  const envFor = ({ dataDir, home, port, fakeUrl }) => ({
    ...process.env,
    HOME: home,
    CLAUDE_MEM_DATA_DIR: dataDir,
    CLAUDE_MEM_WORKER_PORT: String(port),
    CLAUDE_MEM_PROVIDER: 'anthropic',
    ANTHROPIC_API_KEY: 'sk-ant-fake-bench-key',
    ANTHROPIC_BASE_URL: `${fakeUrl}/ours`,
    DO_NOT_TRACK: '1',
  });

  const readToken = (dataDir) => {
    try {
      return fs.readFileSync(path.join(dataDir, 'auth.token'), 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  };

  return {
    name: 'ours',
    product: `claude-mem-vscode ${version}`,
    version,
    runtime: `node ${process.version}`,
    modelApi: 'Anthropic Messages (SDK baseURL)',

    async prepare() {
      const problems = [];
      for (const f of [worker, cli]) if (!fs.existsSync(f)) problems.push(`${path.relative(ROOT, f)} missing (npm run build)`);
      return problems;
    },

    /**
     * The hook handlers the built CLI runs for Claude Code, read from its usage (probing by running
     * a hook could start a worker). Throws with a sentence when the usage has no such line.
     */
    async hookHandlers() {
      const r = await timed(process.execPath, [cli, 'help'], { env: process.env, input: '' });
      return hookHandlersFromHelp(r.stdout + r.stderr, 'claude-code');
    },

    async start(opts) {
      const env = envFor(opts);
      const t0 = performance.now();
      const proc = spawnLogged(process.execPath, [worker], { env: { ...launchEnv(worker), ...env }, log: path.join(opts.logDir, 'ours-worker.log') });
      const healthMs = await waitFor(opts.port, '/api/health', (r) => r.status === 200 && r.body?.status === 'ok', { t0, proc, timeoutMs: 60_000 });
      const token = readToken(opts.dataDir);
      const c = client(opts.port, token);
      // Ready: storage recovered and the store answering (needs the token).
      let readyMs = healthMs;
      for (;;) {
        const r = await c.req('GET', '/api/readiness').catch(() => undefined);
        if (r?.status === 200 && r.body?.ready !== false) {
          readyMs = performance.now() - t0;
          break;
        }
        if (performance.now() - t0 > 60_000) throw new Error('our worker never became ready');
        await new Promise((res) => setTimeout(res, 15));
      }
      const health = (await c.req('GET', '/api/health')).body;
      return { side: 'ours', proc, pid: proc.pid, port: opts.port, c, env, healthMs, readyMs, opts, provider: health?.provider };
    },

    async stop(inst) {
      inst.c.close();
      await stopGroup(inst.proc, 15_000);
    },

    hook(inst, event, input) {
      return timed(process.execPath, [cli, 'hook', 'claude-code', event], { env: inst.env, input: JSON.stringify(input), cwd: input.cwd });
    },

    /** What our observation hook sends for this PostToolUse input (dist/cli.js: cli/hooks/adapters/claude-code.ts, then cli/hooks/handlers/observation.ts). */
    postObservation(inst, input) {
      return inst.c.req('POST', '/api/sessions/observations', {
        contentSessionId: input.session_id,
        tool_name: input.tool_name,
        tool_input: input.tool_input,
        tool_response: input.tool_response,
        cwd: input.cwd,
        tool_use_id: input.tool_use_id,
        platform: 'claude-code',
      });
    },

    /** The request our hook makes for an event, sent directly (when the run's time budget leaves no room for the hook process). */
    httpEvent(inst, event, input) {
      switch (event) {
        case 'context':
          return inst.c.req('GET', `/api/context/inject?${new URLSearchParams({ project: path.basename(input.cwd) })}`);
        case 'session-init':
          return inst.c.req('POST', '/api/sessions/init', { contentSessionId: input.session_id, cwd: input.cwd, prompt: input.prompt, platform: 'claude-code' });
        case 'observation':
          return this.postObservation(inst, input);
        case 'summarize':
          return inst.c.req('POST', '/api/sessions/summarize', { contentSessionId: input.session_id, last_assistant_message: input.last_assistant_message, platform: 'claude-code' });
        case 'session-end':
          return inst.c.req('POST', '/api/sessions/complete', { contentSessionId: input.session_id, reason: input.reason, platform: 'claude-code' });
        default:
          return undefined; // file-context only reads
      }
    },

    initSession(inst, { sessionId, cwd, prompt }) {
      return inst.c.req('POST', '/api/sessions/init', { contentSessionId: sessionId, cwd, prompt, platform: 'claude-code' });
    },

    /**
     * The newest stored observation's title. Only tool uses worth a model call get the fake model's
     * title (worker/compression/triage.ts); the rest keep their local note's ("Ran `npx vitest …`").
     */
    async newestTitle(inst) {
      const r = await inst.c.req('GET', `/api/search?${new URLSearchParams({ query: '', kind: 'observation', limit: '1' })}`);
      return r.body?.items?.[0]?.title;
    },

    async search(inst, query, project, limit = 5, mode = 'keyword') {
      const qs = new URLSearchParams({ query, mode, kind: 'observation', limit: String(limit), ...(project ? { project } : {}) });
      const r = await inst.c.req('GET', `/api/search?${qs}`);
      const items = (Array.isArray(r.body?.items) ? r.body.items : []).filter((i) => i.kind === undefined || i.kind === 'observation');
      return { status: r.status, titles: items.map((i) => i.title), keys: items.map((i) => keyOf(i.title, i.epoch)), raw: r };
    },

    /** Waits until the local embedder has caught up (for hybrid search); resolves the status. */
    async waitVectors(inst, timeoutMs = 180_000) {
      const t0 = performance.now();
      let st;
      while (performance.now() - t0 < timeoutMs) {
        st = (await inst.c.req('GET', '/api/search/status')).body;
        if (st && (st.pending === 0 && st.embeddings?.state !== 'indexing')) return { ok: st.embeddings?.state !== 'unavailable' && st.embeddings?.state !== 'off', status: st, ms: performance.now() - t0 };
        await new Promise((r) => setTimeout(r, 250));
      }
      return { ok: false, status: st, ms: performance.now() - t0 };
    },

    async context(inst, project) {
      const r = await inst.c.req('GET', `/api/context/inject?${new URLSearchParams({ project })}`);
      const text = typeof r.body === 'object' && r.body ? String(r.body.markdown ?? '') : String(r.body ?? '');
      return { status: r.status, chars: text.length, text };
    },

    async counts(inst) {
      const r = await inst.c.req('GET', '/api/stats');
      const b = r.body ?? {};
      const q = b.queue ?? {};
      return {
        observations: Number(b.observations ?? NaN),
        summaries: Number(b.summaries ?? NaN),
        idle: (q.pending ?? 0) + (q.inFlight ?? 0) === 0,
        modelInputTokens: b.tokens?.modelInput,
      };
    },

    /** Which workload tool use each stored observation came from (answerKeysOfExport), from GET /api/export. */
    async answerKeys(inst, workload) {
      const r = await inst.c.req('GET', '/api/export', undefined, 120_000);
      if (r.status !== 200 || !Array.isArray(r.body?.sessions)) throw new Error(`GET /api/export answered ${r.status}`);
      return answerKeysOfExport(r.body, workload);
    },

    /** title + time of every stored observation. */
    async listKeys(inst) {
      const keys = [];
      for (let offset = 0; ; offset += 200) {
        const r = await inst.c.req('GET', `/api/observations?limit=200&offset=${offset}`);
        const items = r.body?.items ?? [];
        keys.push(...items.map((o) => keyOf(o.title, o.createdAtEpoch)));
        if (items.length < 200) return keys;
      }
    },

    async importExport(inst, doc) {
      return inst.c.req('POST', '/api/import', doc, 120_000);
    },
  };
}
