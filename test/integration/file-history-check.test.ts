// POST /api/search/by-file: a file's history with a freshness check of the file applied first, over
// real HTTP; and the file-context hook (node dist/cli.js, a real git repository) asking for the
// history of a changed file in one request (the calls its debug log names).
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { CLI_JS, startWorker, until, type RunningWorker } from '../helpers/worker';

const qs = (o: Record<string, string>) => '?' + new URLSearchParams(o).toString();
/** A file big enough for the file-context hook (it stays silent on small files). */
const body = (name: string, value: number) => `// ${name}\nexport const VALUE = ${value};\n` + `// padding line for ${name}\n`.repeat(80);

interface Row {
  id: number;
  freshness?: string;
  staleReason?: string;
}

describe('POST /api/search/by-file', () => {
  let w: RunningWorker;
  let r: TestRepo;
  let project: string;
  let id: number;
  let cited: string;

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo('by-file-check-');
    project = path.basename(r.root);
    r.write('src/retry.ts', body('src/retry.ts', 5));
    r.write('src/quiet.ts', body('src/quiet.ts', 1));
    const commit = r.commit('initial');
    cited = r.git('rev-parse', 'HEAD:src/retry.ts');
    const seeded = await w.req('POST', '/api/sessions/observations', {
      contentSessionId: 'by-file-check', platform: 'claude-code', cwd: r.root, tool_name: 'Edit', tool_use_id: 'toolu_by_file_check',
      tool_input: { file_path: path.join(r.root, 'src/retry.ts'), old_string: 'VALUE = 4', new_string: 'VALUE = 5' }, tool_response: 'ok',
      citations: { commit, branch: 'main', bases: [], files: [{ path: 'src/retry.ts', blob: cited, tracked: true }] },
    });
    assert.equal(seeded.status, 202, JSON.stringify(seeded.body));
    const rows = await until(async () => {
      const got = (await w.req('GET', '/api/search/by-file' + qs({ path: 'src/retry.ts', project }))).body.items as Row[];
      return got.length > 0 ? got : undefined;
    }, 20_000, 'the observation stored');
    id = rows[0].id;
  });
  after(async () => {
    await w?.stop();
  });

  it('applies the check in its body first: the history in the same reply marks the memory stale; GET shows the same', async () => {
    const url = '/api/search/by-file' + qs({ path: path.join(r.root, 'src/retry.ts'), project, branch: 'main' });
    assert.equal(((await w.req('GET', url)).body.items as Row[]).find((x) => x.id === id)?.freshness, undefined, 'fresh before the check');
    const check = { project, branch: 'main', bases: [], commit: 'd'.repeat(40), files: [{ path: 'src/retry.ts', blob: 'b'.repeat(40), tracked: true, change: 'committed' }] };
    const res = await w.req('POST', url, check);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = (res.body.items as Row[]).find((x) => x.id === id);
    assert.equal(row?.freshness, 'stale');
    assert.match(row?.staleReason ?? '', /src\/retry\.ts changed \(committed\) on main/);
    assert.equal(((await w.req('GET', url)).body.items as Row[]).find((x) => x.id === id)?.freshness, 'stale', 'GET reads the verdict the POST stored');
    // Back at the cited content: fresh again, in the POST's own reply.
    const back = await w.req('POST', url, { ...check, files: [{ path: 'src/retry.ts', blob: cited, tracked: true, change: 'committed' }] });
    assert.equal(back.status, 200);
    assert.equal((back.body.items as Row[]).find((x) => x.id === id)?.freshness, undefined);
  });

  it('bad inputs are a 400 naming what is wrong, and nothing is applied', async () => {
    const url = '/api/search/by-file' + qs({ path: 'src/retry.ts', project, branch: 'main' });
    const check = { project, branch: 'main', files: [{ path: 'src/retry.ts', blob: 'c'.repeat(40), tracked: true }] };
    const other = await w.req('POST', url, { ...check, project: 'elsewhere' });
    assert.equal(other.status, 400);
    assert.match(other.body.error, /project/);
    const noFiles = await w.req('POST', url, { project });
    assert.equal(noFiles.status, 400);
    assert.match(noFiles.body.error, /files/);
    const badBlob = await w.req('POST', url, { ...check, files: [{ path: 'src/retry.ts', blob: 'nope' }] });
    assert.equal(badBlob.status, 400);
    assert.match(badBlob.body.error, /blob/);
    const noProject = await w.req('POST', '/api/search/by-file' + qs({ path: 'src/retry.ts' }), check);
    assert.equal(noProject.status, 400);
    assert.match(noProject.body.error, /project/);
    assert.equal(((await w.req('GET', url)).body.items as Row[]).find((x) => x.id === id)?.freshness, undefined, 'still fresh: no 400 applied its check');
  });

  it('the file-context hook on a changed file: one request (POST /api/search/by-file) once git has answered, with the committed mark', async () => {
    // The hook's debug log names every worker call it makes (cli/hooks/io.ts).
    const log = path.join(w.dataDir, 'logs', 'hooks.log');
    const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '').split('\n').flatMap((l) => /worker call (\S+ \S+) answered/.exec(l)?.[1] ?? []);
    const env = {
      ...process.env,
      CLAUDE_MEM_DATA_DIR: w.dataDir,
      CLAUDE_MEM_WORKER_PORT: String(w.port),
      CLAUDE_MEM_HOOK_LOG_LEVEL: 'debug',
      CLAUDE_MEM_NO_AUTOSTART: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    };
    const read = (rel: string, session: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI_JS, 'hook', 'claude-code', 'file-context'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
        child.stdin.end(JSON.stringify({ session_id: session, hook_event_name: 'PreToolUse', cwd: r.root, tool_name: 'Read', tool_input: { file_path: path.join(r.root, rel) }, tool_use_id: `toolu_${session}` }));
      });
    r.write('src/retry.ts', body('src/retry.ts', 9));
    r.commit('retry is 9');
    const mark = new RegExp(`#${id} .*\\[MAY BE STALE: src/retry\\.ts changed \\(committed\\) on main`);
    // The first read after the commit asks git how the file changed (its answer is kept).
    assert.match(await read('src/retry.ts', 'fc-first'), mark);
    assert.ok(fs.existsSync(path.join(w.dataDir, 'hooks', 'git-answers.json')), "git's answer kept for the next hook");
    fs.rmSync(log, { force: true });
    assert.match(await read('src/retry.ts', 'fc-second'), mark);
    assert.deepEqual(calls(), ['POST /api/search/by-file']);
    // A file with no history: one request too, and nothing printed.
    fs.rmSync(log, { force: true });
    assert.equal((await read('src/quiet.ts', 'fc-quiet')).trim(), '{}');
    assert.deepEqual(calls(), ['POST /api/search/by-file']);
  });
});
