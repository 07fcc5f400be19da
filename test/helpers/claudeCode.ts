// Runs the real Claude Code CLI headless (`claude -p`) against a fake
// Anthropic server, isolated from the developer's own ~/.claude and env.
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// __filename, not __dirname: tsx's ESM-to-CJS loader gets only __filename right.
const root = path.resolve(path.dirname(__filename), '..', '..');
const installScript = path.join(root, 'scripts', 'install-claude-code.sh');

let installing: Promise<string> | undefined;

/** Installs Claude Code into .cache/claude-code once per process; returns the `claude` binary path. */
export function ensureClaudeCode(): Promise<string> {
  installing ??= new Promise<string>((resolve, reject) => {
    execFile('bash', [installScript], { timeout: 10 * 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const bin = stdout.trim().split('\n').pop() ?? '';
      if (err || !bin || !fs.existsSync(bin)) {
        const why = err ? `exit ${String(err.code ?? err.signal)}` : `no binary at "${bin}"`;
        reject(new Error(`Claude Code install failed (bash ${installScript}, ${why}):\n${stderr.trim()}`));
      } else resolve(bin);
    });
  });
  return installing;
}

/** The fields of `--output-format json` the tests read. */
export interface ClaudeResult {
  type: string;
  subtype: string;
  is_error: boolean;
  result?: string;
  session_id: string;
  num_turns: number;
  [key: string]: unknown;
}

export interface RunClaudeOptions {
  cwd: string;
  prompt: string;
  /** Base URL of the fake Anthropic server. */
  baseUrl: string;
  /** Extra environment, applied last. */
  env?: Record<string, string>;
  /** Written to <cwd>/.claude/settings.json (project settings, where users put hooks). */
  settings?: Record<string, unknown>;
  /** Extra CLI arguments, e.g. ['--permission-mode', 'bypassPermissions']. */
  args?: string[];
  /** HOME for the run; a fresh temp dir (removed afterwards) when omitted. */
  home?: string;
  timeoutMs?: number;
}

export interface RunClaudeResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: ClaudeResult | undefined;
  durationMs: number;
  timedOut: boolean;
}

function parseResult(stdout: string): ClaudeResult | undefined {
  try {
    const v: unknown = JSON.parse(stdout);
    if (v && typeof v === 'object' && (v as Record<string, unknown>).type === 'result') return v as ClaudeResult;
  } catch {
    // not JSON: the caller reports stdout/stderr
  }
  return undefined;
}

/** Inherited env minus anything that would point Claude Code at a real account or parent session. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(ANTHROPIC_|CLAUDE|OTEL_|AWS_|GOOGLE_|VERTEX_)/.test(k)) continue;
    env[k] = v;
  }
  return env;
}

export async function runClaude(opts: RunClaudeOptions): Promise<RunClaudeResult> {
  const bin = await ensureClaudeCode();
  const home = opts.home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'claude-home-'));
  if (opts.settings) {
    fs.mkdirSync(path.join(opts.cwd, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(opts.cwd, '.claude', 'settings.json'), JSON.stringify(opts.settings, null, 2));
  }
  const env = {
    ...baseEnv(),
    HOME: home,
    ANTHROPIC_BASE_URL: opts.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...opts.env,
  };
  const start = Date.now();
  // detached: its own process group, so a timeout also ends the hooks it spawned.
  const child = spawn(bin, ['-p', opts.prompt, '--output-format', 'json', ...(opts.args ?? [])], {
    cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, opts.timeoutMs ?? 60_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  }).finally(() => clearTimeout(timer));
  if (!opts.home) fs.rmSync(home, { recursive: true, force: true });
  return { code, stdout, stderr, json: parseResult(stdout), durationMs: Date.now() - start, timedOut };
}
