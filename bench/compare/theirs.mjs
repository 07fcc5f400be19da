// claude-mem's side: installed at run time into .cache/claude-mem-ref (git-ignored, never a
// dependency), its worker run with the bun that npm installed next to it, its model reached
// through its OpenAI-compatible ("openrouter") provider pointed at the fake model server.
// Its hook commands are what plugin/hooks/hooks.json runs, minus the bash preamble that only
// locates the plugin folder: `node bun-runner.js worker-service.cjs hook claude-code <event>`.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { client, spawnLogged, stopGroup, timed, waitFor } from './common.mjs';
import { keyOf } from './fixture.mjs';

export const CLAUDE_MEM_VERSION = '13.25.3';

/**
 * The events claude-mem's plugin/hooks/hooks.json runs through `worker-service.cjs hook <platform>
 * <event>` for `platform`. Throws with a sentence when the file lists none: a bench that cannot
 * find the hooks it measures must not measure something else.
 */
export function hookEventsFromHooksJson(text, platform) {
  const commands = [];
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === 'command' && typeof x === 'string' ? commands.push(x) : walk(x);
  };
  walk(JSON.parse(text));
  const events = new Set();
  for (const c of commands) {
    const m = /worker-service\.cjs"?\s+hook\s+(\S+)\s+([\w-]+)/.exec(c);
    if (m && m[1] === platform) events.add(m[2]);
  }
  if (events.size === 0) throw new Error(`claude-mem's plugin/hooks/hooks.json runs no "worker-service.cjs hook ${platform} <event>" command (${commands.length} commands), so its hook commands cannot be measured`);
  return [...events];
}

export function theirs(ROOT) {
  const prefix = path.join(ROOT, '.cache', 'claude-mem-ref');
  const modules = path.join(prefix, 'node_modules');
  const pkgDir = path.join(modules, 'claude-mem');
  const scripts = path.join(pkgDir, 'plugin', 'scripts');
  const workerScript = path.join(scripts, 'worker-service.cjs');
  const runner = path.join(scripts, 'bun-runner.js');
  const binDir = path.join(modules, '.bin');
  const bun = path.join(binDir, 'bun');

  const installedVersion = () => {
    try {
      return JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  };
  const bunVersion = () => {
    const r = spawnSync(bun, ['--version'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };

  const envFor = ({ dataDir, home, port, fakeUrl }) => ({
    ...process.env,
    PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    CLAUDE_MEM_DATA_DIR: dataDir,
    CLAUDE_MEM_WORKER_PORT: String(port),
    CLAUDE_MEM_WORKER_HOST: '127.0.0.1',
    CLAUDE_MEM_CHROMA_ENABLED: 'false',
    CLAUDE_MEM_TELEMETRY: '0',
    DO_NOT_TRACK: '1',
    CLAUDE_MEM_PROVIDER: 'openrouter',
    CLAUDE_MEM_OPENROUTER_BASE_URL: `${fakeUrl}/theirs/v1`,
    CLAUDE_MEM_OPENROUTER_API_KEY: 'sk-or-fake-bench-key',
  });

  let version = installedVersion();

  return {
    name: 'theirs',
    get product() {
      return `claude-mem ${version ?? CLAUDE_MEM_VERSION}`;
    },
    get version() {
      return version;
    },
    get runtime() {
      return `bun ${bunVersion() ?? '?'}`;
    },
    modelApi: 'OpenAI chat completions (openrouter provider, base URL)',

    /** Installs claude-mem and bun into .cache/claude-mem-ref unless that exact version is there. */
    async prepare({ log = console.log } = {}) {
      const problems = [];
      if (installedVersion() !== CLAUDE_MEM_VERSION || !bunVersion()) {
        log(`installing claude-mem@${CLAUDE_MEM_VERSION} and bun into ${path.relative(ROOT, prefix)} ...`);
        fs.mkdirSync(prefix, { recursive: true });
        const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
        const r = spawnSync(npm, ['i', `claude-mem@${CLAUDE_MEM_VERSION}`, 'bun', '--legacy-peer-deps', '--no-audit', '--no-fund', '--prefix', prefix], {
          cwd: ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 600_000,
        });
        if (r.status !== 0) problems.push(`npm i claude-mem failed (${r.status}): ${(r.stderr || r.stdout || '').slice(-800)}`);
        // bun's own postinstall may be held back by npm's install-script policy; the platform
        // binary comes from an optional dependency anyway. Run it only if bun does not start.
        if (!bunVersion() && fs.existsSync(path.join(modules, 'bun', 'install.js'))) {
          spawnSync(process.execPath, [path.join(modules, 'bun', 'install.js')], { cwd: path.join(modules, 'bun'), stdio: 'ignore', timeout: 300_000 });
        }
        version = installedVersion();
      }
      if (version !== CLAUDE_MEM_VERSION) problems.push(`claude-mem ${CLAUDE_MEM_VERSION} not installed (found ${version ?? 'nothing'})`);
      if (!bunVersion()) problems.push(`bun does not run from ${path.relative(ROOT, bun)}`);
      if (!fs.existsSync(workerScript)) problems.push(`${path.relative(ROOT, workerScript)} missing`);
      return problems;
    },

    /** The events its plugin's hooks.json sends through the hook command for Claude Code (what bench:compare replays through it). */
    async hookHandlers() {
      return hookEventsFromHooksJson(fs.readFileSync(path.join(pkgDir, 'plugin', 'hooks', 'hooks.json'), 'utf8'), 'claude-code');
    },

    async start(opts) {
      const env = envFor(opts);
      fs.mkdirSync(opts.home, { recursive: true });
      const t0 = performance.now();
      const proc = spawnLogged(bun, [workerScript, '--daemon'], { env, cwd: opts.home, log: path.join(opts.logDir, 'theirs-worker.log') });
      const healthMs = await waitFor(opts.port, '/api/health', (r) => r.status === 200 && r.body?.status === 'ok', { t0, proc, timeoutMs: 90_000 });
      const readyMs = await waitFor(opts.port, '/api/readiness', (r) => r.status === 200, { t0, proc, timeoutMs: 90_000 });
      const c = client(opts.port);
      const health = (await c.req('GET', '/api/health')).body;
      return { side: 'theirs', proc, pid: proc.pid, port: opts.port, c, env, healthMs, readyMs, opts, provider: health?.ai };
    },

    async stop(inst) {
      inst.c.close();
      await stopGroup(inst.proc, 15_000);
    },

    hook(inst, event, input) {
      return timed(process.execPath, [runner, workerScript, 'hook', 'claude-code', event], { env: inst.env, input: JSON.stringify(input), cwd: input.cwd });
    },

    /** What claude-mem's observation hook sends for this PostToolUse input (13.25.3, cli/handlers/observation). */
    postObservation(inst, input) {
      return inst.c.req('POST', '/api/sessions/observations', {
        contentSessionId: input.session_id,
        platformSource: 'claude',
        tool_name: input.tool_name,
        tool_input: input.tool_input,
        tool_response: input.tool_response,
        cwd: input.cwd,
        tool_use_id: input.tool_use_id,
      });
    },

    /** The request claude-mem's hook makes for an event (13.25.3 cli/handlers), sent directly. */
    httpEvent(inst, event, input) {
      const project = path.basename(input.cwd);
      switch (event) {
        case 'context':
          return inst.c.req('GET', `/api/context/inject?${new URLSearchParams({ projects: project, platformSource: 'claude' })}`);
        case 'session-init':
          return inst.c.req('POST', '/api/sessions/init', { contentSessionId: input.session_id, project, prompt: input.prompt, platformSource: 'claude' });
        case 'observation':
          return this.postObservation(inst, input);
        case 'summarize':
          return inst.c.req('POST', '/api/sessions/summarize', { contentSessionId: input.session_id, last_assistant_message: input.last_assistant_message, platformSource: 'claude' });
        case 'session-end':
          return inst.c.req('POST', '/api/sessions/session-end', { contentSessionId: input.session_id, platformSource: 'claude', reason: input.reason, cwd: input.cwd });
        default:
          return undefined; // file-context only reads
      }
    },

    initSession(inst, { sessionId, project, prompt }) {
      return inst.c.req('POST', '/api/sessions/init', { contentSessionId: sessionId, project, prompt, platformSource: 'claude' });
    },

    async search(inst, query, project, limit = 5) {
      const qs = new URLSearchParams({ query, type: 'observations', format: 'json', limit: String(limit), ...(project ? { project } : {}) });
      const r = await inst.c.req('GET', `/api/search?${qs}`);
      const items = Array.isArray(r.body?.observations) ? r.body.observations : [];
      return { status: r.status, titles: items.map((i) => i.title), keys: items.map((i) => keyOf(i.title, i.created_at_epoch)), raw: r };
    },

    /** What its SessionStart hook asks for. */
    async context(inst, project) {
      const r = await inst.c.req('GET', `/api/context/inject?${new URLSearchParams({ projects: project, platformSource: 'claude' })}`);
      const text = typeof r.body === 'string' ? r.body : r.text;
      return { status: r.status, chars: text.length, text };
    },

    async counts(inst) {
      const [s, p] = await Promise.all([inst.c.req('GET', '/api/stats'), inst.c.req('GET', '/api/processing-status')]);
      const db = s.body?.database ?? {};
      return {
        observations: Number(db.observations ?? NaN),
        summaries: Number(db.summaries ?? NaN),
        idle: p.body?.isProcessing === false && (p.body?.queueDepth ?? 0) === 0,
      };
    },

    /** title + time of every stored observation. */
    async listKeys(inst) {
      const keys = [];
      for (let offset = 0; ; offset += 100) {
        const r = await inst.c.req('GET', `/api/observations?limit=100&offset=${offset}`);
        const items = r.body?.items ?? [];
        keys.push(...items.map((o) => keyOf(o.title, o.created_at_epoch)));
        if (!r.body?.hasMore || items.length === 0) return keys;
      }
    },

    async importExport(inst, doc) {
      return inst.c.req('POST', '/api/import', doc, 120_000);
    },
  };
}
