// What a tool's response says, whatever platform sent it: its text (never the JSON around it), whether
// the tool failed and why, a command's exit code, test-runner results (node:test, jest/vitest, mocha,
// pytest, go test, cargo test), compiler and linter error lines, and a fetch's status. The local
// compressor reads tool responses only through here.
//
// Shapes read (as the hook CLI forwards them): Claude Code Read {file:{content,numLines,totalLines}},
// Bash {stdout,stderr,interrupted}, Edit/Write {structuredPatch}, Grep/Glob {filenames,numFiles},
// WebFetch {code,codeText,result}, PostToolUseFailure {error}; Codex strings or {output,metadata:
// {exit_code}}; Copilot CLI text or {result,output} on failure; Gemini CLI {llmContent,returnDisplay,
// error} (run_shell_command's llmContent a labelled report); VS Code agent hooks text; MCP-style
// {content:[{type:'text',text}]}. Claude Code's own tool errors (a Read of a file that does not
// exist) come as text wrapped in <tool_use_error>.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : undefined);

export interface Hunk {
  added: string[];
  removed: string[];
}

export interface ToolOutput {
  /** The response as text (file content, command output, tool message), without JSON syntax. */
  text: string;
  /** The tool reported a failure (an error field, a non-success result, a failure event). */
  failed: boolean;
  /** Why it failed, one line. */
  error?: string;
  exit?: number;
  /** Lines of a file read, as the platform counted them. */
  lines?: number;
  /** Hunks of an edit, from the response's patch. */
  hunks?: Hunk[];
  /** Files a search listed. */
  files?: string[];
  /** A command the tool started in the background and answered for at once (Claude Code's backgroundTaskId). */
  background?: boolean;
  /** A read whose file is not text (an image, a PDF): its kind, media type and size. */
  media?: { kind: string; type?: string; bytes?: number };
  /** HTTP status of a fetch. */
  status?: { code: number; text?: string };
}

/** Strings of a JSON text that could not be parsed (a response cut in the middle), unescaped. */
function salvage(raw: string): string {
  const out: string[] = [];
  const re = /"(?:content|stdout|stderr|output|result|text|llmContent|error|textResultForLlm|message)"\s*:\s*"((?:[^"\\]|\\.)*)/g;
  for (let m = re.exec(raw); m; m = re.exec(raw)) {
    try {
      out.push(JSON.parse(`"${m[1]}"`) as string);
    } catch {
      out.push(m[1].replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\"/g, '"'));
    }
  }
  return out.length > 0 ? out.join('\n') : raw;
}

const STATUS_WORD = /^(success|failure|failed|error|rejected|denied|cancelled|timeout)$/i;

function textParts(v: unknown, depth = 0): string[] {
  if (depth > 4) return [];
  if (typeof v === 'string') return v.trim() ? [v] : [];
  if (Array.isArray(v)) return v.flatMap((x) => textParts(x, depth + 1));
  if (!isObj(v)) return [];
  if (typeof v.text === 'string') return [v.text];
  if (typeof v.value === 'string') return [v.value];
  const out: string[] = [];
  for (const k of ['content', 'output', 'stdout', 'stderr', 'result', 'llmContent', 'returnDisplay', 'message', 'data']) {
    // A result that is only an outcome word (Copilot CLI's resultType) is not text.
    if (v[k] === undefined || (k === 'result' && typeof v[k] === 'string' && STATUS_WORD.test(v[k] as string))) continue;
    out.push(...textParts(v[k], depth + 1));
  }
  return out;
}

function errorText(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (isObj(v)) return str(v.message) ?? str(v.error) ?? str(v.text);
  return v === true ? 'failed' : undefined;
}

function hunksOf(patch: unknown): Hunk[] | undefined {
  if (!Array.isArray(patch)) return undefined;
  const out: Hunk[] = [];
  for (const h of patch.slice(0, 200)) {
    if (!isObj(h) || !Array.isArray(h.lines)) continue;
    const ls = (h.lines as unknown[]).filter((l): l is string => typeof l === 'string');
    out.push({ added: ls.filter((l) => l.startsWith('+')).map((l) => l.slice(1)), removed: ls.filter((l) => l.startsWith('-')).map((l) => l.slice(1)) });
  }
  return out;
}

const EXIT_RE = /(?:^|\n)\s*(?:exit code|exit status|exited with(?: code)?|process exited with code|command exited with code|return code)[:\s]+(-?\d+)/i;

/** Claude Code's text for a tool use it refused or that failed (its whole response). */
const TOOL_USE_ERROR_RE = /^\s*<tool_use_error>([\s\S]*?)<\/tool_use_error>\s*$/;

/**
 * Gemini CLI's run_shell_command reports a command as labelled lines: `Command:`, `Directory:`,
 * `Output:` (or `Stdout:` and `Stderr:`), `Error:`, `Exit Code:`, `Signal:`, `Background PIDs:`,
 * `Process Group PGID:`, with "(empty)" and "(none)" for nothing. Its output, error and exit code,
 * not its labels, are what the command did. The last `Error:` line before the trailer is the
 * report's (the output may hold lines that start the same way).
 */
const SHELL_TRAILER_RE = /^([\s\S]*)\nError: (.*)\nExit Code: (.*)\nSignal: .*(?:\nBackground PIDs: .*)?\nProcess Group PGID: .*\s*$/;

function shellReport(text: string): { text: string; error?: string; exit?: number } | undefined {
  if (!text.startsWith('Command: ')) return undefined;
  const m = SHELL_TRAILER_RE.exec(text);
  const head = m?.[1];
  const at = head ? head.search(/\n(?:Output|Stdout): /) : -1;
  if (!m || !head || at < 0 || !head.slice(0, at).includes('\nDirectory: ')) return undefined;
  const body = head.slice(at + 1).replace(/^(?:Output|Stdout): /, '');
  const split = body.lastIndexOf('\nStderr: ');
  const none = (v: string) => (/^\((?:empty|none)\)$/.test(v.trim()) ? '' : v);
  const parts = split < 0 ? [body] : [body.slice(0, split), body.slice(split + '\nStderr: '.length)];
  const error = none(m[2]).trim();
  return { text: parts.map(none).filter((x) => x.trim() !== '').join('\n'), error: error || undefined, exit: num(none(m[3])) };
}

/** Reads a stored tool response (JSON text or plain text). */
export function readOutput(raw: string): ToolOutput {
  let v: unknown = raw;
  const t = raw.trim();
  if (t.startsWith('{') || t.startsWith('[') || t.startsWith('"')) {
    try {
      v = JSON.parse(t);
    } catch {
      v = salvage(t);
    }
  }
  const out: ToolOutput = { text: '', failed: false };
  const report = shellReport(typeof v === 'string' ? v : isObj(v) && typeof v.llmContent === 'string' ? v.llmContent : '');
  if (report) {
    // The report alone: Gemini CLI's returnDisplay repeats its output.
    out.text = report.text;
    out.exit = report.exit;
    const error = report.error ?? (isObj(v) ? errorText(v.error) : undefined);
    if (error) {
      out.failed = true;
      out.error = error;
    }
  } else if (typeof v === 'string') out.text = v;
  else if (Array.isArray(v)) out.text = textParts(v).join('\n');
  else if (isObj(v)) {
    const o = v;
    const file = isObj(o.file) ? o.file : undefined;
    if (file && typeof file.content === 'string') {
      out.text = file.content;
      out.lines = num(file.totalLines) ?? num(file.numLines);
    } else if (file && Array.isArray(file.cells)) {
      // A notebook: its cells' sources are its text.
      out.text = file.cells.map((c) => (isObj(c) ? (typeof c.source === 'string' ? c.source : Array.isArray(c.source) ? c.source.join('') : '') : '')).filter((t) => t.trim() !== '').join('\n');
    } else if (file && typeof file.base64 === 'string') {
      // An image or a PDF, as base64: not text.
      out.media = media(str(o.type) ?? 'binary', str(file.type), num(file.originalSize));
    } else if (o.stdout !== undefined || o.stderr !== undefined) {
      out.text = [str(o.stdout), str(o.stderr)].filter(Boolean).join('\n');
      if (str(o.backgroundTaskId)) out.background = true;
      if (o.interrupted === true) {
        out.failed = true;
        out.error = 'interrupted';
      }
    } else {
      out.text = textParts(o).join('\n');
    }
    out.hunks = hunksOf(o.structuredPatch);
    if (Array.isArray(o.filenames)) out.files = (o.filenames as unknown[]).filter((f): f is string => typeof f === 'string');
    const meta = isObj(o.metadata) ? o.metadata : {};
    out.exit = num(o.exit_code) ?? num(o.exitCode) ?? num(o.returncode) ?? num(meta.exit_code) ?? num(meta.exitCode);
    const code = num(o.code) ?? num(o.status) ?? num(o.statusCode);
    if (code !== undefined && code >= 100 && code < 600) out.status = { code, text: str(o.codeText) ?? str(o.statusText) };
    const err = o.error !== undefined && o.error !== null && o.error !== false ? errorText(o.error) ?? 'failed' : undefined;
    const result = str(o.result) ?? str(o.resultType) ?? str(o.result_type);
    if (err) {
      out.failed = true;
      out.error = err;
      if (!out.text) out.text = err;
    } else if (result && /^(failure|failed|error|rejected|denied|cancelled|timeout)$/i.test(result)) {
      out.failed = true;
      out.error = firstLine(out.text) || result;
    } else if (o.success === false || o.is_error === true || o.isError === true) {
      out.failed = true;
      out.error = firstLine(out.text) || 'failed';
    }
  }
  const wrapped = out.failed ? null : TOOL_USE_ERROR_RE.exec(out.text);
  if (wrapped) {
    out.failed = true;
    out.text = wrapped[1].trim();
    out.error = firstLine(out.text) || 'failed';
  }
  if (out.exit === undefined) {
    const m = EXIT_RE.exec(out.error ?? '') ?? EXIT_RE.exec(out.text);
    if (m) out.exit = Number(m[1]);
  }
  if (out.exit !== undefined && out.exit !== 0 && !out.failed) out.failed = true;
  if (out.status && out.status.code >= 400) {
    out.failed = true;
    out.error ??= `HTTP ${out.status.code}${out.status.text ? ` ${out.status.text}` : ''}`;
  }
  if (!out.media && !out.failed) out.media = inlineMedia(v);
  return out;
}

/** A media note's fields as the response gave them, clipped (they are stored in the note). */
function media(kind: string, type: string | undefined, bytes: number | undefined): ToolOutput['media'] {
  return { kind: kind.slice(0, 24), type: type?.slice(0, 60), bytes };
}

/**
 * An image or a document given as data rather than text: a Gemini API part (`{inlineData:
 * {mimeType, data}}`, Gemini CLI's read_file) or an MCP image content block (`{type: "image",
 * mimeType, data}`), looked for where a response keeps its content.
 */
function inlineMedia(v: unknown, depth = 0): ToolOutput['media'] {
  if (depth > 3) return undefined;
  if (Array.isArray(v)) {
    for (const x of v) {
      const m = inlineMedia(x, depth + 1);
      if (m) return m;
    }
    return undefined;
  }
  if (!isObj(v)) return undefined;
  const part = isObj(v.inlineData) ? v.inlineData : v.type === 'image' ? v : undefined;
  const mime = part ? str(part.mimeType) : undefined;
  if (part && mime) {
    const kind = mime.startsWith('image/') ? 'image' : mime === 'application/pdf' ? 'pdf' : mime.split('/')[0];
    return media(kind, mime, typeof part.data === 'string' ? Math.floor((part.data.length * 3) / 4) : undefined);
  }
  for (const k of ['llmContent', 'content', 'output', 'result']) {
    const m = v[k] === undefined ? undefined : inlineMedia(v[k], depth + 1);
    if (m) return m;
  }
  return undefined;
}

export function firstLine(text: string | undefined, max = 160): string {
  const line = (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  const t = line.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * What a command printed, for its note: every line of a short output, else its first lines and its
 * last (many tools end with their result: a total, a timing, a summary). A line with no letter or
 * digit (a rule, box drawing) says nothing; colour codes are not text, and a line a progress
 * display redrew (carriage returns) is what it showed last.
 */
export function printedLines(text: string, max = 3, width = 120): string[] {
  const said = text
    .split('\n')
    .map((l) => l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/^[\s\S]*\r(?=[^\r]*\S)/, '').trim().replace(/\s+/g, ' '))
    .filter((l) => /[\p{L}\p{N}]/u.test(l));
  const kept = said.length <= max ? said : [...said.slice(0, max - 1), said[said.length - 1]];
  return kept.map((l) => firstLine(l, width));
}

// ---- test runners ----

export interface TestResult {
  passed: number;
  failed: number;
  skipped: number;
  /** Names of failing tests (at most a few). */
  failures: string[];
  /** Names of passing tests (at most a few). */
  passes: string[];
}

const FAIL_NAME = [
  /^\s*(?:✕|✖|×|✗)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/,
  /^\s*●\s+(.+?)\s*$/,
  /^\s*--- FAIL:\s+(\S+)/,
  /^FAILED\s+(\S+)(?:\s+-\s+(.*))?/,
  /^test\s+(\S+)\s+\.\.\.\s+FAILED/,
  /^not ok \d+\s+-?\s*(.+?)\s*(?:#.*)?$/,
  /^\s*\d+\)\s+(.+)$/,
];
const PASS_NAME = [/^\s*(?:✓|✔|√)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/, /^\s*--- PASS:\s+(\S+)/, /^test\s+(\S+)\s+\.\.\.\s+ok$/, /^ok \d+\s+-?\s*(.+?)\s*(?:#.*)?$/];

function countsIn(line: string, words: Record<string, keyof Pick<TestResult, 'passed' | 'failed' | 'skipped'>>): Partial<Record<'passed' | 'failed' | 'skipped', number>> {
  const out: Partial<Record<'passed' | 'failed' | 'skipped', number>> = {};
  const re = /(\d+)\s+([a-z]+)/gi;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const k = words[m[2].toLowerCase()];
    if (k) out[k] = (out[k] ?? 0) + Number(m[1]);
  }
  return out;
}

const WORDS: Record<string, 'passed' | 'failed' | 'skipped'> = { passed: 'passed', passing: 'passed', pass: 'passed', failed: 'failed', failing: 'failed', fail: 'failed', failures: 'failed', errors: 'failed', error: 'failed', skipped: 'skipped', pending: 'skipped', todo: 'skipped', ignored: 'skipped', xfailed: 'skipped' };

/**
 * Test results in a command's output, or undefined when no runner's result lines are there.
 * Output may hold several runs' lines (cargo's per-crate results, go's per-package lines): summed.
 */
export function testResults(text: string): TestResult | undefined {
  const lines = text.split('\n');
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let found = false;
  const add = (c: Partial<Record<'passed' | 'failed' | 'skipped', number>>) => {
    if (c.passed === undefined && c.failed === undefined && c.skipped === undefined) return false;
    passed += c.passed ?? 0;
    failed += c.failed ?? 0;
    skipped += c.skipped ?? 0;
    found = true;
    return true;
  };
  // node:test's TAP and spec reporters: "# pass 3" / "ℹ fail 1".
  const nodeTest: Partial<Record<'passed' | 'failed' | 'skipped', number>> = {};
  for (const l of lines) {
    const m = /^\s*(?:#|ℹ)\s+(pass|fail|skipped|todo)\s+(\d+)\s*$/.exec(l);
    if (m) nodeTest[WORDS[m[1]]] = (nodeTest[WORDS[m[1]]] ?? 0) + Number(m[2]);
  }
  if (!add(nodeTest)) {
    for (const l of lines) {
      const s = l.replace(/\x1b\[[0-9;]*m/g, '');
      // jest "Tests: 1 failed, 2 passed, 3 total"; vitest "Tests  1 failed | 2 passed (3)".
      let m = /(?:^|[\s,;])Tests?:?\s+((?:\d+\s+[a-z]+[\s,|]*)+)/i.exec(s);
      if (m && /\d+\s+(passed|failed|skipped|todo)/i.test(m[1])) {
        add(countsIn(m[1], WORDS));
        continue;
      }
      // cargo "test result: ok. 3 passed; 0 failed; 0 ignored".
      m = /test result:\s+\w+\.\s+(.*)$/i.exec(s);
      if (m) {
        add(countsIn(m[1], WORDS));
        continue;
      }
      // pytest "==== 2 passed, 1 failed in 0.12s ====".
      m = /^=*\s*(\d+\s+(?:passed|failed|error|errors|skipped)[^=]*?)\s+in\s+[\d.]+m?s\b/i.exec(s);
      if (m) {
        add(countsIn(m[1], WORDS));
        continue;
      }
      // mocha "3 passing", "1 failing".
      m = /^\s*(\d+)\s+(passing|failing|pending)\b/.exec(s);
      if (m) add({ [WORDS[m[2]]]: Number(m[1]) });
    }
  }
  const failures: string[] = [];
  const passes: string[] = [];
  let goPass = 0;
  let goFail = 0;
  let goPkgOk = 0;
  let goPkgFail = 0;
  for (const l of lines) {
    const s = l.replace(/\x1b\[[0-9;]*m/g, '');
    if (/^\s*--- PASS:/.test(s)) goPass++;
    if (/^\s*--- FAIL:/.test(s)) goFail++;
    if (/^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/.test(s)) goPkgOk++;
    if (/^FAIL\s+\S+\s+[\d.]+s/.test(s)) goPkgFail++;
    for (const re of FAIL_NAME) {
      const m = re.exec(s);
      if (m && failures.length < 5) {
        const name = (m[2] ? `${m[1]} - ${m[2]}` : m[1]).trim();
        if (name && !failures.includes(name) && !/^\d+ (failing|passing)/.test(name) && !/:$/.test(name)) failures.push(name);
        break;
      }
    }
    for (const re of PASS_NAME) {
      const m = re.exec(s);
      if (m && passes.length < 5) {
        const name = m[1].trim();
        if (name && !passes.includes(name)) passes.push(name);
        break;
      }
    }
  }
  if (!found && (goPass || goFail || goPkgOk || goPkgFail)) {
    found = true;
    passed = goPass || (goFail ? 0 : goPkgOk);
    failed = goFail || goPkgFail;
  }
  // Inline check marks alone ("✓ a, ✓ b") with no summary line: count them.
  if (!found) {
    const ticks = (text.match(/(?:^|[\s,])(?:✓|✔)\s/g) ?? []).length;
    const crosses = (text.match(/(?:^|[\s,])(?:✕|✖|✗)\s/g) ?? []).length;
    if (ticks + crosses > 0) {
      found = true;
      passed = ticks;
      failed = crosses;
    }
  }
  if (!found) return undefined;
  // "✓ a, ✓ b, Tests: 2 passed" on one line: names from the inline marks.
  if (passes.length <= 1) {
    const inline = [...text.matchAll(/(?:✓|✔)\s+([^,✓✔✕✖✗\n]+?)(?=,|\n|$|\s+Tests?:)/g)].map((m) => m[1].trim()).filter(Boolean);
    if (inline.length > passes.length) passes.splice(0, passes.length, ...inline.slice(0, 5));
  }
  if (failures.length === 0) {
    const inline = [...text.matchAll(/(?:✕|✖|✗)\s+([^,✓✔✕✖✗\n]+?)(?=,|\n|$)/g)].map((m) => m[1].trim()).filter(Boolean);
    failures.push(...inline.slice(0, 5));
  }
  return { passed, failed, skipped, failures, passes };
}

/** "2 passed", "1 failed, 2 passed": how a test run ended. */
export function testPhrase(r: TestResult): string {
  const parts: string[] = [];
  if (r.failed > 0) parts.push(`${r.failed} failed`);
  parts.push(`${r.passed} passed`);
  if (r.skipped > 0) parts.push(`${r.skipped} skipped`);
  return parts.join(', ');
}

const TEST_CMD = /(?:^|[\s;&|(])(?:npm\s+(?:run\s+)?t(?:est)?(?::\S+)?|pnpm\s+(?:run\s+)?test|yarn\s+(?:run\s+)?test|bun\s+test|npx\s+(?:jest|vitest|mocha)|jest|vitest|mocha|ava|tap|node\s+(?:--\S+\s+)*--test|pytest|py\.test|python3?\s+-m\s+(?:pytest|unittest)|tox|nox|go\s+test|cargo\s+(?:test|nextest)|dotnet\s+test|mvn\s+(?:\S+\s+)*test|gradle\w*\s+test|rspec|phpunit|deno\s+test|make\s+(?:check|test))(?:\s|$)/i;

/** The command runs tests. */
export function isTestCommand(cmd: string): boolean {
  return TEST_CMD.test(` ${cmd} `);
}

const BUILD_CMD = /(?:^|[\s;&|(])(?:tsc|eslint|ruff|flake8|mypy|pyright|clippy|golangci-lint|go\s+(?:build|vet)|cargo\s+(?:build|check|clippy)|npm\s+run\s+(?:build|lint|typecheck|check)|make(?:\s|$)|gcc|clang|javac|dotnet\s+build|mvn\s+compile)/i;

/** The command builds, type-checks or lints. */
export function isBuildCommand(cmd: string): boolean {
  return BUILD_CMD.test(` ${cmd} `);
}

const LOOK_CMD = /^\s*(?:ls|ll|nl|cat|head|tail|less|more|grep|rg|ag|find|fd|tree|pwd|wc|stat|file|du|df|which|whereis|type|echo|env|printenv|ps|sed\s+-n|awk|jq|git\s+(?:status|log|diff|show|blame|branch|remote|rev-parse|ls-files|grep)|npm\s+(?:ls|view|outdated)|node\s+-[vpe]|python3?\s+--version)\b/i;

/** The command only looks (lists, prints, searches); it changes nothing. */
export function isLookCommand(cmd: string): boolean {
  return LOOK_CMD.test(cmd);
}

// ---- compiler and linter errors ----

const DIAGNOSTIC = [
  /^(.+?)\((\d+),(\d+)\):\s+error\s+(TS\d+):\s*(.*)$/, // tsc
  /^(.+?):(\d+):(\d+)\s+-\s+error\s+(TS\d+):\s*(.*)$/, // tsc --pretty
  /^(.+?):(\d+):(\d+):\s+(?:fatal\s+)?error:\s*(.*)$/, // gcc/clang/swift
  /^error(\[E\d+\])?:\s+(.*)$/, // rustc
  /^(.+?\.go):(\d+):(\d+):\s+(.*)$/, // go
  /^\s*(\d+):(\d+)\s+error\s+(.*)$/, // eslint stylish
  /^(.+?):(\d+):(\d+):\s+([A-Z]\d{3,4})\s+(.*)$/, // ruff/flake8
  /^(.+?):(\d+):\s+error:\s+(.*)$/, // mypy
  /^(?:\w+\.)*(\w*(?:Error|Exception)):\s+(.*)$/, // Python / JS exceptions
  /^\s*(?:Error|ERROR|FATAL|fatal|npm ERR!|error)(?:\[[^\]]*\])?:?\s+(.*)$/, // generic
  /^\s*(?:Expected|Received|expected|AssertionError)\b.*$/,
  /^\s*✖\s+\d+\s+problems?\b.*$/, // eslint total
];

/** Error lines of a command's output: compiler, linter, exception and assertion lines, at most max. */
export function errorLines(text: string, max = 3): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const l = raw.replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
    if (!l.trim() || l.length > 1000) continue;
    if (DIAGNOSTIC.some((re) => re.test(l))) {
      const line = firstLine(l, 200);
      if (!out.includes(line)) out.push(line);
      if (out.length >= max) break;
    }
  }
  return out;
}

// ---- paths ----

/** Text with the working directory and home directories taken out of absolute paths. */
export function relText(text: string, cwd?: string): string {
  let t = text;
  if (cwd && cwd.length > 1) {
    const c = cwd.replace(/[/\\]+$/, '');
    t = t.split(`${c}/`).join('').split(`${c}\\`).join('').split(c).join('.');
  }
  return t.replace(/(?:\/(?:home|Users)\/[^/\s"']+|[A-Za-z]:\\Users\\[^\\\s"']+)(?=[/\\])/g, '~');
}
