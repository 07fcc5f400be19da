// Team memory against a real PostgreSQL (a throwaway cluster, test/helpers/postgres.ts): two
// workers share a project and converge; nothing unshared, private or secret reaches the hub;
// the hub going down, a worker killed mid-push and a day offline all end equal with no duplicates;
// deletes propagate; row-level security keeps a non-member out.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { addTeams, createCluster, createHub, type PgCluster } from '../helpers/postgres';
import { CLI_JS, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const DB = 'team_hub';
let pg: PgCluster;
let hub: Awaited<ReturnType<typeof createHub>>;
const workers: RunningWorker[] = [];

interface Mate {
  w: RunningWorker;
  name: string;
  machine: string;
}

async function teammate(name: string, machine: string, opts: { dataDir?: string; env?: Record<string, string>; url?: string; wait?: boolean } = {}): Promise<Mate> {
  const w = await startWorker({
    dataDir: opts.dataDir,
    env: {
      CLAUDE_MEM_EMBEDDINGS: 'off',
      CLAUDE_MEM_PROVIDER: 'local',
      CLAUDE_MEM_TEAM_URL: opts.url ?? hub.member(name),
      CLAUDE_MEM_TEAM_MACHINE: machine,
      CLAUDE_MEM_TEST_HOOKS: '1',
      ...opts.env,
    },
  });
  workers.push(w);
  if (opts.wait !== false) await until(async () => (await w.req('GET', '/api/team/status')).body.state === 'connected', 15_000, `${name} connected`);
  return { w, name, machine };
}

async function save(m: Mate, project: string, text: string, title?: string): Promise<number> {
  const r = await m.w.req('POST', '/api/memory/save', { project, text, title });
  assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
  return r.body.id as number;
}

async function share(m: Mate, project: string): Promise<void> {
  const r = await m.w.req('POST', '/api/team/share', { project });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function records(m: Mate, project: string): Promise<{ gid: string; title: string | null; author: string | null; machine: string | null }[]> {
  return (await m.w.req('GET', `/api/team/records?project=${encodeURIComponent(project)}`)).body.items;
}

async function titles(m: Mate, project: string): Promise<string[]> {
  const r = await m.w.req('GET', `/api/observations?project=${encodeURIComponent(project)}&limit=1000`);
  return r.body.items.map((o: { title: string }) => o.title).sort();
}

/** Both sides hold the same records, each once, and the hub holds each once. */
async function converged(a: Mate, b: Mate, project: string, n: number): Promise<void> {
  await until(async () => (await records(a, project)).length === n && (await records(b, project)).length === n && (await titles(b, project)).length === n, 30_000, `${n} records on both sides of ${project}`);
  const ra = (await records(a, project)).map((r) => r.gid);
  const rb = (await records(b, project)).map((r) => r.gid);
  assert.deepEqual(ra, rb);
  assert.equal(new Set(ra).size, n);
  const ta = await titles(a, project);
  const tb = await titles(b, project);
  assert.deepEqual(ta, tb);
  assert.equal(new Set(ta).size, n, 'no duplicate records locally');
  const onHub = await pg.sql<{ n: string; d: string }>(`SELECT count(*) AS n, count(DISTINCT gid) AS d FROM claude_mem.records WHERE project = $1`, [project], DB);
  assert.equal(Number(onHub[0].n), n);
  assert.equal(Number(onHub[0].d), n);
}

async function hubCount(project: string): Promise<number> {
  return Number((await pg.sql<{ n: string }>(`SELECT count(*) AS n FROM claude_mem.records WHERE project = $1`, [project], DB))[0].n);
}

/** Every row of every table in every non-system schema of the hub, as text. */
async function hubDump(): Promise<string> {
  const tables = await pg.sql<{ s: string; t: string }>(
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
    [],
    DB,
  );
  assert.ok(tables.length >= 5, 'the hub has its tables');
  let out = '';
  for (const { s, t } of tables) {
    const rows = await pg.sql<{ x: string }>(`SELECT t::text AS x FROM "${s}"."${t}" t`, [], DB);
    out += rows.map((r) => r.x).join('\n');
  }
  return out;
}

before(async () => {
  pg = await createCluster();
  hub = await createHub(pg, { db: DB, teams: {}, extraMembers: ['alice', 'bob', 'carol'] });
});

after(async () => {
  for (const w of workers) await w.kill('SIGKILL').catch(() => undefined);
  pg?.destroy();
});

describe('team memory through PostgreSQL', () => {
  let alice: Mate;
  let bob: Mate;

  it('a member role cannot migrate a fresh hub (clear message); the first admin worker does', async () => {
    const m = await teammate('alice', 'laptop', { wait: false });
    const st = await until(async () => {
      const s = (await m.w.req('GET', '/api/team/status')).body;
      return s.state === 'error' ? s : undefined;
    }, 15_000, 'refusal');
    assert.match(st.lastError, /schema is at version 0 .*role "alice" may not migrate it.*claude_mem_admin/);
    assert.doesNotMatch(JSON.stringify(st), /pw-alice/, 'the password never shows');
    await m.w.stop();
    const admin = await teammate('admin', 'server', { url: hub.admin });
    const v = await pg.sql<{ v: number }>(`SELECT max(version) AS v FROM claude_mem.schema_migrations`, [], DB);
    assert.equal(v[0].v, 2);
    await admin.w.stop();
    await addTeams(pg, DB, { core: ['alice', 'bob'], other: ['carol'] });
  });

  it('two admin workers connecting to a fresh hub at once migrate it once', async () => {
    const race = await createHub(pg, { db: 'race_hub', teams: {}, extraMembers: [] });
    const [x, y] = await Promise.all([teammate('admin', 'race-1', { url: race.admin }), teammate('admin', 'race-2', { url: race.admin })]);
    const v = await pg.sql<{ version: number }>(`SELECT version FROM claude_mem.schema_migrations`, [], 'race_hub');
    assert.deepEqual(v.map((r) => r.version), [1, 2]);
    await Promise.all([x.w.stop(), y.w.stop()]);
  });

  it('two teammates share a project and converge; pulled memory is searchable and labelled', async () => {
    alice = await teammate('alice', 'laptop');
    bob = await teammate('bob', 'devbox');
    await save(alice, 'shared-p', 'The flaky checkout test is caused by a timezone assumption in the fixture clock', 'flaky checkout test cause');
    await save(alice, 'shared-p', 'We dropped the Redis cache because invalidation cost more than it saved', 'dropped redis cache');
    await save(alice, 'private-p', 'UNSHARED-MARKER nothing here may leave the laptop', 'unshared note');
    await share(alice, 'shared-p');
    await share(bob, 'shared-p');
    await save(alice, 'shared-p', 'Builds need node 20: the wasm loader breaks on 18', 'node 20 needed');
    await save(bob, 'shared-p', 'The migration runner takes an advisory lock so two deploys cannot race', 'migration advisory lock');
    await converged(alice, bob, 'shared-p', 4);

    const found = await bob.w.req('GET', '/api/search?query=flaky%20checkout%20timezone&project=shared-p');
    assert.equal(found.status, 200);
    const hit = found.body.items.find((i: { title: string }) => /flaky checkout/.test(i.title));
    assert.ok(hit, `bob finds alice's record: ${JSON.stringify(found.body.items)}`);
    assert.deepEqual(hit.team, { author: 'alice', machine: 'laptop' });
    const ctx = await bob.w.req('GET', '/api/context/inject?project=shared-p');
    assert.match(String(ctx.body), /flaky checkout test cause/);
    const mine = (await records(alice, 'shared-p')).find((r) => r.title === 'migration advisory lock');
    assert.deepEqual([mine?.author, mine?.machine], ['bob', 'devbox']);

    // The unshared project never reached the hub.
    assert.equal(await hubCount('private-p'), 0);
    const hubProjects = await pg.sql<{ project: string }>(`SELECT project FROM claude_mem.projects`, [], DB);
    assert.deepEqual(hubProjects.map((p) => p.project), ['shared-p']);
    assert.doesNotMatch(await hubDump(), /UNSHARED-MARKER|private-p/);
  });

  it('hook-made observations and session summaries travel too', async () => {
    await share(alice, 'sum-p');
    await share(bob, 'sum-p');
    const sid = 'team-sum-session';
    await alice.w.req('POST', '/api/sessions/init', { contentSessionId: sid, project: 'sum-p', prompt: 'fix the rounding in the ledger export' });
    await alice.w.req('POST', '/api/sessions/observations', { contentSessionId: sid, project: 'sum-p', tool_name: 'Edit', tool_input: { file_path: 'src/ledger.ts', old_string: 'round(x)', new_string: 'roundHalfEven(x)' }, tool_response: 'ok', tool_use_id: 'tu-1' });
    const kinds = async (m: Mate) => (await m.w.req('GET', '/api/team/records?project=sum-p')).body.items.map((r: { kind: string }) => r.kind).sort();
    // The session end asks for a summary only once the tool use is compressed into an observation.
    await until(async () => (await kinds(alice)).includes('observation'), 20_000, 'the observation compressed');
    await alice.w.req('POST', '/api/sessions/complete', { contentSessionId: sid, project: 'sum-p' });
    await until(async () => (await kinds(bob)).join() === 'observation,summary' && (await kinds(alice)).join() === 'observation,summary', 30_000, 'observation and summary on both sides').catch(async (e: Error) => {
      const q = (await alice.w.req('GET', '/api/queue')).body;
      throw new Error(`${e.message}: alice ${await kinds(alice)}, bob ${await kinds(bob)}; alice queue ${JSON.stringify(q)}; status ${JSON.stringify((await alice.w.req('GET', '/api/team/status')).body)}`);
    });
    const bobs = (await bob.w.req('GET', '/api/team/records?project=sum-p')).body.items;
    assert.ok(bobs.every((r: { author: string }) => r.author === 'alice'));
    const ctx = await bob.w.req('GET', '/api/context/inject?project=sum-p&format=json');
    assert.equal(ctx.body.summaries + ctx.body.observations >= 2, true, JSON.stringify(ctx.body));
    assert.match(ctx.body.markdown, /\[alice@laptop\]/);
    // A client that turned teammates off for its own injection (claudeMem.team.injectTeammates) gets none.
    const mine = await bob.w.req('GET', '/api/context/inject?project=sum-p&format=json&teammates=0');
    assert.equal(mine.body.observations + mine.body.summaries, 0, mine.body.markdown);
    // With teammates' memory turned off, none of it is injected (search still has it).
    const quiet = await teammate('bob', 'devbox-quiet', { env: { CLAUDE_MEM_TEAM_INJECT: '0' } });
    await share(quiet, 'sum-p');
    await until(async () => (await kinds(quiet)).join() === 'observation,summary', 20_000, 'pulled on the quiet worker');
    const none = await quiet.w.req('GET', '/api/context/inject?project=sum-p&format=json');
    assert.equal(none.body.observations + none.body.summaries, 0, none.body.markdown);
    assert.doesNotMatch(none.body.markdown, /ledger|alice/);
    const found = await quiet.w.req('GET', '/api/search?query=ledger&project=sum-p');
    assert.ok(found.body.items.length > 0);
    await quiet.w.stop();
  });

  it('prompts travel only from a project shared with its prompts (a separate opt-in)', async () => {
    await share(alice, 'noprompt-p');
    await share(bob, 'noprompt-p');
    await alice.w.req('POST', '/api/sessions/init', { contentSessionId: 'np-1', project: 'noprompt-p', prompt: 'PROMPT-STAYS-HOME-5521 please refactor the parser' });
    await save(alice, 'noprompt-p', 'A shared note beside an unshared prompt', 'np note');
    await converged(alice, bob, 'noprompt-p', 1);
    assert.doesNotMatch(await hubDump(), /PROMPT-STAYS-HOME-5521/);
    const withPrompts = await alice.w.req('POST', '/api/team/share', { project: 'prompt-p', prompts: true });
    assert.equal(withPrompts.status, 200, JSON.stringify(withPrompts.body));
    assert.equal(withPrompts.body.prompts, true);
    await share(bob, 'prompt-p');
    await alice.w.req('POST', '/api/sessions/init', { contentSessionId: 'p-1', project: 'prompt-p', prompt: 'PROMPT-SHARED-7731 why is the cache cold with key AKIAIOSFODNN7EXAMPLE' });
    await until(async () => (await records(bob, 'prompt-p')).some((r) => /PROMPT-SHARED-7731/.test(r.title ?? '')), 20_000, 'the prompt on bob');
    const pr = (await records(bob, 'prompt-p')).find((r) => /PROMPT-SHARED-7731/.test(r.title ?? ''));
    assert.match(pr?.title ?? '', /\[redacted\]/i);
    assert.doesNotMatch(pr?.title ?? '', /AKIAIOSFODNN7EXAMPLE/);
    assert.equal(pr?.author, 'alice');
    const found = await bob.w.req('GET', '/api/search?query=PROMPT-SHARED-7731&project=prompt-p&type=prompt');
    assert.equal(found.status, 200);
    assert.equal((await alice.w.req('POST', '/api/team/share', { project: 'x', prompts: 'yes' })).status, 400);
  });

  it('private-tagged text and a planted secret never reach the hub (SQL over every table)', async () => {
    await save(alice, 'shared-p', 'Deploy with <private>PRIV-TOKEN-8841 do not share</private> the staging key AKIAIOSFODNN7EXAMPLE and password=hunter2hunter2', 'deploy staging');
    // Reaches the store some other way (an import, a future path): the hub gate strips it too.
    await save(alice, 'shared-p', 'Second note: ghp_abcdefghijklmnopqrstuvwxyz0123456789AB for the bot', 'bot token note');
    await converged(alice, bob, 'shared-p', 6);
    const dump = await hubDump();
    assert.doesNotMatch(dump, /PRIV-TOKEN-8841|AKIAIOSFODNN7EXAMPLE|hunter2hunter2|ghp_abcdefghijklmnopqrstuvwxyz0123456789AB/);
    assert.match(dump, /\[redacted\]/i);
    const got = await bob.w.req('GET', '/api/search?query=staging%20key&project=shared-p');
    assert.ok(got.body.items.length > 0);
  });

  it("a delete of one's own record disappears on the other side and stays deleted; a pulled copy's delete is local", async () => {
    const before = await records(alice, 'shared-p');
    const n = before.length;
    const byTitle = async (m: Mate, t: string) => {
      const r = await m.w.req('GET', `/api/observations?project=shared-p&limit=1000`);
      return r.body.items.find((o: { title: string }) => o.title === t)?.id as number | undefined;
    };
    // Alice deletes her own record; Bob deletes his pulled copy of one of Alice's.
    const own = await byTitle(alice, 'dropped redis cache');
    assert.equal((await alice.w.req('DELETE', `/api/observation/${own}`)).status, 200);
    const pulled = await byTitle(bob, 'node 20 needed');
    assert.equal((await bob.w.req('DELETE', `/api/observation/${pulled}`)).status, 200);
    await until(async () => (await records(bob, 'shared-p')).length === n - 2 && (await records(alice, 'shared-p')).length === n - 1, 30_000, 'both deletes applied');
    await bob.w.req('POST', '/api/team/sync');
    await alice.w.req('POST', '/api/team/sync');
    assert.equal(await byTitle(bob, 'dropped redis cache'), undefined);
    assert.ok(await byTitle(alice, 'node 20 needed'), "alice keeps her record bob deleted on his machine");
    assert.equal(await hubCount('shared-p'), n - 1);
    const tomb = await pg.sql<{ n: string }>(`SELECT count(*) AS n FROM claude_mem.tombstones`, [], DB);
    assert.equal(Number(tomb[0].n), 1);
    assert.doesNotMatch(await hubDump(), /Redis cache because/, 'a tombstone erases the content on the hub');
    // A full re-pull from cursor 0 (duplicates, records before their tombstones) changes nothing.
    const again = await bob.w.req('POST', '/api/team/sync');
    assert.equal(again.status, 200);
    assert.equal((await records(bob, 'shared-p')).length, n - 2);
    assert.equal(await byTitle(bob, 'node 20 needed'), undefined, 'a deleted pulled copy is not pulled again');
  });

  it('a member without access to a project reads nothing of it (row-level security)', async () => {
    const c = new Client({ connectionString: hub.member('carol') });
    await c.connect();
    try {
      for (const t of ['records', 'tombstones', 'projects', 'members']) {
        const r = await c.query(`SELECT count(*) AS n FROM claude_mem.${t} WHERE ${t === 'members' ? `team_id = 'core'` : `project = 'shared-p'`}`);
        assert.equal(Number(r.rows[0].n), 0, `carol sees no ${t} of core`);
      }
      await assert.rejects(
        c.query(`INSERT INTO claude_mem.records (gid, seq, team_id, project, kind, origin, machine, author, origin_session, payload, created_at) VALUES ('x:o:1:1', 0, 'core', 'shared-p', 'observation', 'x', 'x', 'carol', 's', '{}', 0)`),
        /row-level security|violates|not a member of team "core"/,
      );
      await assert.rejects(c.query(`UPDATE claude_mem.records SET payload = '{}'`), /permission denied/);
    } finally {
      await c.end();
    }
    // Carol shares a project of the same name with her own team: she pulls nothing of core's.
    const carol = await teammate('carol', 'carolbox');
    await share(carol, 'shared-p');
    await carol.w.req('POST', '/api/team/sync');
    assert.equal((await records(carol, 'shared-p')).length, 0);
    assert.deepEqual(await titles(carol, 'shared-p'), []);
    await carol.w.stop();
    // Nor can she erase core's records through a tombstone in her own team's project of that name.
    const victim = (await pg.sql<{ gid: string }>(`SELECT gid FROM claude_mem.records WHERE team_id = 'core' LIMIT 1`, [], DB))[0].gid;
    const c2 = new Client({ connectionString: hub.member('carol') });
    await c2.connect();
    try {
      await assert.rejects(c2.query(`INSERT INTO claude_mem.tombstones (gid, seq, team_id, project, kind, deleted_by) VALUES ($1, 0, 'other', 'shared-p', 'observation', 'carol')`, [victim]), /row-level security/);
    } finally {
      await c2.end();
    }
    assert.equal((await pg.sql(`SELECT 1 FROM claude_mem.records WHERE gid = $1`, [victim], DB)).length, 1);
  });

  it('the hub stopped mid-sync and restarted ends equal, with no duplicates', async () => {
    const a = await teammate('alice', 'laptop2', { env: { CLAUDE_MEM_TEAM_PUSH_BATCH: '4', CLAUDE_MEM_TEAM_TEST_ACK_DELAY_MS: '60' } });
    await share(a, 'outage-p');
    await share(bob, 'outage-p');
    for (let i = 0; i < 40; i++) await save(a, 'outage-p', `outage record ${i} about the payment retry queue`, `outage ${i}`);
    await until(async () => (await hubCount('outage-p')) >= 4, 15_000, 'some pushed');
    pg.stop('immediate');
    for (let i = 40; i < 50; i++) await save(a, 'outage-p', `outage record ${i} written while the hub is down`, `outage ${i}`);
    const st = await until(async () => {
      const s = (await a.w.req('GET', '/api/team/status')).body;
      return s.state !== 'connected' && s.waiting > 0 ? s : undefined;
    }, 15_000, 'offline with records waiting');
    assert.ok(st.waiting >= 10);
    pg.start();
    await a.w.req('POST', '/api/team/sync');
    await bob.w.req('POST', '/api/team/sync');
    await converged(a, bob, 'outage-p', 50);
    await until(async () => (await a.w.req('GET', '/api/team/status')).body.waiting === 0, 10_000, 'outbox empty');
    await a.w.stop();
  });

  it('a worker SIGKILLed after the hub committed a push but before it recorded it re-pushes without duplicates', async () => {
    const dataDir = tempDir();
    let a = await teammate('alice', 'laptop3', { dataDir, env: { CLAUDE_MEM_TEAM_TEST_ACK_DELAY_MS: '3000' } });
    await share(a, 'crash-p');
    await share(bob, 'crash-p');
    for (let i = 0; i < 12; i++) await save(a, 'crash-p', `crash record ${i} on the ledger rounding`, `crash ${i}`);
    await until(async () => (await hubCount('crash-p')) === 12, 15_000, 'pushed, not yet acknowledged');
    assert.ok((await a.w.req('GET', '/api/team/status')).body.waiting > 0, 'the outbox still holds the pushed batch');
    await a.w.kill('SIGKILL');
    a = await teammate('alice', 'laptop3', { dataDir });
    await until(async () => (await a.w.req('GET', '/api/team/status')).body.waiting === 0, 20_000, 're-pushed and acknowledged');
    await converged(a, bob, 'crash-p', 12);
    await a.w.stop();
  });

  it('a day offline (simulated clock) ends equal, with no duplicates', async () => {
    const a = await teammate('alice', 'laptop4');
    await share(a, 'offline-p');
    await share(bob, 'offline-p');
    pg.stop('fast');
    for (let h = 0; h < 24; h += 6) {
      for (let i = 0; i < 3; i++) await save(a, 'offline-p', `offline hour ${h} note ${i} about the search index`, `offline ${h}.${i}`);
      await a.w.req('POST', '/api/team/test/clock', { advanceMs: 6 * 3600_000 });
      await bob.w.req('POST', '/api/team/test/clock', { advanceMs: 6 * 3600_000 });
    }
    const st = (await a.w.req('GET', '/api/team/status')).body;
    assert.notEqual(st.state, 'connected');
    assert.equal(st.waiting, 12);
    pg.start();
    await a.w.req('POST', '/api/team/sync');
    await bob.w.req('POST', '/api/team/sync');
    await converged(a, bob, 'offline-p', 12);
    await a.w.stop();
  });

  it("an admin removes a member's data as docs/team.md says, and every worker drops it", async () => {
    await save(bob, 'shared-p', 'Bob wrote this about the release checklist', 'bob release checklist');
    // Bob deleted his copy of one of alice's records earlier: he holds one record fewer.
    const n = (await records(alice, 'shared-p')).length + 1;
    // The case before restarted the hub: alice may still be waiting out her reconnect backoff
    // (up to RECONNECT_MAX_MS, 60 s, in worker/team/sync.ts) before she pulls the note.
    await until(async () => (await records(alice, 'shared-p')).length === n && (await records(bob, 'shared-p')).length === n - 1, 75_000, 'bob note on both sides');
    const bobs = (await records(alice, 'shared-p')).filter((r) => r.author === 'bob').length;
    assert.ok(bobs >= 2);
    const c = new Client({ connectionString: hub.admin });
    await c.connect();
    try {
      await c.query(`INSERT INTO claude_mem.tombstones (gid, seq, team_id, project, kind, deleted_by)
        SELECT gid, 0, team_id, project, kind, current_user FROM claude_mem.records WHERE author = 'bob'`);
    } finally {
      await c.end();
    }
    await alice.w.req('POST', '/api/team/sync');
    await bob.w.req('POST', '/api/team/sync');
    await until(async () => (await records(alice, 'shared-p')).length === n - bobs && (await records(bob, 'shared-p')).length === n - 1 - bobs, 20_000, "bob's records gone on both sides");
    assert.equal(await hubCount('shared-p'), n - bobs);
    assert.equal((await records(alice, 'shared-p')).filter((r) => r.author === 'bob').length, 0);
    assert.doesNotMatch(await hubDump(), /release checklist/);
  });

  it('the CLI connects from stdin into a 0600 file, shares, reports and unshares', async () => {
    const m = await teammate('alice', 'cli-box', { url: '', wait: false });
    const cli = (args: string[], input?: string) =>
      spawnSync(process.execPath, [CLI_JS, 'team', ...args], {
        input,
        encoding: 'utf8',
        env: { ...process.env, CLAUDE_MEM_DATA_DIR: m.w.dataDir, CLAUDE_MEM_WORKER_PORT: String(m.w.port), CLAUDE_MEM_TEAM_URL: '' },
      });
    assert.match(cli(['status']).stdout, /team hub: off/);
    const early = cli(['share', 'cli-p']);
    assert.equal(early.status, 1);
    assert.match(early.stderr, /\(409\): not connected to the team hub \(off\)/);
    const c = cli(['connect'], hub.member('alice'));
    assert.equal(c.status, 0, c.stderr);
    assert.doesNotMatch(c.stdout + c.stderr, /pw-alice/);
    const file = path.join(m.w.dataDir, 'team.url');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    await until(async () => (await m.w.req('GET', '/api/team/status')).body.state === 'connected', 15_000, 'connected from the file');
    await save(m, 'cli-p', 'A record shared from the command line', 'cli record');
    const sh = cli(['share', 'cli-p']);
    assert.equal(sh.status, 0, sh.stderr);
    assert.match(sh.stdout, /sharing "cli-p" with team core; 1 existing record/);
    await until(async () => (await hubCount('cli-p')) === 1, 10_000, 'pushed');
    const st = cli(['status']);
    assert.match(st.stdout, /team hub: connected/);
    assert.match(st.stdout, /cli-p -> team core, up to date/);
    assert.doesNotMatch(st.stdout, /pw-alice/);
    assert.equal(cli(['unshare', 'cli-p']).status, 0);
    const again = cli(['unshare', 'cli-p']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /not shared/);
    assert.equal(cli(['bogus']).status, 2);
    // A file others can read is refused, with the reason.
    fs.chmodSync(file, 0o644);
    await m.w.req('POST', '/api/team/connection', { reload: true });
    const bad = (await m.w.req('GET', '/api/team/status')).body;
    assert.equal(bad.state, 'error');
    assert.match(bad.lastError, /readable by others.*chmod 600/);
    assert.doesNotMatch(fs.readFileSync(path.join(m.w.dataDir, 'logs', fs.readdirSync(path.join(m.w.dataDir, 'logs'))[0]), 'utf8'), /pw-alice/, 'the log never holds the password');
    await m.w.stop();
  });
});
