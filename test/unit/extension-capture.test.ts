// The extension's event-to-observation mapping, exclusions, secret paths, private tags, untrusted
// workspaces and the idle timer, all vscode-free (extension/core/**), on a fake clock.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { handleChat } from '../../extension/chat/handler';
import { Capture, ContentCache, DEFAULT_CAPTURE, folderLookup, type CaptureHost, type CaptureSettings } from '../../extension/core/capture';
import { diffSummary } from '../../extension/core/diff';
import { Exclusions, GitIgnore, isSecretPath, parseGitignore } from '../../extension/core/exclusions';
import { matchesAnyGlob } from '../../extension/core/glob';
import { IdleTimer, type IdleSummary } from '../../extension/core/idle';
import { BoundedOutput, cleanTerminalOutput, mapEvent, redactSecrets } from '../../extension/core/observe';
import { QueuedPoster } from '../../extension/core/poster';
import { SessionTracker } from '../../extension/core/session';
import { contextParams, enabledGlobs, readSettings, workerEnv } from '../../extension/core/settings';
import type { Timers } from '../../extension/core/timers';

/** A manual clock: timers fire only when advanced. */
class FakeClock implements Timers {
  t = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (h: unknown) => void this.timers.delete(h as number);
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.timers.entries()].filter(([, v]) => v.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }
  get pending(): number {
    return this.timers.size;
  }
}

const ROOT = '/work/proj';
const f = (rel: string) => path.join(ROOT, rel);

function host(over: Partial<CaptureHost> & { settings?: () => CaptureSettings } = {}) {
  const sent: Array<{ project: string; req: Record<string, unknown> }> = [];
  const h: CaptureHost = {
    trusted: () => true,
    paused: () => false,
    settings: () => DEFAULT_CAPTURE,
    exclusions: new Exclusions({ globs: [], filesExclude: [], respectGitignore: false }),
    folderOf: folderLookup(() => [ROOT]),
    primaryFolder: () => ROOT,
    projectOf: (folder) => (folder ? path.basename(folder) : 'unknown'),
    send: (project, req) => void sent.push({ project, req: req as unknown as Record<string, unknown> }),
    ...over,
  };
  return { h, sent };
}

describe('diff summaries', () => {
  it('counts added and removed lines and shows only the changed hunks', () => {
    const before = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    const lines = before.split('\n');
    lines[10] = 'line 10 changed';
    lines.splice(150, 2);
    lines.push('appended');
    const d = diffSummary(before, lines.join('\n'));
    assert.equal(d.added, 2);
    assert.equal(d.removed, 3);
    assert.equal(d.hunks, 3);
    assert.match(d.excerpt, /^@@ -11 \+11 @@\n-line 10\n\+line 10 changed/);
    assert.ok(!d.excerpt.includes('line 100'), 'unchanged lines stay out of the excerpt');
  });

  it('bounds the excerpt however large the change', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i} ${'x'.repeat(50)}`).join('\n');
    const after = Array.from({ length: 3000 }, (_, i) => `b${i} ${'y'.repeat(50)}`).join('\n');
    const d = diffSummary(before, after, { maxChars: 800 });
    assert.ok(d.excerpt.length <= 900, `excerpt is ${d.excerpt.length} chars`);
    assert.equal(d.added, 3000);
    assert.equal(d.removed, 3000);
    assert.equal(d.approximate, true);
  });

  it('identical content is no change', () => assert.deepEqual(diffSummary('a\nb', 'a\nb\n').added, 0));
});

describe('event to observation mapping', () => {
  it('maps each kind to the tool names the local heuristic understands', () => {
    const cases = [
      [{ kind: 'save', file: f('a.ts'), before: 'x\n', after: 'x\ny\n' }, 'FileSave', { file: f('a.ts'), added: 1, removed: 0 }],
      [{ kind: 'create', file: f('b.ts') }, 'FileCreate', { file_path: f('b.ts') }],
      [{ kind: 'delete', file: f('b.ts') }, 'FileDelete', { file_path: f('b.ts') }],
      [{ kind: 'rename', file: f('b.ts'), newFile: f('c.ts') }, 'FileRename', { file_path: f('b.ts'), new_path: f('c.ts') }],
      [{ kind: 'terminal', commandLine: 'npm test', exitCode: 1, output: 'FAIL' }, 'TerminalCommand', { commandLine: 'npm test', exitCode: 1 }],
      [{ kind: 'task', task: 'build', exitCode: 0 }, 'TaskEnd', { task: 'build', exitCode: 0 }],
      [{ kind: 'debug', name: 'Launch', type: 'node' }, 'DebugSessionEnd', { name: 'Launch', type: 'node' }],
      [{ kind: 'focus', file: f('a.ts') }, 'FileFocus', { file_path: f('a.ts') }],
    ] as const;
    for (const [event, tool, input] of cases) {
      const r = mapEvent(event as Parameters<typeof mapEvent>[0], ROOT);
      assert.ok(r.ok, `${event.kind} maps`);
      assert.equal(r.req.tool_name, tool);
      assert.equal(r.req.cwd, ROOT);
      for (const [k, v] of Object.entries(input)) assert.deepEqual((r.req.tool_input as Record<string, unknown>)[k], v, `${tool}.${k}`);
    }
  });

  it('a save with no change is not an observation; one with no known baseline reports its size', () => {
    assert.deepEqual(mapEvent({ kind: 'save', file: f('a'), before: 'same', after: 'same' }, ROOT), { ok: false, skipped: 'no_change' });
    const r = mapEvent({ kind: 'save', file: f('a'), before: undefined, after: 'a\nb\n' }, ROOT);
    assert.ok(r.ok);
    assert.equal((r.req.tool_input as { baseline: boolean; lines: number }).lines, 2);
  });

  it('removes private blocks before diffing, so no excerpt holds a part of one', () => {
    const before = 'public\n<private>\nsecret=one\n</private>\nend\n';
    const after = 'public\n<private>\nsecret=two\n</private>\nend\n';
    assert.deepEqual(mapEvent({ kind: 'save', file: f('a'), before, after }, ROOT), { ok: false, skipped: 'no_change' });
    const r = mapEvent({ kind: 'save', file: f('a'), before, after: after.replace('end', 'end2') }, ROOT);
    assert.ok(r.ok);
    const excerpt = (r.req.tool_input as { excerpt: string }).excerpt;
    assert.ok(!/secret|one|two/.test(excerpt), excerpt);
  });

  it('terminal: strips escapes, honours <private>, redacts credentials, skips space-prefixed commands, bounds output', () => {
    const r = mapEvent({ kind: 'terminal', commandLine: 'export API_TOKEN=abc123 && deploy', exitCode: 0, output: `\u001b]633;C\u0007ok \u001b[32mgreen\u001b[0m <private>hidden</private>\n${'z'.repeat(10_000)}` }, ROOT, { excerptChars: 100, outputChars: 500 });
    assert.ok(r.ok);
    assert.equal((r.req.tool_input as { commandLine: string }).commandLine, 'export API_TOKEN=[redacted] && deploy');
    const out = r.req.tool_response as string;
    assert.ok(out.startsWith('ok green'), out.slice(0, 40));
    assert.ok(!out.includes('hidden'));
    assert.ok(out.length < 600);
    assert.deepEqual(mapEvent({ kind: 'terminal', commandLine: ' secret-cmd', exitCode: 0 }, ROOT), { ok: false, skipped: 'ignored_command' });
    assert.deepEqual(mapEvent({ kind: 'terminal', commandLine: '<private>curl -u me:pw x</private>', exitCode: 0 }, ROOT), { ok: false, skipped: 'private_content' });
  });

  it('redacts well-known key formats and secret assignments', () => {
    assert.equal(redactSecrets('key sk-ant-api03-abcdefghijklmnop'), 'key [redacted]');
    assert.equal(redactSecrets('mysql --password=hunter2'), 'mysql --password=[redacted]');
    assert.equal(redactSecrets('const tokenCount = 5;'), 'const tokenCount = 5;');
    assert.equal(cleanTerminalOutput('50%\r100%\r\ndone'), '100%\ndone');
  });

  it('keeps the head and tail of streamed output', () => {
    const b = new BoundedOutput(20);
    for (let i = 0; i < 100; i++) b.push(String(i % 10));
    const t = b.text();
    assert.ok(t.startsWith('0123456789'));
    assert.ok(t.endsWith('0123456789'));
    assert.match(t, /80 characters/);
  });
});

describe('exclusions', () => {
  it('recognises secret-looking paths', () => {
    for (const p of ['/p/.env', '/p/.env.local', '/p/prod.env', '/p/cert.pem', '/p/server.key', '/h/.ssh/id_rsa', '/p/id_ed25519.pub', '/p/credentials.json', '/p/.aws/config', '/p/.npmrc', '/p/terraform.tfvars', '/p/sub/SECRETS.yaml']) {
      assert.ok(isSecretPath(p), p);
    }
    for (const p of ['/p/src/env.ts', '/p/environment.md', '/p/keyboard.ts', '/p/src/keys.ts', '/p/README.md']) assert.ok(!isSecretPath(p), p);
  });

  it('matches globs with **, *, ? and {a,b}', () => {
    assert.ok(matchesAnyGlob('node_modules/x/y.js', ['**/node_modules']));
    assert.ok(matchesAnyGlob('src/gen/a.ts', ['src/gen/**']));
    assert.ok(matchesAnyGlob('a/b/c.sql', ['*.sql']));
    assert.ok(matchesAnyGlob('a/b/c.map', ['**/*.{js,map}']));
    assert.ok(!matchesAnyGlob('a/b/c.ts', ['**/*.{js,map}']));
    assert.ok(matchesAnyGlob('x/.DS_Store', ['**/.DS_Store']));
  });

  it('follows .gitignore: nested files, negation, dir-only and anchored patterns, ignored parents', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-gi-'));
    fs.mkdirSync(path.join(dir, '.git'));
    fs.mkdirSync(path.join(dir, 'src', 'gen'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.gitignore'), '# build\ndist/\n*.log\n!keep.log\n/top.txt\nbuild\n');
    fs.writeFileSync(path.join(dir, 'src', '.gitignore'), 'gen/\n');
    const gi = new GitIgnore();
    const ig = (rel: string) => gi.isIgnored(path.join(dir, rel));
    assert.ok(ig('dist/a.js'));
    assert.ok(ig('x/dist/a.js'), 'unanchored dir pattern at any depth');
    assert.ok(ig('a.log'));
    assert.ok(!ig('keep.log'), 'negation re-includes');
    assert.ok(ig('top.txt'));
    assert.ok(!ig('sub/top.txt'), 'anchored pattern only at the root');
    assert.ok(ig('src/gen/x.ts'), 'nested .gitignore');
    assert.ok(ig('build/out/x.ts'), 'an ignored folder hides what is inside');
    assert.ok(!ig('src/main.ts'));
    assert.ok(ig('.git/config'));
    assert.equal(parseGitignore('\n# only comments\n').length, 0);
  });

  it('says why a file is excluded', () => {
    const ex = new Exclusions({ globs: ['**/fixtures/**'], filesExclude: ['**/.vscode-test'], respectGitignore: false });
    assert.equal(ex.check(f('.env'), ROOT), 'secret');
    assert.equal(ex.check(f('test/fixtures/a.json'), ROOT), 'user_glob');
    assert.equal(ex.check(f('.vscode-test/x/y'), ROOT), 'files_exclude');
    assert.equal(ex.check('/elsewhere/a.ts', undefined), 'outside_workspace');
    assert.equal(ex.check(f('src/a.ts'), ROOT), undefined);
    assert.deepEqual(enabledGlobs({ '**/.git': true, '**/off': false, '**/*.js': { when: '$(basename).ts' } }), ['**/.git', '**/*.js']);
  });
});

describe('capture pipeline', () => {
  it('sends every kind with the project of its folder', () => {
    const { h, sent } = host();
    const c = new Capture(h);
    c.remember(f('a.ts'), 'one\n');
    assert.equal(c.handle({ kind: 'save', file: f('a.ts'), before: undefined, after: 'one\ntwo\n' }).sent, true);
    c.handle({ kind: 'create', file: f('n.ts') });
    c.handle({ kind: 'rename', file: f('n.ts'), newFile: f('m.ts') });
    c.handle({ kind: 'delete', file: f('m.ts') });
    c.handle({ kind: 'terminal', commandLine: 'ls', exitCode: 0, cwd: f('src') });
    c.handle({ kind: 'task', task: 'build', exitCode: 2 });
    c.handle({ kind: 'debug', name: 'Launch' });
    c.handle({ kind: 'focus', file: f('a.ts') });
    assert.deepEqual(
      sent.map((s) => s.req.tool_name),
      ['FileSave', 'FileCreate', 'FileRename', 'FileDelete', 'TerminalCommand', 'TaskEnd', 'DebugSessionEnd', 'FileFocus'],
    );
    assert.ok(sent.every((s) => s.project === 'proj'));
    assert.deepEqual((sent[0].req.tool_input as { added: number }).added, 1);
  });

  it('diffs each save against the previous save', () => {
    const { h, sent } = host();
    const c = new Capture(h);
    c.remember(f('a.ts'), 'a\n');
    c.handle({ kind: 'save', file: f('a.ts'), before: undefined, after: 'a\nb\n' });
    c.handle({ kind: 'save', file: f('a.ts'), before: undefined, after: 'a\nb\nc\nd\n' });
    assert.deepEqual(
      sent.map((s) => [(s.req.tool_input as { added: number }).added, (s.req.tool_input as { removed: number }).removed]),
      [
        [1, 0],
        [2, 0],
      ],
    );
  });

  it('captures nothing at all in an untrusted workspace, and keeps no content', () => {
    let trusted = false;
    const { h, sent } = host({ trusted: () => trusted });
    const c = new Capture(h);
    c.remember(f('a.ts'), 'secret source\n');
    assert.equal(c.baselines.size, 0, 'no file content kept');
    for (const e of [
      { kind: 'save', file: f('a.ts'), before: undefined, after: 'x' },
      { kind: 'create', file: f('b') },
      { kind: 'terminal', commandLine: 'ls', exitCode: 0 },
      { kind: 'task', task: 't', exitCode: 0 },
      { kind: 'debug', name: 'd' },
      { kind: 'focus', file: f('a.ts') },
    ] as const) {
      assert.deepEqual(c.handle(e), { sent: false, reason: 'untrusted_workspace' });
    }
    assert.equal(sent.length, 0);
    trusted = true;
    assert.equal(c.handle({ kind: 'create', file: f('b') }).sent, true, 'trust granted: capture starts');
  });

  it('skips secret and excluded files, paused capture, disabled kinds', () => {
    let paused = false;
    const settings: CaptureSettings = { ...DEFAULT_CAPTURE, kinds: { ...DEFAULT_CAPTURE.kinds, debug: false } };
    const { h, sent } = host({ paused: () => paused, settings: () => settings, exclusions: new Exclusions({ globs: ['*.sql'], filesExclude: [], respectGitignore: false }) });
    const c = new Capture(h);
    assert.deepEqual(c.handle({ kind: 'save', file: f('.env'), before: 'A=1', after: 'A=2' }), { sent: false, reason: 'secret' });
    assert.deepEqual(c.handle({ kind: 'focus', file: f('keys/prod.pem') }), { sent: false, reason: 'secret' });
    assert.deepEqual(c.handle({ kind: 'rename', file: f('a.txt'), newFile: f('.env.prod') }), { sent: false, reason: 'secret' });
    assert.deepEqual(c.handle({ kind: 'create', file: f('db/dump.sql') }), { sent: false, reason: 'user_glob' });
    assert.deepEqual(c.handle({ kind: 'debug', name: 'x' }), { sent: false, reason: 'debug_disabled' });
    c.remember(f('.env'), 'A=1');
    assert.equal(c.baselines.size, 0, 'secret content is never even cached');
    paused = true;
    assert.deepEqual(c.handle({ kind: 'create', file: f('ok.ts') }), { sent: false, reason: 'paused' });
    assert.equal(sent.length, 0);
  });

  it('debounces focus: only a file that keeps focus counts as read, once', () => {
    const clock = new FakeClock();
    const { h, sent } = host();
    const c = new Capture(h, clock);
    c.focusChanged(f('a.ts'));
    clock.advance(1000);
    c.focusChanged(f('b.ts'));
    clock.advance(1000);
    c.focusChanged(f('c.ts'));
    clock.advance(5000);
    assert.deepEqual(sent.map((s) => (s.req.tool_input as { file_path: string }).file_path), [f('c.ts')]);
    c.focusChanged(f('a.ts'));
    clock.advance(5000);
    c.focusChanged(f('c.ts'));
    clock.advance(5000);
    assert.equal(sent.length, 2, 'c.ts was already read this session');
    c.focusChanged(undefined);
    assert.equal(clock.pending, 0);
  });

  it('keeps a bounded cache of baselines', () => {
    const cache = new ContentCache(10);
    cache.set('a', '12345');
    cache.set('b', '12345');
    cache.get('a');
    cache.set('c', '12345');
    assert.equal(cache.get('b'), undefined, 'least recently used goes first');
    assert.equal(cache.get('a'), '12345');
  });
});

describe('idle timer and session', () => {
  it('summarizes once after the quiet period, and again after new activity', () => {
    const clock = new FakeClock();
    const got: IdleSummary[] = [];
    const idle = new IdleTimer(() => 60_000, (s) => got.push(s), clock);
    idle.activity('p');
    clock.advance(30_000);
    idle.activity('p');
    clock.advance(59_000);
    assert.equal(got.length, 0, 'activity re-arms the timer');
    clock.advance(1_000);
    assert.deepEqual(got, [{ projects: ['p'], lastUserMessage: undefined, reason: 'idle' }]);
    clock.advance(600_000);
    assert.equal(got.length, 1, 'no summary without new activity');
    idle.prompt('p', 'why is the build slow?');
    idle.activity('q');
    clock.advance(60_000);
    assert.deepEqual(got[1], { projects: ['p', 'q'], lastUserMessage: 'why is the build slow?', reason: 'idle' });
  });

  it('a completed chat turn summarizes at once with its prompt and answer', () => {
    const clock = new FakeClock();
    const got: IdleSummary[] = [];
    const idle = new IdleTimer(() => 60_000, (s) => got.push(s), clock);
    idle.prompt('p', 'q1');
    idle.chatTurn('p', 'q1', 'a1');
    assert.deepEqual(got, [{ projects: ['p'], lastUserMessage: 'q1', lastAssistantMessage: 'a1', reason: 'chat-turn' }]);
    assert.equal(idle.armed, false);
    clock.advance(120_000);
    assert.equal(got.length, 1);
  });

  it('0 turns idle summaries off', () => {
    const clock = new FakeClock();
    const idle = new IdleTimer(() => 0, () => assert.fail('no summary'), clock);
    idle.activity('p');
    clock.advance(1e9);
  });

  it('posts init, observations, summaries and completion with the IDE session id', async () => {
    const clock = new FakeClock();
    const posts: Array<[string, Record<string, unknown>]> = [];
    const poster = { fire: (p: string, b: unknown) => void posts.push([p, b as Record<string, unknown>]), request: async (_m: string, p: string, b?: unknown) => void posts.push([p, b as Record<string, unknown>]) };
    const s = new SessionTracker({ sessionId: 'win-1', primaryProject: () => 'alpha', cwdOf: (p) => `/w/${p}`, poster: () => poster, idleMs: () => 1000, timers: clock });
    s.prompt('alpha', '@memory hi');
    s.observe('beta', { tool_name: 'FileCreate', tool_input: { file_path: '/w/beta/x' } });
    clock.advance(1000);
    await s.complete();
    await s.complete();
    assert.deepEqual(
      posts.map(([p, b]) => [p, b.contentSessionId, b.platform, b.project]),
      [
        ['/api/sessions/init', 'win-1', 'vscode', 'alpha'],
        ['/api/sessions/observations', 'win-1#beta', 'vscode', 'beta'],
        ['/api/sessions/summarize', 'win-1', 'vscode', 'alpha'],
        ['/api/sessions/summarize', 'win-1#beta', 'vscode', 'beta'],
        ['/api/sessions/complete', 'win-1', 'vscode', 'alpha'],
        ['/api/sessions/complete', 'win-1#beta', 'vscode', 'beta'],
      ],
    );
    assert.equal(posts[0][1].cwd, '/w/alpha');
    assert.equal(posts[2][1].last_user_message, '@memory hi');
  });

  it('records nothing while capture is off: prompts, observations, chat turns, idle summaries, @memory turns', async () => {
    const clock = new FakeClock();
    const posts: string[] = [];
    const poster = { fire: (p: string) => void posts.push(p), request: async (_m: string, p: string) => void posts.push(p) };
    let allowed = false;
    const s = new SessionTracker({ sessionId: 'w', primaryProject: () => 'alpha', cwdOf: () => undefined, poster: () => poster, idleMs: () => 1000, timers: clock, captureAllowed: () => allowed });
    s.prompt('alpha', 'Search Memory: x');
    assert.equal(s.observe('alpha', { tool_name: 'FileCreate', tool_input: { file_path: 'x' } }), undefined);
    s.chatTurn('alpha', 'q', 'a');
    clock.advance(10_000);
    // The @memory participant records its turn through the same session.
    const api = { recent: async () => [] } as unknown as Parameters<typeof handleChat>[3]['api'];
    const out = { markdown: () => undefined, progress: () => undefined };
    await handleChat({ prompt: 'what changed?', command: 'recent', history: [] }, undefined, out, { api, project: () => 'alpha', session: s, context: async () => '', maxResults: 5 }, { isCancellationRequested: false });
    clock.advance(10_000);
    assert.deepEqual(posts, [], 'nothing is sent while capture is off');
    // Activity from before capture went off is not summarised after it either.
    allowed = true;
    s.prompt('alpha', 'hello');
    allowed = false;
    clock.advance(10_000);
    assert.deepEqual(posts, ['/api/sessions/init']);
    allowed = true;
    await handleChat({ prompt: 'now', command: 'recent', history: [] }, undefined, out, { api, project: () => 'alpha', session: s, context: async () => '', maxResults: 5 }, { isCancellationRequested: false });
    assert.deepEqual(posts, ['/api/sessions/init', '/api/sessions/init', '/api/sessions/summarize']);
  });

  it('holds posts until a worker is connected, bounded', () => {
    let target: { fire: (p: string, b: unknown) => void; request: () => Promise<unknown> } | undefined;
    const sent: string[] = [];
    const q = new QueuedPoster(() => target, 3);
    for (const n of ['1', '2', '3', '4']) q.fire(n, {});
    assert.equal(q.pending, 3);
    assert.equal(q.dropped, 1);
    target = { fire: (p) => void sent.push(p), request: async () => undefined };
    q.flush();
    q.fire('5', {});
    assert.deepEqual(sent, ['2', '3', '4', '5']);
  });
});

describe('settings', () => {
  it('normalises values and builds the forked worker environment', () => {
    const s = readSettings((k) => ({ 'worker.port': 99999, 'capture.focus': 'yes', 'session.idleSummaryMinutes': 2, 'capture.exclude': ['*.sql', 3, ''], 'compression.provider': 'vscode' })[k]);
    assert.equal(s.port, 65535);
    assert.equal(s.capture.kinds.focus, true, 'a wrong type falls back to the default');
    assert.equal(s.idleSummaryMs, 120_000);
    assert.deepEqual(s.exclude, ['*.sql']);
    const env = workerEnv(s, 'sk-ant-secret');
    // The window's key goes apart from the user's own ANTHROPIC_API_KEY, so removing it can take it back.
    assert.equal(env.CLAUDE_MEM_EXTENSION_API_KEY, 'sk-ant-secret');
    assert.equal(env.ANTHROPIC_API_KEY, undefined);
    assert.equal(env.CLAUDE_MEM_PROVIDER, 'vscode');
    assert.equal(env.CLAUDE_MEM_IDLE_SHUTDOWN_MS, String(30 * 60_000));
    // glibc's malloc settings for the worker, unless the user's environment has its own.
    assert.equal(env.MALLOC_MMAP_THRESHOLD_, process.env.MALLOC_MMAP_THRESHOLD_ ?? '65536');
    assert.equal(env.MALLOC_ARENA_MAX, process.env.MALLOC_ARENA_MAX ?? '2');
    assert.equal(workerEnv(readSettings(() => undefined), undefined).ANTHROPIC_API_KEY, undefined);
    assert.equal(workerEnv(readSettings(() => undefined), undefined).CLAUDE_MEM_EXTENSION_API_KEY, undefined);
  });

  it("asks for context without teammates' memory only when the window turned it off", () => {
    assert.equal(contextParams(readSettings(() => undefined).context).teammates, undefined, 'on by default: the worker decides');
    const off = contextParams(readSettings((k) => ({ 'team.injectTeammates': false, 'context.tokenBudget': 900 })[k]).context);
    assert.equal(off.teammates, 0);
    assert.equal(off.budget, 900);
  });
});

describe('window session id', () => {
  it('is the IDE session id, or one per host start where the host gives a placeholder', async () => {
    const { windowSessionId } = await import('../../extension/core/session');
    assert.deepEqual(windowSessionId('c0ffee-123', 'm', 1, 2), { id: 'c0ffee-123', derived: false });
    const a = windowSessionId('someValue.sessionId', 'someValue.machineId', 41, 1000);
    const b = windowSessionId('someValue.sessionId', 'someValue.machineId', 42, 1000);
    assert.equal(a.derived, true);
    assert.notEqual(a.id, b.id, 'two windows never share a derived id');
    assert.equal(windowSessionId('', 'abcdef0123456789', 7, 36).id, 'vscode-abcdef012345-7-10');
  });
});
