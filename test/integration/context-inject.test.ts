// GET /api/context/inject over real HTTP (and POST, with a freshness check applied first): markdown or JSON, the budget and the other options as
// query parameters or settings.json keys, bad inputs, the empty-project welcome, and that the
// injected block is stripped when a client sends it back inside a prompt.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { estimateTokens } from '../../worker/hash';
import { readHistory } from '../fixtures/search/load';
import { startWorker, tempDir, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
const qs = (o: Record<string, string | number>) => '?' + new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();
const rows = (md: string) => md.split('\n').filter((l) => /^#\d+ \d{2}:\d{2} /.test(l));

before(async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
  const r = await w.req('POST', '/api/import', readHistory());
  assert.equal(r.status, 200);
});
after(async () => {
  await w.stop();
});

describe('GET /api/context/inject', () => {
  it('answers markdown wrapped in <claude-mem-context>, within the default budget', async () => {
    const r = await fetch(`${w.url}/api/context/inject?project=atlas-api`, { headers: { authorization: `Bearer ${w.token}` } });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/markdown/);
    const md = await r.text();
    assert.match(md, /^<claude-mem-context>\n# atlas-api · recent memory · /);
    assert.ok(md.endsWith('</claude-mem-context>'));
    assert.ok(estimateTokens(md) <= 3000);
    assert.ok(rows(md).length > 10);
  });

  it('format=json carries the markdown and its accounting', async () => {
    const r = await w.req('GET', '/api/context/inject' + qs({ project: 'pixel-ui', format: 'json', budget: 400 }));
    assert.equal(r.status, 200);
    assert.equal(r.body.project, 'pixel-ui');
    assert.equal(r.body.budget, 400);
    assert.equal(r.body.tokens, estimateTokens(r.body.markdown));
    assert.ok(r.body.tokens <= 400);
    assert.equal(typeof r.body.truncated, 'boolean');
    assert.equal(rows(r.body.markdown).length, r.body.observations);
  });

  it('options: budget, observations, full, types', async () => {
    for (const budget of [100, 250, 1000, 5000]) {
      const r = await w.req('GET', '/api/context/inject' + qs({ project: 'ledger-cli', budget, observations: 500, full: 50 }));
      assert.ok(estimateTokens(r.body) <= budget, `budget ${budget}: ${estimateTokens(r.body)}`);
    }
    const few = await w.req('GET', '/api/context/inject' + qs({ project: 'ledger-cli', observations: 4 }));
    assert.equal(rows(few.body).length, 4);
    const bugs = await w.req('GET', '/api/context/inject' + qs({ project: 'ledger-cli', types: 'bugfix' }));
    assert.ok(rows(bugs.body).length > 0 && rows(bugs.body).every((l) => l.includes(' 🔴 ')));
    const bare = await w.req('GET', '/api/context/inject' + qs({ project: 'ledger-cli', full: 0 }));
    assert.ok(!bare.body.split('\n').some((l: string) => l.startsWith('  ')), 'nothing shown in full');
  });

  it('an empty project gets a short welcome', async () => {
    const r = await w.req('GET', '/api/context/inject' + qs({ project: 'brand-new' }));
    assert.equal(r.status, 200);
    assert.match(r.body, /# brand-new · no memory yet/);
    assert.ok(estimateTokens(r.body) < 150);
  });

  it('bad inputs are a 400 naming the parameter', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{}, /'project'/],
      [{ project: 'x'.repeat(300) }, /'project'/],
      [{ project: 'a', budget: '50' }, /'budget'/],
      [{ project: 'a', budget: 'lots' }, /'budget'/],
      [{ project: 'a', observations: '-1' }, /'observations'/],
      [{ project: 'a', sessions: '0' }, /'sessions'/],
      [{ project: 'a', full: '51' }, /'full'/],
      [{ project: 'a', format: 'xml' }, /'format'/],
      [{ project: 'a', teammates: 'maybe' }, /'teammates'/],
      [{ project: 'a', types: Array.from({ length: 21 }, (_, i) => `t${i}`).join(',') }, /'types'/],
    ];
    for (const [p, msg] of cases) {
      const r = await w.req('GET', '/api/context/inject' + qs(p));
      assert.equal(r.status, 400, JSON.stringify(p));
      assert.match(r.body.error, msg);
    }
  });

  it('POST applies the freshness check in its body first: a memory whose file changed is under "May be stale" in the same reply', async () => {
    const blob = 'a'.repeat(40);
    const seeded = await w.req('POST', '/api/sessions/observations', {
      contentSessionId: 'inject-check', platform: 'claude-code', cwd: '/work/check-p', tool_name: 'Edit', tool_use_id: 'toolu_inject_check',
      tool_input: { file_path: '/work/check-p/src/retry.ts', old_string: 'MAX_RETRIES = 5', new_string: 'MAX_RETRIES = 6' }, tool_response: 'ok',
      citations: { commit: 'c'.repeat(40), branch: 'main', bases: [], files: [{ path: 'src/retry.ts', blob, tracked: true }] },
    });
    assert.equal(seeded.status, 202, JSON.stringify(seeded.body));
    const md = async () => (await w.req('GET', '/api/context/inject' + qs({ project: 'check-p', branch: 'main' }))).body as string;
    const start = Date.now();
    while (!/Edited src\/retry\.ts/.test(await md())) {
      assert.ok(Date.now() - start < 20_000, 'the observation was stored');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.doesNotMatch(await md(), /## May be stale/);
    const check = { project: 'check-p', branch: 'main', bases: [], commit: 'd'.repeat(40), files: [{ path: 'src/retry.ts', blob: 'b'.repeat(40), tracked: true, change: 'committed' }] };
    const r = await w.req('POST', '/api/context/inject' + qs({ project: 'check-p', branch: 'main' }), check);
    assert.equal(r.status, 200);
    const stale = (r.body as string).slice((r.body as string).indexOf('## May be stale'));
    assert.match(stale, /Edited src\/retry\.ts.*src\/retry\.ts changed \(committed\) on main/s, r.body as string);
    // Bad inputs: a 400 naming what is wrong, and nothing applied.
    const other = await w.req('POST', '/api/context/inject' + qs({ project: 'check-p' }), { ...check, project: 'elsewhere' });
    assert.equal(other.status, 400);
    assert.match(other.body.error, /project/);
    const noFiles = await w.req('POST', '/api/context/inject' + qs({ project: 'check-p' }), { project: 'check-p' });
    assert.equal(noFiles.status, 400);
    assert.match(noFiles.body.error, /files/);
    assert.equal((await w.req('POST', '/api/context/inject', check)).status, 400, 'the query project is required');
  });

  it('injected context sent back in a prompt is stripped before it is stored', async () => {
    const ctx = (await w.req('GET', '/api/context/inject' + qs({ project: 'infra-ops' }))).body as string;
    assert.match(ctx, /<claude-mem-context>/);
    const mixed = await w.req('POST', '/api/sessions/init', { contentSessionId: 'echo-1', project: 'echo', prompt: `${ctx}\n\nplease check the backups` });
    assert.equal(mixed.status, 200);
    const only = await w.req('POST', '/api/sessions/init', { contentSessionId: 'echo-2', project: 'echo', prompt: ctx });
    assert.equal(only.body.skipped, 'private_prompt');
    const doc = (await w.req('GET', '/api/export' + qs({ project: 'echo' }))).body;
    const prompts = doc.sessions.flatMap((s: { prompts: { text: string }[] }) => s.prompts.map((p) => p.text));
    assert.deepEqual(prompts, ['please check the backups']);
    const found = await w.req('GET', '/api/search' + qs({ query: 'Legend bugfix feature refactor', project: 'echo', mode: 'keyword' }));
    assert.deepEqual(found.body.items, [], 'nothing of the context was stored');
  });
});

describe('settings.json', () => {
  it('context keys set the defaults; query parameters still override them', async () => {
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ context: { tokenBudget: 1200, observations: 3, fullCount: 0 }, search: { embeddings: 'off' } }));
    const w2 = await startWorker({ dataDir });
    try {
      await w2.req('POST', '/api/import', readHistory());
      const r = await w2.req('GET', '/api/context/inject' + qs({ project: 'atlas-api', format: 'json' }));
      assert.equal(r.body.budget, 1200);
      assert.equal(r.body.observations, 3);
      const wide = await w2.req('GET', '/api/context/inject' + qs({ project: 'atlas-api', format: 'json', observations: 6, budget: 2000 }));
      assert.equal(wide.body.observations, 6);
      const st = await w2.req('GET', '/api/search/status');
      assert.equal(st.body.embeddings.provider, 'off');
    } finally {
      await w2.stop();
    }
  });
});
