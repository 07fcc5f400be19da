// Freshness at the moment of use, through the real hook CLI (node dist/cli.js hook …) and a real
// worker on a real git repository: the context and file-context hooks check the cited files against
// the work tree and the branch before they show memory, so a memory whose file changed (committed or
// not), was deleted or renamed, or belongs to another branch is never shown as fact; a touched but
// identical file stays fresh; a reverted one is fresh again. Edit tools that touch several files
// (apply_patch in VS Code's and Codex's formats, multi_replace_string_in_file, Gemini's) cite every
// file. `claude-mem search`, the MCP tools and VS Code's LM tools print the marks. Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MemoryFreshness } from '../../common/contract';
import { request } from '../../cli/client';
import { getObservationsTool, searchTool } from '../../cli/mcpTools';
import { MemoryApi } from '../../extension/core/memoryApi';
import { getTool as getLmTool } from '../../extension/tools/get';
import { searchTool as searchLmTool } from '../../extension/tools/search';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { CLI_JS, startWorker, until, type RunningWorker } from '../helpers/worker';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], input: unknown, env: Record<string, string>, cwd?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input === undefined ? '' : JSON.stringify(input));
  });
}

/** A file big enough for the file-context hook (it stays silent on small files). */
const body = (name: string, value: string | number) => `// ${name}\nexport const VALUE = ${value};\n` + `// padding line for ${name}\n`.repeat(80);

describe('freshness at the moment of use through the hook CLI', () => {
  let w: RunningWorker;
  let r: TestRepo;
  let env: Record<string, string>;
  let project: string;
  let n = 0;

  const observations = async (): Promise<{ id: number }[]> => (await w.req('GET', `/api/observations?project=${encodeURIComponent(project)}&limit=1000`)).body.items;

  /** A PostToolUse through the hook CLI; resolves to the ids of the observations stored from it. */
  async function hookObserve(platform: string, payload: Record<string, unknown>): Promise<number[]> {
    const before = new Set((await observations()).map((o) => o.id));
    const res = await runCli(['hook', platform, 'observation'], payload, env);
    assert.equal(res.code, 0, res.stderr);
    const fresh = await until(async () => {
      const now = (await observations()).filter((o) => !before.has(o.id)).map((o) => o.id);
      return now.length > 0 ? now : undefined;
    }, 20_000, 'observation stored');
    return fresh;
  }

  /** An Edit of rel by Claude Code, after writing its new content. */
  async function edit(rel: string, value: string | number, session = `edit-${++n}`): Promise<number> {
    r.write(rel, body(rel, value));
    const ids = await hookObserve('claude-code', {
      session_id: session,
      hook_event_name: 'PostToolUse',
      cwd: r.root,
      tool_name: 'Edit',
      tool_input: { file_path: path.join(r.root, rel), old_string: 'VALUE = 0', new_string: `VALUE = ${value}` },
      tool_response: { filePath: path.join(r.root, rel), success: true },
      tool_use_id: `toolu_${n}`,
    });
    return ids[0];
  }

  async function context(session = `ctx-${++n}`): Promise<string> {
    const res = await runCli(['hook', 'claude-code', 'context'], { session_id: session, hook_event_name: 'SessionStart', cwd: r.root, source: 'startup' }, env);
    assert.equal(res.code, 0, res.stderr);
    return (JSON.parse(res.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  }

  async function fileContext(rel: string, session = `fc-${++n}`): Promise<string> {
    const res = await runCli(['hook', 'claude-code', 'file-context'], { session_id: session, hook_event_name: 'PreToolUse', cwd: r.root, tool_name: 'Read', tool_input: { file_path: path.join(r.root, rel) }, tool_use_id: `toolu_fc_${n}` }, env);
    assert.equal(res.code, 0, res.stderr);
    if (res.stdout.trim() === '' || res.stdout.trim() === '{}') return '';
    return (JSON.parse(res.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
  }

  /** The line of the injected context that names memory #id. */
  const lineOf = (text: string, id: number) => text.split('\n').find((l) => l.startsWith(`#${id} `) || l.includes(` #${id} `)) ?? '';
  /** The context's "May be stale" section. */
  const staleSection = (text: string) => {
    const at = text.indexOf('## May be stale');
    return at < 0 ? '' : text.slice(at).split('\n## ')[0];
  };
  const memory = async (id: number) => (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${id}`)).body;

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo('fresh-hooks-');
    project = path.basename(r.root);
    for (const f of ['committed', 'uncommitted', 'touched', 'deleted', 'renamed', 'renamedit', 'renamestaged', 'reverted', 'branch', 'both'].map((x) => `src/${x}.ts`)) r.write(f, body(f, 0));
    r.commit('initial');
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  });
  after(async () => {
    await w?.stop();
  });

  it('a file changed and committed: the memory is listed under "May be stale" as committed, not in the timeline', async () => {
    const id = await edit('src/committed.ts', 5);
    r.commit('edit committed');
    assert.doesNotMatch(staleSection(await context()), new RegExp(`#${id} `), 'fresh right after the edit is committed');
    r.write('src/committed.ts', body('src/committed.ts', 9));
    r.commit('change to 9');
    const text = await context();
    assert.match(staleSection(text), new RegExp(`#${id} .*src/committed\\.ts changed \\(committed\\) on main`));
    assert.equal(text.split('## May be stale')[0].includes(`#${id} `), false, 'not shown as fact above the stale list');
    assert.match(await fileContext('src/committed.ts'), new RegExp(`#${id} .*\\[MAY BE STALE: src/committed\\.ts changed \\(committed\\) on main`));
  });

  it('a file changed and not committed: "changed (uncommitted)"', async () => {
    const id = await edit('src/uncommitted.ts', 5);
    r.commit('edit uncommitted');
    r.write('src/uncommitted.ts', body('src/uncommitted.ts', 6));
    assert.match(staleSection(await context()), new RegExp(`#${id} .*src/uncommitted\\.ts changed \\(uncommitted\\) on main`));
  });

  it('a file touched with identical content is fresh whatever its mtime', async () => {
    const id = await edit('src/touched.ts', 5);
    r.commit('edit touched');
    const future = new Date(Date.now() + 3600_000);
    fs.utimesSync(path.join(r.root, 'src/touched.ts'), future, future);
    const fc = await fileContext('src/touched.ts');
    assert.match(fc, new RegExp(`#${id} `), 'the history is shown');
    assert.doesNotMatch(fc, /MAY BE STALE|changed since/);
    assert.doesNotMatch(staleSection(await context()), new RegExp(`#${id} `));
    assert.equal((await memory(id)).status, 'fresh');
  });

  it('a deleted file: the memory is marked deleted', async () => {
    const id = await edit('src/deleted.ts', 5);
    r.commit('edit deleted');
    r.git('rm', '-q', 'src/deleted.ts');
    r.commit('remove deleted.ts');
    assert.match(staleSection(await context()), new RegExp(`#${id} .*src/deleted\\.ts deleted`));
  });

  it('a renamed file: the memory follows it to the new path and stays fresh', async () => {
    const id = await edit('src/renamed.ts', 5);
    r.commit('edit renamed');
    r.git('mv', 'src/renamed.ts', 'src/moved.ts');
    r.commit('rename');
    const text = await context();
    assert.doesNotMatch(staleSection(text), new RegExp(`#${id} `));
    const m = await memory(id);
    assert.equal(m.status, 'fresh');
    assert.deepEqual(m.citations.map((c) => [c.path, c.movedFrom]), [['src/moved.ts', 'src/renamed.ts']]);
  });

  it('a file renamed and edited in one commit: the memory follows it and reads "renamed to X (and changed)"', async () => {
    const id = await edit('src/renamedit.ts', 5);
    r.commit('edit renamedit');
    r.git('mv', 'src/renamedit.ts', 'src/renamed-edit.ts');
    // The same lines but one: git's rename detection pairs the two paths.
    r.write('src/renamed-edit.ts', body('src/renamedit.ts', 6));
    r.commit('rename and edit');
    const text = await context();
    assert.match(staleSection(text), new RegExp(`#${id} .*src/renamedit\\.ts renamed to src/renamed-edit\\.ts \\(and changed, committed\\)`), text);
    assert.doesNotMatch(staleSection(text), /renamedit\.ts deleted/);
    const m = await memory(id);
    assert.equal(m.status, 'stale');
    assert.deepEqual(m.citations.map((c) => [c.path, c.movedFrom, c.state]), [['src/renamed-edit.ts', 'src/renamedit.ts', 'changed']]);
    assert.match(await fileContext('src/renamed-edit.ts'), new RegExp(`#${id} .*\\[MAY BE STALE: src/renamedit\\.ts renamed to src/renamed-edit\\.ts \\(and changed, committed\\)`));
  });

  it('a file renamed with git mv and edited, not committed: "renamed to X (and changed)", not fresh', async () => {
    const id = await edit('src/renamestaged.ts', 5);
    r.commit('edit renamestaged');
    r.git('mv', 'src/renamestaged.ts', 'src/renamed-staged.ts');
    r.write('src/renamed-staged.ts', body('src/renamestaged.ts', 6));
    const text = await context();
    assert.match(staleSection(text), new RegExp(`#${id} .*src/renamestaged\\.ts renamed to src/renamed-staged\\.ts \\(and changed, uncommitted\\)`), text);
    assert.deepEqual((await memory(id)).citations.map((c) => [c.path, c.movedFrom]), [['src/renamed-staged.ts', 'src/renamestaged.ts']]);
    r.commit('rename staged');
  });

  it('a change reverted: fresh again', async () => {
    const id = await edit('src/reverted.ts', 5);
    r.commit('edit reverted');
    r.write('src/reverted.ts', body('src/reverted.ts', 7));
    assert.match(staleSection(await context()), new RegExp(`#${id} `));
    r.git('checkout', '--', 'src/reverted.ts');
    assert.doesNotMatch(staleSection(await context()), new RegExp(`#${id} `));
    assert.equal((await memory(id)).status, 'fresh');
  });

  it('branches both ways: a check on feature-b never marks main\'s memory stale on main, and feature-b\'s memory is marked as from feature-b on main at once', async () => {
    const onMain = await edit('src/branch.ts', 5);
    r.commit('edit branch on main');
    r.git('checkout', '-q', '-b', 'feature-b');
    const onFeature = await edit('src/branch.ts', 8);
    r.commit('edit branch on feature-b');
    const fb = await context();
    assert.match(staleSection(fb), new RegExp(`#${onMain} .*src/branch\\.ts changed \\(committed\\) on feature-b`), 'main\'s memory is stale on feature-b');
    assert.doesNotMatch(lineOf(fb, onFeature), /from branch/);
    r.git('checkout', '-q', 'main');
    const m = await context();
    assert.doesNotMatch(staleSection(m), new RegExp(`#${onMain} `), 'main\'s memory is fresh on main');
    assert.match(lineOf(m, onFeature), /\[from branch feature-b\]/, 'feature-b\'s memory is marked as such in the first session on main');
    r.git('checkout', '-q', 'feature-b');
    assert.match(staleSection(await context()), new RegExp(`#${onMain} .*changed \\(committed\\) on feature-b`), 'and stale on feature-b again');
    r.git('checkout', '-q', 'main');
  });

  it('verdicts are stored per branch: a file changed on two branches keeps each branch\'s verdict, read back from the worker\'s routes', async () => {
    const id = await edit('src/both.ts', 5);
    r.commit('edit both on main');
    const onBranch = async (branch: string) => (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${id}?branch=${branch}`)).body;
    r.git('checkout', '-q', '-b', 'feature-c');
    r.write('src/both.ts', body('src/both.ts', 7));
    r.commit('both on feature-c');
    assert.match(staleSection(await context()), new RegExp(`#${id} .*src/both\\.ts changed \\(committed\\) on feature-c`));
    r.git('checkout', '-q', 'main');
    r.write('src/both.ts', body('src/both.ts', 8));
    assert.match(staleSection(await context()), new RegExp(`#${id} .*src/both\\.ts changed \\(uncommitted\\) on main`));
    // No check ran on feature-c since main's: its verdict is still its own.
    const fc = await onBranch('feature-c');
    assert.equal(fc.status, 'stale');
    assert.match(fc.reason ?? '', /src\/both\.ts changed \(committed\) on feature-c/);
    assert.deepEqual(fc.citations.map((c) => [c.state, c.changedOnBranch]), [['changed', 'feature-c']]);
    const m = await onBranch('main');
    assert.match(m.reason ?? '', /src\/both\.ts changed \(uncommitted\) on main/);
    // main reverted: fresh on main, still stale on feature-c.
    r.git('checkout', '--', 'src/both.ts');
    assert.doesNotMatch(staleSection(await context()), new RegExp(`#${id} `));
    assert.equal((await onBranch('main')).status, 'fresh');
    assert.equal((await onBranch('feature-c')).status, 'stale');
    // And the other way: on feature-c the check finds its own change again, main stays fresh.
    r.git('checkout', '-q', 'feature-c');
    assert.match(staleSection(await context()), new RegExp(`#${id} .*changed \\(committed\\) on feature-c`));
    assert.equal((await onBranch('main')).status, 'fresh');
    r.git('checkout', '-q', 'main');
  });

  it('three installed hook files, one SessionStart: exactly one prints the context, the others print nothing and exit 0', async () => {
    const session = 'three-files';
    const runs = await Promise.all([
      // ~/.claude/settings.json (Claude Code's command line), .github/hooks (VS Code's), ~/.copilot/hooks (camelCase, Copilot SDK)
      runCli(['hook', 'claude-code', 'context'], { session_id: session, hook_event_name: 'SessionStart', cwd: r.root, source: 'startup' }, env),
      runCli(['hook', 'vscode-agent', 'context'], { session_id: session, hook_event_name: 'SessionStart', cwd: r.root, source: 'startup', timestamp: new Date().toISOString(), transcript_path: '/tmp/t.json' }, env),
      runCli(['hook', 'copilot-cli', 'context'], { sessionId: session, hookEventName: 'sessionStart', cwd: r.root, source: 'startup', timestamp: Date.now() }, env),
    ]);
    for (const x of runs) assert.equal(x.code, 0, x.stderr);
    const printed = runs.filter((x) => x.stdout !== '');
    assert.equal(printed.length, 1, runs.map((x) => JSON.stringify(x.stdout.slice(0, 80))).join('\n'));
    assert.match(printed[0].stdout, /claude-mem|#\d+ /);
    // A later SessionStart of the same conversation (a compaction) injects again.
    const again = await runCli(['hook', 'claude-code', 'context'], { session_id: session, hook_event_name: 'SessionStart', cwd: r.root, source: 'compact' }, env);
    assert.notEqual(again.stdout, '');
  });

  it('claude-mem search --all and MCP search of every project check each project in its own folder; a project whose folder is unknown reads unverified', async () => {
    const r2 = makeRepo('fresh-other-');
    const other = path.basename(r2.root);
    r2.write('src/otherproj.ts', body('src/otherproj.ts', 0));
    r2.commit('initial');
    r2.write('src/otherproj.ts', body('src/otherproj.ts', 5));
    const abs = path.join(r2.root, 'src/otherproj.ts');
    const res = await runCli(['hook', 'claude-code', 'observation'], { session_id: 'other-1', hook_event_name: 'PostToolUse', cwd: r2.root, tool_name: 'Edit', tool_input: { file_path: abs, old_string: 'VALUE = 0', new_string: 'VALUE = 5' }, tool_response: { filePath: abs, success: true }, tool_use_id: 'toolu_other_1' }, env);
    assert.equal(res.code, 0, res.stderr);
    const otherId = await until(async () => (await w.req('GET', `/api/observations?project=${encodeURIComponent(other)}&limit=10`)).body.items[0]?.id as number | undefined, 20_000, 'stored in the other project');
    r2.commit('edit otherproj');
    r2.write('src/otherproj.ts', body('src/otherproj.ts', 6));
    const saved = await w.req('POST', '/api/memory/save', { text: 'otherproj.ts notes kept elsewhere', title: 'otherproj.ts elsewhere', project: 'nowhere-known' });
    assert.ok(saved.status < 300, JSON.stringify(saved.body));
    // From the first repository's folder: the other project is checked where it lives.
    const out = await runCli(['search', 'otherproj.ts', '--all', '--limit', '50'], undefined, env, r.root);
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.split('\n');
    assert.match(lines.find((l) => l.startsWith(`#${otherId} `)) ?? '', /\[MAY BE STALE: src\/otherproj\.ts changed \(uncommitted\)/, out.stdout);
    assert.match(lines.find((l) => l.includes('(nowhere-known)')) ?? '', /\[UNVERIFIED/, out.stdout);
    r2.write('src/otherproj.ts', body('src/otherproj.ts', 7));
    const deps = { target: { host: '127.0.0.1', port: w.port, dataDir: w.dataDir }, cwd: r.root };
    const s = await searchTool(deps, { query: 'otherproj.ts', project: '*', limit: 50 });
    assert.match(s.text.split('\n').find((l) => l.startsWith(`#${otherId} `)) ?? '', /\[MAY BE STALE: src\/otherproj\.ts changed \(uncommitted\)/, s.text);
    assert.match(s.text.split('\n').find((l) => l.includes('(nowhere-known)')) ?? '', /\[UNVERIFIED/, s.text);
    // Back to its cited content: get_memories from the first folder reads it fresh again.
    r2.write('src/otherproj.ts', body('src/otherproj.ts', 5));
    const g = await getObservationsTool(deps, { ids: [otherId] });
    assert.doesNotMatch(g.text, /MAY BE STALE|UNVERIFIED/, g.text);
  });

  it('claude-mem search, the MCP tools and the LM tools print the stale mark', async () => {
    const id = await edit('src/committed.ts', 11);
    r.commit('edit committed again');
    r.write('src/committed.ts', body('src/committed.ts', 12));
    const res = await runCli(['search', 'committed.ts', '--limit', '50'], undefined, env, r.root);
    assert.equal(res.code, 0, res.stderr);
    const line = res.stdout.split('\n').find((l) => l.startsWith(`#${id} `)) ?? '';
    assert.match(line, /\[MAY BE STALE: src\/committed\.ts changed \(uncommitted\) on main/, res.stdout);
    const deps = { target: { host: '127.0.0.1', port: w.port, dataDir: w.dataDir }, cwd: r.root };
    const s = await searchTool(deps, { query: 'committed.ts', limit: 50 });
    assert.match(s.text.split('\n').find((l) => l.startsWith(`#${id} `)) ?? '', /\[MAY BE STALE: src\/committed\.ts changed \(uncommitted\)/, s.text);
    const g = await getObservationsTool(deps, { ids: [id] });
    assert.match(g.text, /\[MAY BE STALE: src\/committed\.ts changed \(uncommitted\)/);
    // VS Code's language-model tools (search_memory, get_memories) read the same verdicts.
    const api = new MemoryApi(() => ({ request: (m, p, b, t) => request(deps.target, m, p, b, t ?? 5000) }));
    const lm = { api, project: () => project, context: async () => '' };
    const ls = await searchLmTool.run(searchLmTool.parse({ query: 'committed.ts', limit: 50 }), lm);
    assert.match(ls.split('\n').find((l) => l.startsWith(`#${id} `)) ?? '', /MAY BE STALE: src\/committed\.ts changed \(uncommitted\)/, ls);
    const lg = await getLmTool.run(getLmTool.parse({ ids: [id] }), lm);
    assert.match(lg, /MAY BE STALE: src\/committed\.ts changed \(uncommitted\)/, lg);
    r.write('src/committed.ts', body('src/committed.ts', 11));
  });
});

describe('citations for every edit tool, through the hook CLI', () => {
  let w: RunningWorker;
  let r: TestRepo;
  let env: Record<string, string>;
  let project: string;

  const observations = async (): Promise<{ id: number }[]> => (await w.req('GET', `/api/observations?project=${encodeURIComponent(project)}&limit=1000`)).body.items;
  const cited = async (ids: number[]) => {
    const paths = new Set<string>();
    for (const id of ids) for (const c of (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${id}`)).body.citations) paths.add(c.path);
    return [...paths].sort();
  };
  async function observe(platform: string, payload: Record<string, unknown>): Promise<number[]> {
    const before = new Set((await observations()).map((o) => o.id));
    const res = await runCli(['hook', platform, 'observation'], payload, env);
    assert.equal(res.code, 0, res.stderr);
    return until(async () => {
      const now = (await observations()).filter((o) => !before.has(o.id)).map((o) => o.id);
      return now.length > 0 ? now : undefined;
    }, 20_000, 'observation stored');
  }

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo('cite-tools-');
    project = path.basename(r.root);
    for (const f of ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => `src/${x}.ts`)) r.write(f, `export const X = '${f}';\n`);
    r.commit('initial');
    env = { CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port), CLAUDE_MEM_NO_AUTOSTART: '1' };
  });
  after(async () => {
    await w?.stop();
  });

  it('VS Code apply_patch: updated, added and moved files are cited; a memory of a moved file follows it', async () => {
    // An older memory of src/c.ts, which the patch moves.
    const old = await observe('claude-code', { session_id: 'older', hook_event_name: 'PostToolUse', cwd: r.root, tool_name: 'Read', tool_input: { file_path: path.join(r.root, 'src/c.ts') }, tool_response: { type: 'text' }, tool_use_id: 'toolu_old' });
    // The patch as VS Code applied it (absolute paths).
    r.write('src/a.ts', "export const X = 'A';\n");
    r.write('src/new.ts', 'export const N = 1;\n');
    fs.renameSync(path.join(r.root, 'src/c.ts'), path.join(r.root, 'src/c2.ts'));
    fs.rmSync(path.join(r.root, 'src/d.ts'));
    const patch = [
      '*** Begin Patch',
      `*** Update File: ${path.join(r.root, 'src/a.ts')}`,
      '@@',
      "-export const X = 'src/a.ts';",
      "+export const X = 'A';",
      `*** Add File: ${path.join(r.root, 'src/new.ts')}`,
      '+export const N = 1;',
      `*** Update File: ${path.join(r.root, 'src/c.ts')}`,
      `*** Move to: ${path.join(r.root, 'src/c2.ts')}`,
      `*** Delete File: ${path.join(r.root, 'src/d.ts')}`,
      '*** End Patch',
    ].join('\n');
    const ids = await observe('vscode-agent', { timestamp: new Date().toISOString(), cwd: r.root, session_id: 'vs-patch', hook_event_name: 'PostToolUse', tool_name: 'apply_patch', tool_input: { input: patch, explanation: 'edit' }, tool_use_id: 'call_patch', tool_response: 'ok' });
    assert.deepEqual(await cited(ids), ['src/a.ts', 'src/c2.ts', 'src/new.ts']);
    const m = (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${old[0]}`)).body;
    assert.deepEqual(m.citations.map((c) => c.path), ['src/c2.ts'], 'the older memory follows the move');
  });

  it('Codex apply_patch (relative paths under command) cites each file', async () => {
    r.write('src/e.ts', "export const X = 'E';\n");
    r.write('src/f.ts', "export const X = 'F';\n");
    const patch = "*** Begin Patch\n*** Update File: src/e.ts\n@@\n-x\n+E\n*** Update File: src/f.ts\n@@\n-x\n+F\n*** End Patch";
    const ids = await observe('codex', { session_id: 'cx', turn_id: 't1', hook_event_name: 'PostToolUse', cwd: r.root, model: 'gpt-5-codex', tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'call_cx', tool_response: 'Success. Updated the following files:\nM src/e.ts\nM src/f.ts' });
    assert.deepEqual(await cited(ids), ['src/e.ts', 'src/f.ts']);
  });

  it('multi_replace_string_in_file cites every file it replaced in', async () => {
    const ids = await observe('vscode-agent', {
      timestamp: new Date().toISOString(), cwd: r.root, session_id: 'vs-multi', hook_event_name: 'PostToolUse', tool_name: 'multi_replace_string_in_file',
      tool_input: { explanation: 'two files', replacements: [{ filePath: path.join(r.root, 'src/a.ts'), oldString: 'A', newString: 'A' }, { filePath: path.join(r.root, 'src/b.ts'), oldString: 'b', newString: 'b' }] },
      tool_use_id: 'call_multi', tool_response: '2 replacements applied',
    });
    assert.deepEqual(await cited(ids), ['src/a.ts', 'src/b.ts']);
  });

  it('a rename tool (oldPath/newPath) cites the new path and moves older memories of the old one', async () => {
    const old = await observe('claude-code', { session_id: 'older-rename', hook_event_name: 'PostToolUse', cwd: r.root, tool_name: 'Read', tool_input: { file_path: path.join(r.root, 'src/b.ts') }, tool_response: { type: 'text' }, tool_use_id: 'toolu_old_rename' });
    fs.renameSync(path.join(r.root, 'src/b.ts'), path.join(r.root, 'src/b-renamed.ts'));
    const ids = await observe('vscode-agent', { timestamp: new Date().toISOString(), cwd: r.root, session_id: 'vs-rename', hook_event_name: 'PostToolUse', tool_name: 'rename_file', tool_input: { oldPath: path.join(r.root, 'src/b.ts'), newPath: path.join(r.root, 'src/b-renamed.ts') }, tool_use_id: 'call_rename', tool_response: 'renamed' });
    assert.deepEqual(await cited(ids), ['src/b-renamed.ts']);
    const m = (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${old[0]}`)).body;
    assert.deepEqual(m.citations.map((c) => c.path), ['src/b-renamed.ts']);
    fs.renameSync(path.join(r.root, 'src/b-renamed.ts'), path.join(r.root, 'src/b.ts'));
  });

  it("Gemini's read_many_files and write_file cite their files", async () => {
    const read = await observe('gemini-cli', { session_id: 'gm', hook_event_name: 'AfterTool', cwd: r.root, tool_name: 'read_many_files', tool_input: { paths: ['src/b.ts', 'src/g.ts'] }, tool_response: { llmContent: 'files', returnDisplay: 'Read 2 files' } });
    assert.deepEqual(await cited(read), ['src/b.ts', 'src/g.ts']);
    r.write('src/g.ts', "export const X = 'G';\n");
    const write = await observe('gemini-cli', { session_id: 'gm', hook_event_name: 'AfterTool', cwd: r.root, tool_name: 'write_file', tool_input: { file_path: path.join(r.root, 'src/g.ts'), content: "export const X = 'G';\n" }, tool_response: { llmContent: 'ok', returnDisplay: 'Wrote' } });
    assert.deepEqual(await cited(write), ['src/g.ts']);
  });
});
