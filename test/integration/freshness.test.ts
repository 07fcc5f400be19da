// Freshness end to end on real git repositories in temp dirs and a real worker: a memory citing a
// file becomes stale when the file changes on the branch, stays fresh on an unrelated change,
// survives a rename (reported as moved), and is preferred or demoted by branch; context injection
// and search show it; confirm and retire from a person; re-verify with the fake model updates or
// retires it, and without a model says so.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintToolUse } from '../../common/node/freshness/fingerprint';
import { checkRequest } from '../../extension/freshness/clientCheck';
import { hitLine, observationText } from '../../extension/core/format';
import type { ExportDocument } from '../../worker/transfer';
import type { CitedFilesResponse, FreshnessCheckResponse, MemoryFreshness, Observation, SearchResponse } from '../../common/contract';
import { allText, startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { makeRepo, type TestRepo } from '../helpers/gitRepo';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const PROJECT = 'fresh-proj';
let session = 0;

/** A hook's observation of an Edit of rel, with the hook-side fingerprints; resolves to the stored observation id. */
async function observe(w: RunningWorker, r: TestRepo, rel: string, sessionId = `s-${++session}`): Promise<number> {
  const input = { session_id: sessionId, cwd: r.root, tool_name: 'Edit', tool_input: { file_path: path.join(r.root, rel), old_string: 'x', new_string: `y ${rel}` }, tool_response: 'ok' };
  const before = (await w.req('GET', `/api/observations?project=${PROJECT}&limit=1000`)).body.items.length as number;
  const res = await w.req('POST', '/api/sessions/observations', {
    contentSessionId: sessionId,
    tool_name: input.tool_name,
    tool_input: input.tool_input,
    tool_response: input.tool_response,
    cwd: r.root,
    project: PROJECT,
    citations: fingerprintToolUse(input),
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const items = await until(async () => {
    const l = (await w.req('GET', `/api/observations?project=${PROJECT}&limit=1000`)).body.items as { id: number }[];
    return l.length > before ? l : undefined;
  }, 10_000, 'observation stored');
  return items[0].id;
}

async function check(w: RunningWorker, r: TestRepo): Promise<FreshnessCheckResponse> {
  const cited = (await w.req<CitedFilesResponse>('GET', `/api/freshness/cited?project=${PROJECT}`)).body.files;
  const res = await w.req<FreshnessCheckResponse>('POST', '/api/freshness/check', checkRequest(PROJECT, r.root, cited));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const memory = async (w: RunningWorker, id: number, q = '') => (await w.req<MemoryFreshness>('GET', `/api/freshness/observation/${id}${q}`)).body;

describe('freshness with real git repositories', () => {
  let w: RunningWorker;
  let r: TestRepo;
  const ids: Record<string, number> = {};

  before(async () => {
    w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo();
    r.write('src/http/client.ts', 'export const RETRIES = 3;\n');
    r.write('src/b.ts', 'export const b = 1;\n');
    r.write('src/c.ts', 'export const c = 1;\n');
    r.commit('initial');
    ids.a = await observe(w, r, 'src/http/client.ts');
    ids.b = await observe(w, r, 'src/b.ts');
  });
  after(async () => {
    await w?.stop();
  });

  it('records a citation with the blob id, commit and branch the hook saw', async () => {
    const m = await memory(w, ids.a);
    assert.equal(m.status, 'fresh');
    assert.equal(m.branch, 'main');
    assert.equal(m.citations.length, 1);
    assert.deepEqual(
      { path: m.citations[0].path, blob: m.citations[0].blob, commit: m.citations[0].commit, state: m.citations[0].state },
      { path: 'src/http/client.ts', blob: r.git('hash-object', 'src/http/client.ts'), commit: r.git('rev-parse', 'HEAD'), state: 'fresh' },
    );
  });

  it('stays fresh on an unrelated change', async () => {
    r.write('src/c.ts', 'export const c = 2;\n');
    r.commit('unrelated');
    const res = await check(w, r);
    assert.equal(res.checked, 2);
    assert.deepEqual(res.stale, []);
    assert.equal((await memory(w, ids.a)).status, 'fresh');
  });

  it('becomes stale when the cited file changes on the branch, with what changed and when', async () => {
    r.write('src/http/client.ts', 'export const RETRIES = 5;\n');
    r.commit('five retries');
    const res = await check(w, r);
    assert.deepEqual(res.stale, [{ id: ids.a, path: 'src/http/client.ts', change: 'changed' }]);
    const m = await memory(w, ids.a);
    assert.equal(m.status, 'stale');
    assert.match(m.reason ?? '', /^src\/http\/client\.ts changed on main \d{4}-\d{2}-\d{2} /);
    assert.equal((await memory(w, ids.b)).status, 'fresh');
    // The same check again changes nothing.
    assert.deepEqual((await check(w, r)).stale, []);
  });

  it('survives a rename, reported as moved', async () => {
    r.git('mv', 'src/b.ts', 'src/b-renamed.ts');
    r.commit('rename b');
    const res = await check(w, r);
    assert.deepEqual(res.moved, [{ id: ids.b, from: 'src/b.ts', to: 'src/b-renamed.ts' }]);
    const m = await memory(w, ids.b);
    assert.equal(m.status, 'fresh');
    assert.equal(m.citations[0].path, 'src/b-renamed.ts');
    assert.equal(m.citations[0].movedFrom, 'src/b.ts');
    // Deleted for good: stale.
    r.git('rm', '-q', 'src/b-renamed.ts');
    r.commit('drop b');
    assert.deepEqual((await check(w, r)).stale, [{ id: ids.b, path: 'src/b-renamed.ts', change: 'deleted' }]);
    assert.match((await memory(w, ids.b)).reason ?? '', /src\/b-renamed\.ts deleted/);
  });

  it('a hook touching a cited file is a check too', async () => {
    ids.c = await observe(w, r, 'src/c.ts');
    r.write('src/c.ts', 'export const c = 3;\n');
    ids.c2 = await observe(w, r, 'src/c.ts');
    assert.equal((await memory(w, ids.c)).status, 'stale');
    assert.equal((await memory(w, ids.c2)).status, 'fresh');
    r.commit('c3');
  });

  it('is preferred or demoted by branch, and says where it is from', async () => {
    r.git('checkout', '-q', '-b', 'feature');
    r.write('src/feature.ts', 'export const f = 1;\n');
    r.commit('feature file');
    ids.f = await observe(w, r, 'src/feature.ts');
    const fm = await memory(w, ids.f, '?branch=main');
    assert.equal(fm.branch, 'feature');
    assert.equal(fm.otherBranch, true);
    // On feature, main's memories are of a branch it came from: not "other".
    assert.equal((await memory(w, ids.c2, '?branch=feature&bases=main')).otherBranch, undefined);
    // Back on main the feature file is missing, but a main check leaves the feature memory alone.
    r.git('checkout', '-q', 'main');
    await check(w, r);
    assert.equal((await memory(w, ids.f)).status, 'fresh');
    // Search: a stale mark and the branch on rows; rows of another branch after the rest.
    const s = (await w.req<SearchResponse>('GET', `/api/search?project=${PROJECT}&query=Edited&branch=main&limit=50`)).body;
    const rows = s.items.filter((i) => i.kind === 'observation');
    assert.ok(rows.length >= 5, JSON.stringify(s));
    assert.equal(rows[rows.length - 1].id, ids.f);
    assert.equal(rows[rows.length - 1].otherBranch, true);
    assert.equal(rows[rows.length - 1].branch, 'feature');
    const a = rows.find((x) => x.id === ids.a);
    assert.equal(a?.freshness, 'stale');
    assert.match(a?.staleReason ?? '', /client\.ts changed/);
    assert.equal(rows.find((x) => x.id === ids.c2)?.freshness, undefined);
    // Context injection: stale ones apart (never as fact), other branches marked.
    const md = (await w.req('GET', `/api/context/inject?project=${PROJECT}&branch=main`)).body as string;
    const [main, apart] = md.split('## May be stale');
    assert.ok(apart, md);
    assert.match(apart, new RegExp(`#${ids.a} .*src/http/client\\.ts changed on main`));
    assert.doesNotMatch(main, new RegExp(`^#${ids.a} `, 'm'));
    assert.match(main, new RegExp(`^#${ids.f} .*\\[from branch feature\\]$`, 'm'));
    assert.match(main, new RegExp(`^#${ids.c2} `, 'm'));
    // Full records (what the tools and @memory ground on) carry it, and their text says it.
    const batch = (await w.req('POST', `/api/observations/batch?branch=main`, { ids: [ids.a, ids.f, ids.c2] })).body;
    const [oa, of, oc2] = batch.items as Observation[];
    assert.equal(oa.freshness?.status, 'stale');
    assert.match(observationText(oa), /MAY BE STALE: src\/http\/client\.ts changed on main/);
    assert.equal(of.freshness?.otherBranch, true);
    assert.match(observationText(of), /Recorded on branch feature/);
    assert.equal(oc2.freshness, undefined);
    // The panel's feed and detail read the list and one record: they carry the same mark.
    const list = (await w.req('GET', `/api/observations?project=${PROJECT}&branch=main&limit=100`)).body.items as Observation[];
    assert.equal(list.find((o) => o.id === ids.a)?.freshness?.status, 'stale');
    assert.match(list.find((o) => o.id === ids.a)?.freshness?.reason ?? '', /client\.ts changed/);
    assert.equal(list.find((o) => o.id === ids.c2)?.freshness, undefined);
    assert.equal((await w.req('GET', `/api/observation/${ids.a}?branch=main`)).body.freshness?.status, 'stale');
    assert.equal((await w.req('GET', `/api/observation/${ids.c2}?branch=main`)).body.freshness, undefined);
    assert.match(hitLine({ id: ids.a, kind: 'observation', type: 'change', title: 't', freshness: a?.freshness, staleReason: a?.staleReason }), /MAY BE STALE/);
    const json = (await w.req('GET', `/api/context/inject?project=${PROJECT}&branch=main&format=json`)).body;
    assert.equal(json.stale, 3);
    // The branch comes from the last session when the client does not say (feature, here).
    const md2 = (await w.req('GET', `/api/context/inject?project=${PROJECT}`)).body as string;
    assert.doesNotMatch(md2, /\[from branch feature\]/);
  });

  it('a person confirms or retires; the file panel lists a file’s memories', async () => {
    const blob = r.git('hash-object', 'src/http/client.ts');
    const conf = await w.req<MemoryFreshness>('POST', '/api/freshness/confirm', { id: ids.a, files: [{ path: 'src/http/client.ts', blob }] });
    assert.equal(conf.status, 200);
    assert.equal(conf.body.status, 'confirmed');
    assert.equal(conf.body.citations[0].blob, blob);
    const ret = await w.req<MemoryFreshness>('POST', '/api/freshness/retire', { id: ids.c, replacedBy: ids.c2 });
    assert.equal(ret.body.status, 'retired');
    assert.equal(ret.body.replacedBy, ids.c2);
    const file = (await w.req('GET', `/api/freshness/file?project=${PROJECT}&path=src/c.ts&branch=main`)).body;
    assert.deepEqual(file.items.map((m: MemoryFreshness) => [m.id, m.status]), [[ids.c2, 'fresh'], [ids.c, 'retired']]);
    const md = (await w.req('GET', `/api/context/inject?project=${PROJECT}&branch=main`)).body as string;
    assert.doesNotMatch(md, new RegExp(`#${ids.c} `));
    assert.match(md, new RegExp(`^#${ids.a} `, 'm'));
  });

  it('bad inputs are a 400 naming the field; verify without a model is a 409', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['/api/freshness/check', { files: [] }, /'project'/],
      ['/api/freshness/check', { project: PROJECT, files: [{ path: 'a' }] }, /blob or gone/],
      ['/api/freshness/check', { project: PROJECT, files: [{ path: 'a', blob: 'xyz' }] }, /blob/],
      ['/api/freshness/check', { project: PROJECT, branch: 'a b', files: [] }, /'branch'/],
      ['/api/freshness/confirm', { id: -1 }, /'id'/],
      ['/api/freshness/retire', { id: ids.a, replacedBy: ids.a }, /replacedBy/],
      ['/api/freshness/verify', { id: ids.a, files: [] }, /'files'/],
      ['/api/sessions/observations', { contentSessionId: 'x', tool_name: 'Edit', citations: { files: 'no' } }, /citations\.files/],
    ];
    for (const [p, body, re] of cases) {
      const res = await w.req('POST', p, body);
      assert.equal(res.status, 400, `${p} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.error, re);
    }
    assert.equal((await w.req('GET', '/api/freshness/file?project=x')).status, 400);
    assert.equal((await w.req('POST', '/api/freshness/confirm', { id: 999999 })).status, 404);
    const v = await w.req('POST', '/api/freshness/verify', { id: ids.a, files: [{ path: 'src/http/client.ts', content: 'x' }] });
    assert.equal(v.status, 409);
    assert.match(v.body.error, /confirm or retire/);
  });

  it('export and import carry citations, stale states, confirmations, retirements with their replacement, and branches', async () => {
    const doc = (await w.req<ExportDocument>('GET', `/api/export?project=${PROJECT}`)).body;
    const obs = doc.sessions.flatMap((s) => s.observations);
    assert.ok(obs.some((o) => o.citations?.some((c) => c.state === 'changed')), 'a stale citation is exported');
    assert.ok(obs.some((o) => o.state?.status === 'retired' && o.state.replacedBy), 'a retirement with its replacement is exported');
    assert.ok(doc.sessions.some((s) => s.git?.branch === 'main'), 'a session branch is exported');
    const w2 = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    try {
      const imp = await w2.req('POST', '/api/import', doc);
      assert.equal(imp.status, 200, JSON.stringify(imp.body));
      const again = (await w2.req<ExportDocument>('GET', `/api/export?project=${PROJECT}`)).body;
      assert.deepEqual(again.sessions, doc.sessions, 'the round trip keeps every citation, state and branch');
      // The imported memory is judged stale by the new worker, with what changed.
      // The new worker judges each memory as the old one does (stale, confirmed, retired, with why).
      const judged = async (x: RunningWorker) =>
        ((await x.req('GET', `/api/observations?project=${PROJECT}&limit=1000&branch=main`)).body.items as Observation[])
          .map((o) => `${o.createdAtEpoch} ${o.title} ${o.freshness?.status ?? 'fresh'} ${o.freshness?.reason ?? ''}`)
          .sort();
      const before = await judged(w);
      assert.ok(['stale', 'confirmed', 'retired'].every((st) => before.some((l) => l.includes(` ${st} `))), before.join('\n'));
      assert.deepEqual(await judged(w2), before);
      // Importing again adds nothing, and a citation that is not one is refused with its path.
      assert.deepEqual((await w2.req('POST', '/api/import', doc)).body.imported, { sessions: 0, prompts: 0, observations: 0, summaries: 0 });
      assert.deepEqual((await w2.req<ExportDocument>('GET', `/api/export?project=${PROJECT}`)).body.sessions, doc.sessions);
      const bad = structuredClone(doc);
      const withCites = bad.sessions.flatMap((s) => s.observations).find((o) => o.citations?.length)!;
      withCites.citations![0].blob = 'not-hex';
      const refused = await w2.req('POST', '/api/import', bad);
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /observations\[\d+\]\.citations\[0\]\.blob/);
    } finally {
      await w2.stop();
    }
  });
});

describe('re-verify with the fake model', () => {
  let fake: FakeAnthropic;
  let w: RunningWorker;
  let r: TestRepo;
  let verdict = '';

  before(async () => {
    fake = await startFakeAnthropic(({ body }) => {
      const all = allText(body);
      if (all.includes('You check whether a stored memory')) return text(verdict);
      const file = /src\/[\w/.-]+/.exec(all)?.[0] ?? 'src/x.ts';
      return text(`<observation><type>discovery</type><title>Retry limit in ${file}</title><facts><fact>${file} sets RETRIES to 3</fact></facts><files_modified><file>${file}</file></files_modified><tool_uses>1</tool_uses></observation>`);
    });
    const dataDir = tempDir();
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', batchMaxAgeMs: 0, batchMaxUses: 1, dailyTokenBudget: 0 }));
    w = await startWorker({ dataDir, env: { CLAUDE_MEM_EMBEDDINGS: 'off', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, CLAUDE_MEM_PROVIDER: 'anthropic' } });
    r = makeRepo();
    r.write('src/http/client.ts', 'export const RETRIES = 3;\n');
    r.write('src/other.ts', 'export const o = 1;\n');
    r.write('src/third.ts', 'export const t = 1;\n');
    r.commit('initial');
  });
  after(async () => {
    await w?.stop();
    await fake?.close();
  });

  it('changed: a corrected memory replaces the stale one, which is retired with a link', async () => {
    const id = await observe(w, r, 'src/http/client.ts');
    r.write('src/http/client.ts', 'export const RETRIES = 5;\n');
    r.commit('five');
    assert.equal((await check(w, r)).stale.length, 1);
    verdict = '<verdict>changed</verdict><reason>RETRIES is now 5</reason><title>Retry limit in src/http/client.ts is 5</title><narrative>RETRIES went from 3 to 5.</narrative><facts><fact>src/http/client.ts sets RETRIES to 5</fact></facts>';
    const blob = r.git('hash-object', 'src/http/client.ts');
    const res = await w.req('POST', '/api/freshness/verify', { id, files: [{ path: 'src/http/client.ts', blob, diff: '-export const RETRIES = 3;\n+export const RETRIES = 5;' }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.verdict, 'changed');
    assert.equal(res.body.memory.status, 'retired');
    const newId = res.body.replacedBy as number;
    assert.equal(res.body.memory.replacedBy, newId);
    const prompt = allText(fake.requests.map((q) => q.body).filter(Boolean).pop() as never);
    assert.match(prompt, /RETRIES = 5/);
    assert.match(prompt, /Retry limit in src\/http\/client\.ts/);
    const fresh = await memory(w, newId);
    assert.equal(fresh.status, 'fresh');
    assert.equal(fresh.title, 'Retry limit in src/http/client.ts is 5');
    assert.equal(fresh.citations[0].blob, blob);
    const obs = (await w.req('GET', `/api/observation/${newId}`)).body;
    assert.deepEqual(obs.facts, ['src/http/client.ts sets RETRIES to 5']);
  });

  it('wrong: retired; still-true: confirmed and re-anchored; no verdict: nothing changes', async () => {
    const wrongId = await observe(w, r, 'src/other.ts');
    const trueId = await observe(w, r, 'src/third.ts');
    r.write('src/other.ts', 'gone\n');
    r.write('src/third.ts', 'export const t = 1; // comment\n');
    await check(w, r);
    verdict = '<verdict>nonsense</verdict>';
    const bad = await w.req('POST', '/api/freshness/verify', { id: wrongId, files: [{ path: 'src/other.ts', content: 'gone' }] });
    assert.equal(bad.status, 502);
    assert.equal((await memory(w, wrongId)).status, 'stale');
    verdict = '<verdict>wrong</verdict><reason>o no longer exists</reason>';
    const wr = await w.req('POST', '/api/freshness/verify', { id: wrongId, files: [{ path: 'src/other.ts', content: 'gone' }] });
    assert.equal(wr.body.verdict, 'wrong');
    assert.equal(wr.body.memory.status, 'retired');
    assert.equal(wr.body.replacedBy, undefined);
    verdict = '<verdict>still-true</verdict><reason>only a comment was added</reason>';
    const blob = r.git('hash-object', 'src/third.ts');
    const st = await w.req('POST', '/api/freshness/verify', { id: trueId, files: [{ path: 'src/third.ts', blob, diff: '+// comment' }] });
    assert.equal(st.body.memory.status, 'confirmed');
    assert.equal(st.body.memory.citations[0].blob, blob);
  });
});

/**
 * The age-out window of the settings case: the steps between storing a memory and seeing it in
 * context must fit in it. They take well under a second on an idle machine; 1.5 s was too short
 * beside other files on a loaded one. The case then polls for the memory to age.
 */
const AGE_OUT_MS = 8000;

describe('freshness settings', () => {
  let w: RunningWorker;
  let r: TestRepo;

  before(async () => {
    const dataDir = tempDir();
    // Stale memories dropped from injection; a memory unconfirmed for AGE_OUT_MS ages out.
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ freshness: { staleInContext: 'drop', ageOutDays: AGE_OUT_MS / 86_400_000 } }));
    w = await startWorker({ dataDir, env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
    r = makeRepo();
    r.write('a.ts', 'a\n');
    r.write('b.ts', 'b\n');
    r.commit('one');
  });
  after(async () => {
    await w?.stop();
  });

  it('drops stale memories from injection, ages out unconfirmed ones, never deletes them', async () => {
    const a = await observe(w, r, 'a.ts');
    const b = await observe(w, r, 'b.ts');
    r.write('a.ts', 'a2\n');
    await check(w, r);
    const md = (await w.req('GET', `/api/context/inject?project=${PROJECT}`)).body as string;
    assert.doesNotMatch(md, /May be stale/);
    assert.doesNotMatch(md, new RegExp(`#${a} `));
    assert.match(md, new RegExp(`^#${b} `, 'm'));
    await until(async () => (await memory(w, b)).status === 'aged', AGE_OUT_MS + 30_000, 'the unconfirmed memory to age out');
    assert.doesNotMatch((await w.req('GET', `/api/context/inject?project=${PROJECT}`)).body as string, new RegExp(`#${b} `));
    // Confirming brings it back; both are still stored.
    await w.req('POST', '/api/freshness/confirm', { id: b });
    assert.match((await w.req('GET', `/api/context/inject?project=${PROJECT}`)).body as string, new RegExp(`^#${b} `, 'm'));
    assert.equal((await w.req('GET', `/api/observation/${a}`)).status, 200);
  });
});
