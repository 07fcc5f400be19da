// The recorded coding history both products replay: a deterministic function of a seed.
// 12 sessions over 3 projects, 36 prompts, 500 tool uses, each prompt ending with a Stop and
// each session with a SessionEnd. Every tool use carries the observation a model would write for
// it, and every prompt the summary; the fake model servers answer with exactly these, so both
// products store the same memory and differ only in how they capture, queue, index and serve it.
//
// Each tool response starts with a trace id (`trace-id: wl-T0042`) and each Stop's last assistant
// message ends with one (`wl-P0301`): that is how a fake model server knows which recorded
// observation or summary a request is about, whatever the product's prompt looks like.

export const SEED = 20261202;

/** mulberry32: small, fast, deterministic. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROJECTS = [
  {
    name: 'atlas-api',
    kind: 'HTTP API in TypeScript',
    modules: [
      { file: 'src/http/rateLimiter.ts', topic: 'rate limiter', nouns: ['bucket', 'refill', 'quota', 'burst'] },
      { file: 'src/auth/jwtVerifier.ts', topic: 'jwt verification', nouns: ['signature', 'audience', 'clock skew', 'issuer'] },
      { file: 'src/db/pool.ts', topic: 'connection pool', nouns: ['idle timeout', 'max clients', 'checkout', 'leak'] },
      { file: 'src/http/pagination.ts', topic: 'pagination cursor', nouns: ['cursor', 'page size', 'sort key', 'offset'] },
      { file: 'src/jobs/retry.ts', topic: 'retry backoff', nouns: ['jitter', 'attempts', 'backoff', 'deadline'] },
      { file: 'src/cache/sessionCache.ts', topic: 'session cache', nouns: ['ttl', 'eviction', 'hit rate', 'stampede'] },
    ],
  },
  {
    name: 'borealis-web',
    kind: 'React single-page app',
    modules: [
      { file: 'src/components/DataGrid.tsx', topic: 'data grid', nouns: ['virtual rows', 'column resize', 'sticky header', 'selection'] },
      { file: 'src/state/cartStore.ts', topic: 'cart store', nouns: ['line items', 'coupon', 'persistence', 'totals'] },
      { file: 'src/i18n/formatters.ts', topic: 'locale formatting', nouns: ['currency', 'plural rules', 'date format', 'fallback locale'] },
      { file: 'src/hooks/useDebouncedSearch.ts', topic: 'debounced search', nouns: ['debounce', 'abort', 'stale response', 'suggestions'] },
      { file: 'src/routes/checkout.tsx', topic: 'checkout flow', nouns: ['address form', 'payment step', 'validation', 'redirect'] },
      { file: 'src/theme/tokens.ts', topic: 'design tokens', nouns: ['contrast', 'spacing scale', 'dark mode', 'focus ring'] },
    ],
  },
  {
    name: 'cobalt-cli',
    kind: 'command-line tool in Go',
    modules: [
      { file: 'cmd/sync/main.go', topic: 'sync command', nouns: ['dry run', 'conflict', 'manifest', 'checksum'] },
      { file: 'internal/config/loader.go', topic: 'config loader', nouns: ['yaml', 'env override', 'defaults', 'schema'] },
      { file: 'internal/archive/tarball.go', topic: 'tarball writer', nouns: ['symlink', 'permissions', 'gzip level', 'streaming'] },
      { file: 'internal/progress/bar.go', topic: 'progress bar', nouns: ['terminal width', 'refresh rate', 'eta', 'spinner'] },
      { file: 'internal/net/uploader.go', topic: 'multipart uploader', nouns: ['chunk size', 'resume', 'etag', 'parallelism'] },
      { file: 'internal/log/rotate.go', topic: 'log rotation', nouns: ['max size', 'compression', 'retention', 'file handle'] },
    ],
  },
];

const VERBS = ['parse', 'load', 'flush', 'merge', 'resolve', 'encode', 'verify', 'compute', 'render', 'schedule', 'drain', 'normalize'];
const OBJECTS = ['Header', 'Window', 'Token', 'Batch', 'Entry', 'Chunk', 'Segment', 'Frame', 'Record', 'Slot', 'Range', 'Limit'];
const SUFFIXES = ['', 'Async', 'Safe', 'Once', 'Locked', 'Fast'];
const ATTRS = ['capped at', 'raised to', 'lowered to', 'set to', 'measured at', 'limited to'];
const UNITS = ['ms', 'seconds', 'items', 'kb', 'percent', 'retries'];
const TASKS = [
  { verb: 'Fix', kind: 'bugfix', phrase: 'a bug in' },
  { verb: 'Add', kind: 'feature', phrase: 'support for' },
  { verb: 'Refactor', kind: 'refactor', phrase: 'the code of' },
  { verb: 'Investigate', kind: 'discovery', phrase: 'slow behaviour of' },
  { verb: 'Change', kind: 'change', phrase: 'the defaults of' },
];
const CONCEPTS = ['how-it-works', 'why-it-exists', 'what-changed', 'problem-solution', 'gotcha', 'pattern', 'trade-off'];
const TOOLS = ['Read', 'Read', 'Read', 'Grep', 'Edit', 'Edit', 'Bash', 'Bash', 'Glob', 'Write'];

/**
 * @param {{seed?: number, sessions?: number, toolUses?: number, root?: string}} opts
 * root: the folder the project directories live in (cwd of every event).
 */
export function generateWorkload({ seed = SEED, sessions = 12, toolUses = 500, root = '/tmp/cmem-compare/projects' } = {}) {
  const r = rng(seed);
  const pick = (arr) => arr[Math.floor(r() * arr.length)];
  const usedSymbols = new Set();
  const usedDetails = new Set();
  const symbol = () => {
    for (;;) {
      const s = `${pick(VERBS)}${pick(OBJECTS)}${pick(SUFFIXES)}`;
      if (!usedSymbols.has(s)) {
        usedSymbols.add(s);
        return s;
      }
      if (usedSymbols.size > VERBS.length * OBJECTS.length * SUFFIXES.length - 10) return `${s}${usedSymbols.size}`;
    }
  };
  const detailFor = (mod) => {
    for (let k = 0; k < 1000; k++) {
      const noun = pick(mod.nouns);
      const attr = pick(ATTRS);
      const value = 5 * (1 + Math.floor(r() * 199));
      const unit = pick(UNITS);
      const key = `${mod.topic}|${noun}|${value}`;
      if (usedDetails.has(key)) continue;
      usedDetails.add(key);
      return { noun, attr, value, unit, text: `${noun} ${attr} ${value} ${unit}` };
    }
    throw new Error('detail space exhausted');
  };

  // Split prompts and tool uses deterministically.
  const promptsPerSession = Array.from({ length: sessions }, (_, i) => 2 + ((i * 7 + 1) % 3)); // 2..4
  const totalPrompts = promptsPerSession.reduce((a, b) => a + b, 0);
  const perPrompt = Array.from({ length: totalPrompts }, () => Math.floor(toolUses / totalPrompts));
  const remainder = toolUses - perPrompt.reduce((a, b) => a + b, 0);
  for (let k = 0; k < remainder; k++) perPrompt[k % totalPrompts]++;

  const start = Date.UTC(2026, 10, 2, 9, 0, 0); // a fixed history start
  let clock = start;
  let t = 0;
  let pIndex = 0;
  const out = [];
  for (let s = 0; s < sessions; s++) {
    const project = PROJECTS[s % PROJECTS.length];
    const sessionId = `wl-session-${String(s).padStart(2, '0')}-${(seed % 100000).toString(36)}`;
    const cwd = `${root}/${project.name}`;
    const session = { index: s, sessionId, project: project.name, cwd, startedAt: clock, prompts: [], endReason: s % 4 === 3 ? 'clear' : 'prompt_input_exit' };
    for (let p = 0; p < promptsPerSession[s]; p++) {
      const mod = project.modules[(s * 5 + p * 3) % project.modules.length];
      const task = TASKS[(s + p * 2) % TASKS.length];
      const promptMarker = `wl-P${String(s).padStart(2, '0')}${String(p + 1).padStart(2, '0')}`;
      const prompt = {
        number: p + 1,
        marker: promptMarker,
        text: `${task.verb} ${task.phrase} the ${mod.topic} in ${mod.file}: ${pick(mod.nouns)} looks wrong under load.`,
        module: mod.file,
        topic: mod.topic,
        toolUses: [],
      };
      clock += 20_000;
      const n = perPrompt[pIndex++];
      const details = [];
      for (let u = 0; u < n; u++) {
        t++;
        clock += 5_000 + Math.floor(r() * 40_000);
        const id = `wl-T${String(t).padStart(4, '0')}`;
        const tool = u === 0 ? 'Grep' : u === n - 1 ? 'Bash' : pick(TOOLS);
        const other = project.modules[Math.floor(r() * project.modules.length)];
        const target = r() < 0.7 ? mod : other;
        const sym = symbol();
        const detail = detailFor(target);
        details.push(detail.text);
        const abs = `${cwd}/${target.file}`;
        const lines = Array.from({ length: (tool === 'Read' ? 30 : 8) + Math.floor(r() * 40) }, (_, i) => `  // ${target.topic}: ${pick(target.nouns)} handling, step ${i + 1}`);
        let tool_input;
        let tool_response;
        switch (tool) {
          case 'Read': {
            const content = `// trace-id: ${id}\nexport function ${sym}(input) {\n  // ${detail.text}\n${lines.join('\n')}\n}\n`;
            tool_input = { file_path: abs };
            tool_response = { type: 'text', file: { filePath: abs, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length } };
            break;
          }
          case 'Edit': {
            const oldString = `  const ${detail.noun.replace(/\s+/g, '_')} = ${detail.value * 2};`;
            const newString = `  // trace-id: ${id}\n  const ${detail.noun.replace(/\s+/g, '_')} = ${detail.value}; // ${detail.attr} ${detail.value} ${detail.unit} in ${sym}`;
            tool_input = { file_path: abs, old_string: oldString, new_string: newString, replace_all: false };
            tool_response = { filePath: abs, oldString, newString, originalFile: null, structuredPatch: [], userModified: false, replaceAll: false };
            break;
          }
          case 'Write': {
            const content = `// trace-id: ${id}\n// ${detail.text}\nexport const ${sym} = () => null;\n${lines.slice(0, 6).join('\n')}\n`;
            const path = abs.replace(/(\.\w+)$/, `.${sym}$1`);
            tool_input = { file_path: path, content };
            tool_response = { type: 'create', filePath: path, content, structuredPatch: [] };
            break;
          }
          case 'Bash': {
            const cmd = project.name === 'cobalt-cli' ? `go test ./${target.file.split('/').slice(0, -1).join('/')}/... -run ${sym}` : `npx vitest run ${target.file.replace(/\.tsx?$/, '.test.ts')} -t ${sym}`;
            tool_input = { command: cmd, description: `Run the ${target.topic} tests` };
            tool_response = { stdout: `trace-id: ${id}\n${lines.slice(0, 5).map((l) => `ok ${l.trim()}`).join('\n')}\nPASS ${sym}: ${detail.text}\n`, stderr: '', interrupted: false, isImage: false };
            break;
          }
          case 'Grep': {
            tool_input = { pattern: sym, path: cwd, output_mode: 'content' };
            tool_response = { mode: 'content', numFiles: 1, filenames: [target.file], content: `trace-id: ${id}\n${target.file}:12:export function ${sym}() { /* ${detail.text} */ }`, numLines: 2 };
            break;
          }
          default: {
            // Glob
            tool_input = { pattern: `**/*${target.file.split('/').pop().split('.')[0]}*` };
            tool_response = { filenames: [`trace-id: ${id}`, target.file, target.file.replace(/(\.\w+)$/, '.test$1')], durationMs: 3, numFiles: 2, truncated: false };
          }
        }
        const type = tool === 'Edit' || tool === 'Write' ? task.kind : tool === 'Bash' ? (task.kind === 'discovery' ? 'discovery' : 'change') : 'discovery';
        const verbWord = { Read: 'Read', Grep: 'Located', Glob: 'Listed', Edit: 'Changed', Write: 'Created', Bash: 'Tested' }[tool];
        const observation = {
          type,
          title: `${verbWord} ${sym} in ${target.file.split('/').pop()}`,
          subtitle: `${target.topic}: ${detail.noun}`,
          facts: [`${sym} lives in ${target.file}`, `${target.topic} ${detail.text}`, `${tool} during: ${task.verb.toLowerCase()} ${mod.topic}`],
          narrative: `While working to ${task.verb.toLowerCase()} the ${mod.topic}, ${tool === 'Edit' || tool === 'Write' ? 'changed' : 'looked at'} ${sym} in ${target.file}; the ${target.topic} ${detail.noun} is ${detail.attr} ${detail.value} ${detail.unit}.`,
          concepts: [CONCEPTS[t % CONCEPTS.length], CONCEPTS[(t * 3 + 1) % CONCEPTS.length]].filter((c, i, a) => a.indexOf(c) === i),
          files_read: tool === 'Edit' || tool === 'Write' ? [] : [target.file],
          files_modified: tool === 'Edit' || tool === 'Write' ? [tool === 'Write' ? tool_input.file_path.slice(cwd.length + 1) : target.file] : [],
        };
        prompt.toolUses.push({ id, tool_name: tool, tool_input, tool_response, tool_use_id: `toolu_${id.slice(3)}_${seed % 1000}`, at: clock, observation, detail, topic: target.topic, symbol: sym });
      }
      const summary = {
        request: prompt.text,
        investigated: `Looked at ${mod.file} and ${n} tool results around the ${mod.topic}.`,
        learned: `The ${mod.topic} ${details[0] ?? 'was fine'}; ${details[1] ?? ''}`.trim(),
        completed: `${task.verb} done for the ${mod.topic} (${task.kind}).`,
        next_steps: `Watch the ${mod.topic} metrics after deploy.`,
        notes: `Prompt ${p + 1} of session ${s}.`,
      };
      prompt.summary = summary;
      prompt.assistantMessage = `${task.verb} complete: the ${mod.topic} in ${mod.file} now behaves; ${details.slice(0, 2).join(', ')}. (ref ${promptMarker})`;
      clock += 30_000;
      session.prompts.push(prompt);
    }
    clock += 3 * 3600_000;
    out.push(session);
  }

  // Questions: a keyword query a developer would type, answered by exactly one recorded observation.
  const all = out.flatMap((s) => s.prompts.flatMap((p) => p.toolUses.map((u) => ({ ...u, project: s.project }))));
  const questions = [];
  const stride = Math.max(1, Math.floor(all.length / 50));
  for (let k = 0; k < all.length && questions.length < 50; k += stride) {
    const u = all[k];
    questions.push({ id: `Q${questions.length + 1}`, project: u.project, query: [...new Set(`${u.topic} ${u.detail.noun} ${u.detail.value}`.split(' '))].join(' '), answers: [u.id] });
  }
  return { format: 'claude-mem-compare/workload', version: 1, seed, root, projects: PROJECTS.map((p) => p.name), sessions: out, questions };
}

/** The tool uses in replay order, flattened (handy for counting and lookups). */
export function allToolUses(w) {
  return w.sessions.flatMap((s) => s.prompts.flatMap((p) => p.toolUses));
}

/** Observation and summary records by trace id, for the fake model servers. */
export function answerBook(w) {
  const observations = {};
  const summaries = {};
  for (const s of w.sessions) {
    for (const p of s.prompts) {
      summaries[p.marker] = p.summary;
      for (const u of p.toolUses) observations[u.id] = u.observation;
    }
  }
  return { observations, summaries };
}
