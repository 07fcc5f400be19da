// A quiet note (noise: stored and searchable, not listed or injected) stays quiet wherever it goes:
// through an export and an import into another worker, and through the team hub (a real PostgreSQL,
// test/helpers/postgres.ts) to a teammate. The note is made the real way: a search that found
// nothing, sent through the observation route and compressed by the local compressor.
// Run `npm run build` first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addTeams, createCluster, createHub, type PgCluster } from '../helpers/postgres';
import { startWorker, until, type RunningWorker } from '../helpers/worker';

const DB = 'quiet_hub';
const PROJECT = 'quiet-p';
let pg: PgCluster;
let hub: Awaited<ReturnType<typeof createHub>>;
const workers: RunningWorker[] = [];

async function worker(env: Record<string, string> = {}): Promise<RunningWorker> {
  const w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local', CLAUDE_MEM_TEST_HOOKS: '1', ...env } });
  workers.push(w);
  return w;
}

async function teammate(name: string, machine: string, url = hub.member(name)): Promise<RunningWorker> {
  const w = await worker({ CLAUDE_MEM_TEAM_URL: url, CLAUDE_MEM_TEAM_MACHINE: machine });
  await until(async () => (await w.req('GET', '/api/team/status')).body.state === 'connected', 15_000, `${name} connected`);
  return w;
}

interface Obs {
  id: number;
  title: string;
}
const titles = async (w: RunningWorker, quiet: 'hide' | 'include') =>
  ((await w.req('GET', `/api/observations?project=${PROJECT}&limit=100&quiet=${quiet}`)).body.items as Obs[]).map((o) => o.title).sort();

/** One session: a read that says something, and a search that found nothing (quiet). */
async function recordSession(w: RunningWorker): Promise<{ loud: string; quiet: string }> {
  const sid = 'quiet-session';
  await w.req('POST', '/api/sessions/init', { contentSessionId: sid, project: PROJECT, prompt: 'find where the ledger rounds amounts' });
  const send = (tool_name: string, tool_input: unknown, tool_response: unknown, id: string) =>
    w.req('POST', '/api/sessions/observations', { contentSessionId: sid, project: PROJECT, tool_name, tool_input, tool_response, tool_use_id: id });
  await send('Read', { file_path: '/repo/src/ledger.ts' }, { type: 'text', file: { filePath: '/repo/src/ledger.ts', content: 'export const round = (x: number) => Math.round(x * 100) / 100;\n', numLines: 1, startLine: 1, totalLines: 1 } }, 'tu-1');
  await send('Grep', { pattern: 'roundHalfEven' }, { mode: 'content', content: 'No matches found', numFiles: 0, filenames: [] }, 'tu-2');
  await until(async () => (await titles(w, 'include')).length === 2, 20_000, 'both notes stored');
  const all = await titles(w, 'include');
  const listed = await titles(w, 'hide');
  assert.equal(listed.length, 1, `one note listed: ${JSON.stringify(all)}`);
  const quiet = all.find((t) => !listed.includes(t)) ?? '';
  assert.match(quiet, /^Searched for .*roundHalfEven.*: no matches$/);
  return { loud: listed[0], quiet };
}

/** What a worker shows of the project: listed, listed with quiet notes, injected, found by search. */
async function assertQuiet(w: RunningWorker, notes: { loud: string; quiet: string }, where: string): Promise<void> {
  assert.deepEqual(await titles(w, 'hide'), [notes.loud], `${where}: only the loud note is listed`);
  assert.deepEqual(await titles(w, 'include'), [notes.loud, notes.quiet].sort(), `${where}: both are stored`);
  const ctx = String((await w.req('GET', `/api/context/inject?project=${PROJECT}`)).body);
  assert.ok(!ctx.includes('roundHalfEven'), `${where}: the quiet note is not injected:\n${ctx}`);
  const found = (await w.req('GET', `/api/search?project=${PROJECT}&mode=keyword&query=roundHalfEven`)).body.items as Obs[];
  assert.ok(found.some((f) => f.title === notes.quiet), `${where}: the quiet note is found by search: ${JSON.stringify(found)}`);
}

before(async () => {
  pg = await createCluster();
  hub = await createHub(pg, { db: DB, teams: {}, extraMembers: ['alice', 'bob'] });
});

after(async () => {
  for (const w of workers) await w.kill('SIGKILL').catch(() => undefined);
  pg?.destroy();
});

describe('a quiet note stays quiet', () => {
  it('through an export and an import into another worker; a bad quiet field is refused whole', async () => {
    const a = await worker();
    const notes = await recordSession(a);
    const doc = (await a.req('GET', `/api/export?project=${PROJECT}`)).body;
    const obs = doc.sessions.flatMap((s: { observations: { title: string; quiet?: boolean }[] }) => s.observations);
    assert.deepEqual(obs.map((o: { title: string; quiet?: boolean }) => [o.title, o.quiet ?? false]).sort(), [[notes.loud, false], [notes.quiet, true]].sort());
    assert.ok(!('quiet' in obs.find((o: { title: string }) => o.title === notes.loud)), 'an ordinary note carries no quiet field');

    const b = await worker();
    const bad = structuredClone(doc);
    bad.sessions[0].observations.find((o: { quiet?: boolean }) => o.quiet).quiet = 'yes';
    const refused = await b.req('POST', '/api/import', bad);
    assert.equal(refused.status, 400);
    assert.match(String(refused.body.error), /sessions\[0\]\.observations\[\d\]\.quiet must be true or false/);
    assert.deepEqual(await titles(b, 'include'), [], 'nothing of a refused document is stored');

    const r = await b.req('POST', '/api/import', doc);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.imported.observations, 2);
    await assertQuiet(b, notes, 'imported');
    // A document without the field (an older export) imports every note as an ordinary one.
    const old = structuredClone(doc);
    old.sessions[0].contentSessionId = 'older-export';
    for (const o of old.sessions[0].observations) delete o.quiet;
    const c = await worker();
    assert.equal((await c.req('POST', '/api/import', old)).status, 200);
    assert.equal((await titles(c, 'hide')).length, 2);
  });

  it('through the team hub to a teammate', async () => {
    const admin = await teammate('admin', 'server', hub.admin); // migrates the fresh hub
    await admin.stop();
    await addTeams(pg, DB, { core: ['alice', 'bob'] });
    const alice = await teammate('alice', 'laptop');
    const bob = await teammate('bob', 'devbox');
    const notes = await recordSession(alice);
    for (const w of [alice, bob]) assert.equal((await w.req('POST', '/api/team/share', { project: PROJECT })).status, 200);
    await until(async () => (await titles(bob, 'include')).length === 2, 30_000, "alice's two notes pulled by bob");

    const onHub = await pg.sql<{ title: string; quiet: boolean | null }>(`SELECT payload->>'title' AS title, (payload->>'quiet')::boolean AS quiet FROM claude_mem.records WHERE project = $1 AND kind = 'observation'`, [PROJECT], DB);
    // The hub's copy names no absolute path ("Read …/ledger.ts"): the titles as shared.
    const shared = { loud: notes.loud.replace('/repo/src/', '…/'), quiet: notes.quiet };
    assert.deepEqual(onHub.map((r) => [r.title, r.quiet ?? false]).sort(), [[shared.loud, false], [shared.quiet, true]].sort());
    await assertQuiet(bob, shared, 'pulled');
  });
});
