// GET /api/freshness/cited keeps its answer per project until the store's next change: a repeat ask
// with nothing written gets the same list, and every kind of write that changes it (a new citation,
// a check that marks a file stale, a retire) is seen by the next ask. Real worker, real git repo.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintToolUse } from '../../common/node/freshness/fingerprint';
import type { CitedFilesResponse } from '../../common/contract';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { startWorker, until, type RunningWorker } from '../helpers/worker';

const PROJECT = 'cited-kept';

describe('the cited files answer, kept until the next write', () => {
  let w: RunningWorker;
  let r: TestRepo;
  let n = 0;

  const cited = async (limit = 2000) => {
    const res = await w.req<CitedFilesResponse>('GET', `/api/freshness/cited?project=${PROJECT}&limit=${limit}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  async function observe(rel: string): Promise<number> {
    const sessionId = `kept-${++n}`;
    const input = { session_id: sessionId, cwd: r.root, tool_name: 'Edit', tool_input: { file_path: path.join(r.root, rel), old_string: 'x', new_string: `y ${rel}` }, tool_response: 'ok' };
    const before = (await w.req('GET', `/api/observations?project=${PROJECT}&limit=1000`)).body.items.length as number;
    const res = await w.req('POST', '/api/sessions/observations', { contentSessionId: sessionId, tool_name: 'Edit', tool_input: input.tool_input, tool_response: 'ok', cwd: r.root, project: PROJECT, citations: fingerprintToolUse(input) });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const items = await until(async () => {
      const l = (await w.req('GET', `/api/observations?project=${PROJECT}&limit=1000`)).body.items as { id: number }[];
      return l.length > before ? l : undefined;
    }, 10_000, 'observation stored');
    return items[0].id;
  }

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo('cited-kept-');
    r.write('src/a.ts', 'export const a = 1;\n');
    r.write('src/b.ts', 'export const b = 1;\n');
    r.commit('initial');
  });
  after(async () => {
    await w?.stop();
  });

  it('a repeat ask with nothing written gets the same answer; each limit its own', async () => {
    await observe('src/a.ts');
    const first = await cited();
    assert.deepEqual(first.files.map((f) => f.path), ['src/a.ts']);
    assert.equal(first.folder, r.root);
    assert.deepEqual(await cited(), first);
    assert.equal((await cited(1)).files.length, 1);
    assert.deepEqual(await cited(), first, 'the limit=1 answer is not served for limit=2000');
  });

  it('a new citation is in the next answer', async () => {
    await cited();
    await observe('src/b.ts');
    assert.deepEqual((await cited()).files.map((f) => f.path).sort(), ['src/a.ts', 'src/b.ts']);
    assert.deepEqual((await cited(1)).files.map((f) => f.path), ['src/b.ts'], 'newest first');
  });

  it('a check that marks a file stale is in the next answer', async () => {
    assert.equal((await cited()).files.find((f) => f.path === 'src/a.ts')?.stale, undefined);
    r.write('src/a.ts', 'export const a = 2;\n');
    r.commit('change a');
    const res = await w.req('POST', '/api/freshness/check', { project: PROJECT, branch: 'main', bases: [], commit: r.git('rev-parse', 'HEAD'), files: [{ path: 'src/a.ts', blob: r.git('hash-object', 'src/a.ts'), tracked: true, change: 'committed' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.body as { stale: number[] }).stale.length, 1);
    assert.equal((await cited()).files.find((f) => f.path === 'src/a.ts')?.stale, true);
  });

  it('another project asks apart', async () => {
    const other = await w.req<CitedFilesResponse>('GET', `/api/freshness/cited?project=someone-else`);
    assert.deepEqual(other.body.files, []);
    assert.equal((await cited()).files.length, 2);
  });
});
