// A team hub that members cannot poison, erase or stall, against a real PostgreSQL (a throwaway
// cluster, test/helpers/postgres.ts). A hostile member writes straight to the hub with its own
// login: pulled records pass the same gate as local ingest; a member deletes only its own records;
// forgetting a shared project is local unless a maintainer forgets it for the team; no member
// stalls another team; prompts, assistant text, raw tool output and absolute paths stay home; a
// refused login is an error retried slowly; a later `team connect` wins; teams are private; a
// forged origin hides nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from 'pg';
import { getObservationsTool } from '../../cli/mcpTools';
import type { Observation, SearchRow } from '../../common/contract';
import { addTeams, createCluster, createHub, type PgCluster } from '../helpers/postgres';
import { privateText } from '../helpers/privateText';
import { CLI_JS, startWorker, until, type RunningWorker } from '../helpers/worker';

const DB = 'trust_hub';
let pg: PgCluster;
let hub: Awaited<ReturnType<typeof createHub>>;
const workers: RunningWorker[] = [];

interface Mate {
  w: RunningWorker;
  name: string;
}

async function teammate(name: string, machine: string, opts: { env?: Record<string, string>; url?: string; wait?: boolean } = {}): Promise<Mate> {
  const w = await startWorker({
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
  return { w, name };
}

async function save(m: Mate, project: string, text: string, title: string): Promise<number> {
  const r = await m.w.req('POST', '/api/memory/save', { project, text, title });
  assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
  return r.body.id as number;
}

async function share(m: Mate, project: string, prompts = false): Promise<void> {
  const r = await m.w.req('POST', '/api/team/share', { project, ...(prompts ? { prompts } : {}) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function observations(m: Mate, project: string): Promise<{ id: number; title: string; type: string; narrative: string | null; facts: string[]; createdAt: string; team?: { author: string } }[]> {
  return (await m.w.req('GET', `/api/observations?project=${encodeURIComponent(project)}&limit=1000`)).body.items;
}

async function titles(m: Mate, project: string): Promise<string[]> {
  return (await observations(m, project)).map((o) => o.title).sort();
}

async function hubTitles(project: string): Promise<string[]> {
  const rows = await pg.sql<{ t: string }>(`SELECT payload->>'title' AS t FROM claude_mem.records WHERE project = $1 AND kind = 'observation' ORDER BY 1`, [project], DB);
  return rows.map((r) => r.t);
}

async function hubDump(): Promise<string> {
  let out = '';
  for (const t of ['records', 'tombstones', 'projects']) out += (await pg.sql<{ x: string }>(`SELECT t::text AS x FROM claude_mem.${t} t`, [], DB)).map((r) => r.x).join('\n');
  return out;
}

/** A member's own login, straight to the hub (what a hostile teammate can do). */
async function asMember<T>(name: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: hub.member(name) });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

let n = 0;
/** Inserts a record as `name`, with whatever payload, origin and time it likes. */
async function plant(name: string, project: string, payload: Record<string, unknown>, opts: { origin?: string; createdAt?: number; kind?: string } = {}): Promise<string> {
  const gid = `forged${++n}:o:${n}:${Date.now()}`;
  await asMember(name, (c) =>
    c.query(
      `INSERT INTO claude_mem.records (gid, seq, team_id, project, kind, origin, machine, author, origin_session, payload, created_at)
       VALUES ($1, 0, 'core', $2, $3, $4, 'evil-box', $5, 'x/1', $6::jsonb, $7)`,
      [gid, project, opts.kind ?? 'observation', opts.origin ?? `forged${n}`, name, JSON.stringify(payload), opts.createdAt ?? Date.now()],
    ),
  );
  return gid;
}

before(async () => {
  pg = await createCluster();
  hub = await createHub(pg, { db: DB, teams: {}, extraMembers: ['alice', 'bob', 'carol', 'dave', 'mallory'] });
  const admin = await teammate('admin', 'server', { url: hub.admin });
  await admin.w.stop();
  await addTeams(pg, DB, { core: ['alice', 'bob', 'dave', 'mallory'], other: ['carol'] });
  await pg.sql(`UPDATE claude_mem.members SET role = 'maintainer' WHERE team_id = 'core' AND role_name = 'dave'`, [], DB);
});

after(async () => {
  for (const w of workers) await w.kill('SIGKILL').catch(() => undefined);
  pg?.destroy();
});

describe('a team hub members cannot poison, erase or stall', () => {
  let alice: Mate;
  let bob: Mate;

  it('pulled records pass the privacy pass, the taxonomy and the size caps; context stays fast', async (t) => {
    alice = await teammate('alice', 'laptop');
    bob = await teammate('bob', 'devbox');
    await share(alice, 'poison-p');
    await share(bob, 'poison-p');
    await save(alice, 'poison-p', 'The cache key includes the tenant id since the March incident', 'tenant cache key');
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAPEMSECRETPEMSECRET\n-----END RSA PRIVATE KEY-----';
    await plant('mallory', 'poison-p', {
      type: 'discovery',
      title: 'deploy notes <private>PRIV-TITLE-3310</private>',
      narrative: `Use <private>PRIV-NARR-9001 the root password</private> with AKIAIOSFODNN7EXAMPLE and ghp_abcdefghijklmnopqrstuvwxyz0123456789AB.\n${pem}`,
      facts: ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB'],
      concepts: [],
    });
    await plant('mallory', 'poison-p', { type: '<img src=x onerror=alert(1)>', title: 'BOGUS-TYPE-RECORD', narrative: 'x', facts: [] });
    const huge = 'A'.repeat(22_500_000);
    await plant('mallory', 'poison-p', { type: 'discovery', title: 'HUGE-RECORD', narrative: huge, facts: Array.from({ length: 2000 }, (_, i) => `fact ${i}`) });
    await plant('mallory', 'poison-p', { type: 'decision', title: 'FUTURE-RECORD', narrative: 'from 2999', facts: [] }, { createdAt: Date.UTC(2999, 0, 1) });
    await plant('mallory', 'poison-p', { type: 'discovery', title: 'LONG-RECORD', narrative: 'B'.repeat(100_000), facts: Array.from({ length: 500 }, (_, i) => `long fact ${i}`) });
    const sync = await bob.w.req('POST', '/api/team/sync');
    assert.equal(sync.status, 200);
    await until(async () => (await titles(bob, 'poison-p')).includes('FUTURE-RECORD'), 20_000, 'pulled on bob');

    const got = await observations(bob, 'poison-p');
    const all = JSON.stringify(got);
    assert.doesNotMatch(all, /PRIV-TITLE-3310|PRIV-NARR-9001|AKIAIOSFODNN7EXAMPLE|ghp_abcdefghijklmnopqrstuvwxyz0123456789AB|PEMSECRETPEMSECRET/, 'no private text or secret stored');
    assert.ok(got.some((o) => /deploy notes/.test(o.title)), 'the cleaned record is kept');
    assert.ok(!got.some((o) => o.title === 'BOGUS-TYPE-RECORD' || /onerror/.test(o.type)), 'a type outside the taxonomy is refused');
    assert.ok(!got.some((o) => o.title === 'HUGE-RECORD'), 'a 22.5 MB record is refused');
    const future = got.find((o) => o.title === 'FUTURE-RECORD');
    assert.ok(future && Date.parse(future.createdAt) <= Date.now(), `createdAt clamped: ${future?.createdAt}`);
    const long = got.find((o) => o.title === 'LONG-RECORD');
    assert.ok(long, 'a long record is kept, cut');
    assert.ok((long.narrative ?? '').length <= 16_000, `narrative cut: ${long.narrative?.length}`);
    assert.match(long.narrative ?? '', /characters elided/);
    assert.ok(long.facts.length <= 50);
    // The refusals are logged, with who pushed them and why.
    const logs = path.join(bob.w.dataDir, 'logs');
    const log = fs.readdirSync(logs).map((f) => fs.readFileSync(path.join(logs, f), 'utf8')).join('\n');
    assert.match(log, /pulled record refused.*mallory.*not an observation type/);
    assert.match(log, /pulled record refused.*mallory.*payload over/);
    // Bob's context injection stays fast and shows the record alice shared.
    const t0 = Date.now();
    const ctx = await bob.w.req('GET', '/api/context/inject?project=poison-p&format=json');
    const ms = Date.now() - t0;
    assert.equal(ctx.status, 200);
    assert.match(ctx.body.markdown, /tenant cache key/);
    assert.ok(ms < 1500, `context took ${ms} ms`);
    t.diagnostic(`bob's context injection after the poisoned pull: ${ms} ms`);
  });

  it('a member deletes only its own records; deleting a pulled copy is local; forgetting a shared project is local', async () => {
    await share(alice, 'erase-p');
    await share(bob, 'erase-p');
    for (let i = 0; i < 3; i++) await save(alice, 'erase-p', `alice wrote note ${i} about the billing export`, `alice note ${i}`);
    await save(bob, 'erase-p', 'bob wrote this about the billing export', 'bob note');
    await until(async () => (await titles(bob, 'erase-p')).length === 4 && (await titles(alice, 'erase-p')).length === 4, 20_000, 'converged');
    // Bob deletes his pulled copy of alice's note: only his copy goes.
    const pulled = (await observations(bob, 'erase-p')).find((o) => o.title === 'alice note 0');
    assert.equal((await bob.w.req('DELETE', `/api/observation/${pulled?.id}`)).status, 200);
    await bob.w.req('POST', '/api/team/sync');
    await alice.w.req('POST', '/api/team/sync');
    assert.ok(!(await titles(bob, 'erase-p')).includes('alice note 0'));
    assert.ok((await titles(alice, 'erase-p')).includes('alice note 0'), "alice keeps her record");
    assert.ok((await hubTitles('erase-p')).includes('alice note 0'), 'the hub keeps it');
    // Nor can bob tombstone it with his own login (row-level security).
    const gid = (await pg.sql<{ gid: string }>(`SELECT gid FROM claude_mem.records WHERE payload->>'title' = 'alice note 1'`, [], DB))[0].gid;
    await assert.rejects(
      asMember('bob', (c) => c.query(`INSERT INTO claude_mem.tombstones (gid, seq, team_id, project, kind, deleted_by) VALUES ($1, 0, 'core', 'erase-p', 'observation', 'bob')`, [gid])),
      /row-level security/,
    );
    // Bob forgets the whole project on his machine: the hub and alice keep everything.
    const del = await bob.w.req('DELETE', '/api/projects/erase-p');
    assert.equal(del.status, 200);
    await bob.w.req('POST', '/api/team/sync');
    await alice.w.req('POST', '/api/team/sync');
    assert.deepEqual(await titles(bob, 'erase-p'), []);
    assert.deepEqual(await titles(alice, 'erase-p'), ['alice note 0', 'alice note 1', 'alice note 2', 'bob note']);
    assert.deepEqual(await hubTitles('erase-p'), ['alice note 0', 'alice note 1', 'alice note 2', 'bob note']);
    assert.equal(Number((await pg.sql<{ n: string }>(`SELECT count(*) AS n FROM claude_mem.tombstones WHERE project = 'erase-p'`, [], DB))[0].n), 0);
    const st = (await bob.w.req('GET', '/api/team/status')).body;
    assert.ok(!st.shares.some((s: { project: string }) => s.project === 'erase-p'), 'no longer shared on bob');
    // Alice deletes her own record: it goes for the team.
    const own = (await observations(alice, 'erase-p')).find((o) => o.title === 'alice note 2');
    assert.equal((await alice.w.req('DELETE', `/api/observation/${own?.id}`)).status, 200);
    await until(async () => !(await hubTitles('erase-p')).includes('alice note 2'), 10_000, 'her tombstone on the hub');
  });

  it('forgetting a project for the team takes an explicit request and a maintainer; a typo share can be removed', async () => {
    const dave = await teammate('dave', 'lead-box');
    await share(dave, 'erase-p');
    await until(async () => (await titles(dave, 'erase-p')).length === 3, 20_000, 'dave pulled');
    assert.equal((await alice.w.req('POST', '/api/team/forget', { project: 'erase-p' })).status, 400, 'needs confirm');
    const refused = await alice.w.req('POST', '/api/team/forget', { project: 'erase-p', confirm: 'erase-p' });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(refused.body.error, /role "alice" may not forget project "erase-p" for team "core": only a maintainer/);
    assert.equal((await hubTitles('erase-p')).length, 3);
    const ok = await dave.w.req('POST', '/api/team/forget', { project: 'erase-p', confirm: 'erase-p' });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(ok.body, { project: 'erase-p', team: 'core', tombstoned: 3 });
    assert.deepEqual(await hubTitles('erase-p'), []);
    await alice.w.req('POST', '/api/team/sync');
    assert.deepEqual(await titles(alice, 'erase-p'), []);
    assert.deepEqual(await titles(dave, 'erase-p'), []);
    const by = await pg.sql<{ d: string; n: string }>(`SELECT deleted_by::text AS d, count(*) AS n FROM claude_mem.tombstones WHERE project = 'erase-p' GROUP BY 1 ORDER BY 1`, [], DB);
    assert.deepEqual(by.map((r) => [r.d, Number(r.n)]), [['alice', 1], ['dave', 3]], 'her own delete, then the maintainer');
    // A typo share (no record ever) leaves the hub.
    await share(alice, 'tpyo-p');
    const typo = await dave.w.req('POST', '/api/team/forget', { project: 'tpyo-p', team: 'core', confirm: 'tpyo-p' });
    assert.equal(typo.status, 200, JSON.stringify(typo.body));
    assert.equal((await pg.sql(`SELECT 1 FROM claude_mem.projects WHERE project = 'tpyo-p'`, [], DB)).length, 0);
    await dave.w.stop();
  });

  it('prompts and assistant text leave only with --prompts; raw tool output and absolute paths never', async () => {
    await share(alice, 'leak-p');
    await share(bob, 'leak-p');
    const sid = 'leak-session';
    await alice.w.req('POST', '/api/sessions/init', { contentSessionId: sid, project: 'leak-p', cwd: '/home/alice/shop', prompt: 'PROMPT-LEAK-6612 fix the export' });
    await alice.w.req('POST', '/api/sessions/observations', {
      contentSessionId: sid,
      project: 'leak-p',
      cwd: '/home/alice/shop',
      tool_name: 'Read',
      tool_input: { file_path: '/home/alice/notes/plan.txt' },
      tool_response: 'RAW-OUTPUT-5531 the first line of the file\nsecond line',
      tool_use_id: 'leak-1',
    });
    const kinds = async () => (await pg.sql<{ kind: string }>(`SELECT kind FROM claude_mem.records WHERE project = 'leak-p' ORDER BY kind`, [], DB)).map((r) => r.kind).join();
    await until(async () => (await kinds()) === 'observation', 20_000, 'the observation pushed');
    await alice.w.req('POST', '/api/sessions/summarize', { contentSessionId: sid, project: 'leak-p', last_assistant_message: 'ASSISTANT-LEAK-7720 I changed the exporter' });
    await until(async () => (await kinds()) === 'observation,summary', 20_000, 'the summary pushed');
    // Alice keeps all of it locally.
    const local = JSON.stringify(await observations(alice, 'leak-p'));
    assert.match(local, /RAW-OUTPUT-5531/);
    const dump = await hubDump();
    assert.doesNotMatch(dump, /PROMPT-LEAK-6612/, 'the prompt (summary request) stays home');
    assert.doesNotMatch(dump, /ASSISTANT-LEAK-7720/, "the assistant's last message (summary notes) stays home");
    assert.doesNotMatch(dump, /RAW-OUTPUT-5531/, 'raw tool output stays home');
    assert.doesNotMatch(dump, /\/home\/alice/, 'no absolute path');
    assert.match(dump, /plan\.txt/, 'the file is still named');
    // With --prompts, the prompt and the assistant's message travel.
    await share(alice, 'leakp-p', true);
    await alice.w.req('POST', '/api/sessions/init', { contentSessionId: 'leak-2', project: 'leakp-p', prompt: 'PROMPT-OPTED-4410 tidy the parser' });
    await save(alice, 'leakp-p', 'a note so the session has a record', 'opted note');
    await alice.w.req('POST', '/api/sessions/summarize', { contentSessionId: 'leak-2', project: 'leakp-p', last_assistant_message: 'ASSISTANT-OPTED-1180 done' });
    await until(async () => /ASSISTANT-OPTED-1180/.test(await hubDump()), 20_000, 'opted-in summary notes on the hub');
    assert.match(await hubDump(), /PROMPT-OPTED-4410/);
  });

  it('no member can stall another team; a member holding its own team lock is cut off', async (t) => {
    await share(alice, 'stall-p');
    // Carol (team other) takes the old global lock and sleeps, and cannot take core's lock.
    const holder = new Client({ connectionString: hub.member('carol') });
    holder.on('error', () => undefined);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(7311011)');
    const sleeping = holder.query('SELECT pg_sleep(20)').catch(() => undefined);
    try {
      const t0 = Date.now();
      await save(alice, 'stall-p', 'pushed while another team holds a lock', 'not stalled');
      await until(async () => (await hubTitles('stall-p')).includes('not stalled'), 5000, 'the push not stalled by team other');
      t.diagnostic(`saved to on the hub while team other holds the old global lock: ${Date.now() - t0} ms`);
      await assert.rejects(asMember('carol', (c) => c.query(`SELECT claude_mem.lock_team('core')`)), /not a member of team "core"/);
    } finally {
      await pg.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'carol'`);
      await sleeping;
      await holder.end().catch(() => undefined);
    }
    // Mallory (core) holds core's lock in an open transaction and goes idle: cut off within seconds.
    const idle = new Client({ connectionString: hub.member('mallory') });
    let ended: string | undefined;
    idle.on('error', (e) => (ended = e.message));
    await idle.connect();
    await idle.query('BEGIN');
    await idle.query(
      `INSERT INTO claude_mem.records (gid, seq, team_id, project, kind, origin, machine, author, origin_session, payload, created_at)
       VALUES ('idle:o:1:1', 0, 'core', 'stall-p', 'observation', 'idle', 'evil-box', 'mallory', 'x/1', '{"type":"discovery","title":"never committed"}', 1)`,
    );
    const t1 = Date.now();
    await save(alice, 'stall-p', 'pushed while a teammate sits on the lock', 'waited briefly');
    await until(async () => (await hubTitles('stall-p')).includes('waited briefly'), 25_000, 'the push goes through once the idle holder is cut off');
    t.diagnostic(`saved to on the hub while a teammate idles holding the team lock: ${Date.now() - t1} ms`);
    assert.ok(ended, 'the idle holder lost its connection');
    assert.match(pg.log(), /terminating connection due to idle-in-transaction timeout/);
    assert.ok(!(await hubTitles('stall-p')).includes('never committed'));
    await idle.end().catch(() => undefined);
  });

  it('a refused login is an error with a sentence, retried slowly', async () => {
    const before = (pg.log().match(/password authentication failed for user "bob"/g) ?? []).length;
    const wrong = hub.member('bob').replace('pw-bob-Secret', 'wrong-password');
    const m = await teammate('bob', 'typo-box', { url: wrong, wait: false });
    const st = await until(async () => {
      const s = (await m.w.req('GET', '/api/team/status')).body;
      return s.state === 'error' ? s : undefined;
    }, 15_000, 'error state');
    assert.match(st.lastError, /refused the login of role "bob" \(wrong password\).*team connect.*trying again in 5 min/);
    assert.doesNotMatch(JSON.stringify(st), /wrong-password/);
    await new Promise((r) => setTimeout(r, 6000));
    const after = (pg.log().match(/password authentication failed for user "bob"/g) ?? []).length;
    assert.equal(after - before, 1, 'one login in 6 s, not a retry every few seconds');
    assert.equal((await m.w.req('GET', '/api/team/status')).body.state, 'error');
    await m.w.stop();
  });

  it('a later `team connect` wins over a string set through the API', async () => {
    const m = await teammate('alice', 'connect-box', { url: '', wait: false });
    const set = await m.w.req('POST', '/api/team/connection', { url: hub.member('bob') });
    assert.equal(set.status, 200);
    await until(async () => (await m.w.req('GET', '/api/team/status')).body.author === 'bob', 15_000, 'connected as bob');
    const c = spawnSync(process.execPath, [CLI_JS, 'team', 'connect'], {
      input: hub.member('alice'),
      encoding: 'utf8',
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: m.w.dataDir, CLAUDE_MEM_WORKER_PORT: String(m.w.port), CLAUDE_MEM_TEAM_URL: '' },
    });
    assert.equal(c.status, 0, c.stderr);
    const st = await until(async () => {
      const s = (await m.w.req('GET', '/api/team/status')).body;
      return s.state === 'connected' && s.author === 'alice' ? s : undefined;
    }, 15_000, 'connected as alice after team connect');
    assert.equal(st.source, 'file');
    await m.w.stop();
  });

  it('confirm, retire and replace reach teammates, with who did it', async () => {
    await share(alice, 'fix-p');
    await share(bob, 'fix-p');
    const oldId = await save(alice, 'fix-p', 'MAX_RETRIES is 5 in src/retry.ts', 'retries are 5');
    const newId = await save(alice, 'fix-p', 'MAX_RETRIES is 9 in src/retry.ts since the outage', 'retries are 9');
    const other = await save(alice, 'fix-p', 'The exporter writes UTF-8 with a BOM', 'exporter writes a BOM');
    await until(async () => (await titles(bob, 'fix-p')).length === 3, 20_000, 'bob pulled');
    const bobId = async (t: string) => (await observations(bob, 'fix-p')).find((o) => o.title === t)?.id as number;
    const retired = await alice.w.req('POST', '/api/freshness/retire', { id: oldId, replacedBy: newId, note: 'bumped to 9 after the outage' });
    assert.equal(retired.status, 200, JSON.stringify(retired.body));
    assert.equal((await alice.w.req('POST', '/api/freshness/confirm', { id: other })).status, 200);
    const bOld = await bobId('retries are 5');
    const bNew = await bobId('retries are 9');
    const bOther = await bobId('exporter writes a BOM');
    const fresh = async (id: number) => (await bob.w.req('GET', `/api/freshness/observation/${id}`)).body;
    const seen = await until(async () => {
      const f = await fresh(bOld);
      return f.status === 'retired' ? f : undefined;
    }, 15_000, "alice's retire on bob's copy");
    assert.equal(seen.decidedBy, 'alice');
    assert.equal(seen.replacedBy, bNew, "the replacement is bob's copy of alice's new memory");
    const conf = await until(async () => {
      const f = await fresh(bOther);
      return f.status === 'confirmed' ? f : undefined;
    }, 15_000, "alice's confirm on bob's copy");
    assert.equal(conf.decidedBy, 'alice');
    // Shown where corrections are shown: search rows, full records, MCP get_memories, `claude-mem search`.
    const rowsFound = (await bob.w.req('GET', `/api/search?query=retries&project=fix-p&mode=keyword&limit=20`)).body.items as SearchRow[];
    assert.equal(rowsFound.find((r) => r.id === bOld)?.decidedBy, 'alice', JSON.stringify(rowsFound));
    const batch = (await bob.w.req('POST', '/api/observations/batch', { ids: [bOld, bOther] })).body.items as Observation[];
    assert.deepEqual(batch.map((o) => [o.id, o.freshness?.status, o.freshness?.decidedBy]), [[bOld, 'retired', 'alice'], [bOther, 'confirmed', 'alice']]);
    const got = await getObservationsTool({ target: { host: '127.0.0.1', port: bob.w.port, dataDir: bob.w.dataDir }, cwd: bob.w.dataDir }, { ids: [bOld, bOther] });
    assert.match(got.text, /\[RETIRED by alice: no longer true\]/, got.text);
    assert.match(got.text, /\[confirmed by alice\]/, got.text);
    const cli = spawnSync(process.execPath, [CLI_JS, 'search', 'retries', '--project', 'fix-p', '--mode', 'keyword'], {
      encoding: 'utf8',
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: bob.w.dataDir, CLAUDE_MEM_WORKER_PORT: String(bob.w.port), CLAUDE_MEM_NO_AUTOSTART: '1' },
    });
    assert.match(cli.stdout, new RegExp(`#${bOld} .*\\[RETIRED by alice: no longer true\\]`), cli.stdout + cli.stderr);
    // On the hub, once each, by alice; bob's worker did not push them back.
    await bob.w.req('POST', '/api/team/sync');
    const rows = await pg.sql<{ status: string; by: string }>(`SELECT status, decided_by::text AS by FROM claude_mem.corrections WHERE project = 'fix-p' ORDER BY seq`, [], DB);
    assert.deepEqual(rows.map((r) => [r.status, r.by]), [['retired', 'alice'], ['confirmed', 'alice']]);
    // Alice's own view names nobody: the decision is hers.
    assert.equal((await alice.w.req('GET', `/api/freshness/observation/${oldId}`)).body.decidedBy, undefined);
    // Bob's own retire of a teammate's memory travels too, by bob.
    assert.equal((await bob.w.req('POST', '/api/freshness/retire', { id: bNew })).status, 200);
    const aNew = await until(async () => {
      const f = (await alice.w.req('GET', `/api/freshness/observation/${newId}`)).body;
      return f.status === 'retired' ? f : undefined;
    }, 15_000, "bob's retire on alice's machine");
    assert.equal(aNew.decidedBy, 'bob');
  });

  it("the file-context hook names the teammate who retired or confirmed a memory of the file", async () => {
    // The same project in each one's clone (its folder's name); a memory of src/retry.ts each.
    const clone = (who: string) => {
      const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), `trust-${who}-`)), 'hookfix');
      fs.mkdirSync(path.join(root, 'src'), { recursive: true });
      const git = (...a: string[]) => spawnSync('git', a, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: who, GIT_AUTHOR_EMAIL: `${who}@x`, GIT_COMMITTER_NAME: who, GIT_COMMITTER_EMAIL: `${who}@x` } });
      git('init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(root, 'src/retry.ts'), 'export const MAX_RETRIES = 5;\n' + '// retry policy notes\n'.repeat(100));
      git('add', '-A');
      git('commit', '-qm', 'retry');
      return root;
    };
    const aRoot = clone('alice');
    const bRoot = clone('bob');
    await share(alice, 'hookfix');
    await share(bob, 'hookfix');
    for (const [i, line] of ['MAX_RETRIES = 5', 'export const MAX_RETRIES'].entries()) {
      const r = await alice.w.req('POST', '/api/sessions/observations', {
        contentSessionId: `alice-hookfix-${i}`,
        platform: 'claude-code',
        cwd: aRoot,
        tool_name: 'Edit',
        tool_use_id: `toolu_hookfix_${i}`,
        tool_input: { file_path: path.join(aRoot, 'src/retry.ts'), old_string: line, new_string: `${line} // ${i}` },
        tool_response: 'ok',
      });
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    const aIds = await until(async () => {
      const items = (await alice.w.req('GET', '/api/observations?project=hookfix&limit=10')).body.items as { id: number }[];
      return items.length === 2 ? items.map((o) => o.id) : undefined;
    }, 20_000, "alice's two memories");
    await until(async () => (await titles(bob, 'hookfix')).length === 2, 20_000, 'bob pulled');
    assert.equal((await alice.w.req('POST', '/api/freshness/retire', { id: aIds[0] })).status, 200);
    assert.equal((await alice.w.req('POST', '/api/freshness/confirm', { id: aIds[1] })).status, 200);
    await until(async () => {
      const rows = (await bob.w.req('GET', `/api/search/by-file?path=${encodeURIComponent(path.join(bRoot, 'src/retry.ts'))}&project=hookfix`)).body.items as SearchRow[];
      return rows.filter((r) => r.decidedBy === 'alice').length === 2 ? rows : undefined;
    }, 15_000, "alice's retire and confirm on bob's copies");
    const hook = spawnSync(process.execPath, [CLI_JS, 'hook', 'claude-code', 'file-context'], {
      encoding: 'utf8',
      cwd: bRoot,
      input: JSON.stringify({ session_id: 'bob-reads', hook_event_name: 'PreToolUse', cwd: bRoot, tool_name: 'Read', tool_input: { file_path: path.join(bRoot, 'src/retry.ts') }, tool_use_id: 'toolu_bob_read' }),
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: bob.w.dataDir, CLAUDE_MEM_WORKER_PORT: String(bob.w.port), CLAUDE_MEM_NO_AUTOSTART: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
    assert.equal(hook.status, 0, hook.stderr);
    const text = (JSON.parse(hook.stdout) as { hookSpecificOutput?: { additionalContext?: string } }).hookSpecificOutput?.additionalContext ?? '';
    assert.equal(text.match(/\[RETIRED by alice: no longer true\]/g)?.length, 1, text);
    assert.equal(text.match(/\[confirmed by alice\]/g)?.length, 1, text);
  });

  it('a member lists only its own teams', async () => {
    const teams = await asMember('carol', (c) => c.query<{ id: string }>(`SELECT id FROM claude_mem.teams ORDER BY id`));
    assert.deepEqual(teams.rows.map((r) => r.id), ['other']);
    const mine = await asMember('alice', (c) => c.query<{ id: string }>(`SELECT id FROM claude_mem.teams ORDER BY id`));
    assert.deepEqual(mine.rows.map((r) => r.id), ['core']);
  });

  it('a forged origin hides nothing from a teammate', async () => {
    // Mallory writes a record carrying alice's machine id as its origin.
    await share(alice, 'origin-p');
    const machineId = (await alice.w.req('GET', '/api/team/status')).body.machineId as string;
    assert.ok(machineId);
    await plant('mallory', 'origin-p', { type: 'discovery', title: 'FORGED-ORIGIN-RECORD', narrative: 'alice must see this', facts: [] }, { origin: machineId });
    await alice.w.req('POST', '/api/team/sync');
    await until(async () => (await titles(alice, 'origin-p')).includes('FORGED-ORIGIN-RECORD'), 10_000, 'alice sees the forged-origin record');
    const rec = (await observations(alice, 'origin-p')).find((o) => o.title === 'FORGED-ORIGIN-RECORD');
    assert.equal(rec?.team?.author, 'mallory');
  });

  it('nothing private or secret reaches the hub, whatever the text (seeded property, shared with --prompts)', async () => {
    const gen = privateText(4040);
    const dave = await teammate('dave', 'privbox');
    await share(dave, 'private-p', true);
    const cwd = '/home/dave/private-p';
    const rounds = 3;
    for (let n = 0; n < rounds; n++) {
      const sid = `priv-${n}-${gen.idMessy()}`;
      const post = async (route: string, body: Record<string, unknown>) => {
        const r = await dave.w.req('POST', route, { contentSessionId: sid, project: 'private-p', cwd, ...body });
        assert.ok(r.status < 300, `${route}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      };
      await post('/api/sessions/init', { prompt: gen.messy() });
      await post('/api/sessions/observations', { tool_name: 'Bash', tool_use_id: `b-${n}`, tool_input: { command: `echo ${gen.messy()}` }, tool_response: { stdout: gen.messy() } });
      await post('/api/sessions/observations', { tool_name: 'Edit', tool_use_id: `e-${n}`, tool_input: { file_path: `${cwd}/src/a${n}.ts`, old_string: gen.messy(), new_string: gen.messy() }, tool_response: 'ok' });
      await save(dave, 'private-p', `keep ${gen.messy()}`, gen.idMessy());
      await post('/api/sessions/summarize', { last_user_message: gen.messy(), last_assistant_message: gen.messy() });
    }
    // Everything dave made is on the hub: her queue is drained and her outbox empty.
    await until(async () => {
      const q = (await dave.w.req('GET', '/api/queue')).body as { pending: number; inFlight: number };
      return q.pending === 0 && q.inFlight === 0;
    }, 60_000, "dave's queue drained");
    await dave.w.req('POST', '/api/team/sync');
    await until(async () => (await dave.w.req('GET', '/api/team/status')).body.waiting === 0, 30_000, "dave's outbox pushed");
    const kinds = await pg.sql<{ kind: string; n: string }>(`SELECT kind, count(*)::text AS n FROM claude_mem.records WHERE project = 'private-p' GROUP BY kind ORDER BY kind`, [], DB);
    assert.deepEqual(kinds.map((k) => k.kind), ['observation', 'prompt', 'summary'], 'observations, prompts (opted in) and summaries reached the hub');
    // Every table of the hub's schema, as text.
    const tables = await pg.sql<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'claude_mem' ORDER BY 1`, [], DB);
    let dump = '';
    for (const { t } of tables) dump += (await pg.sql<{ x: string }>(`SELECT r::text AS x FROM claude_mem."${t}" r`, [], DB)).map((r) => r.x).join('\n').toLowerCase();
    const leaks = gen.forbidden.filter((f) => dump.includes(f.toLowerCase()));
    assert.deepEqual(leaks, [], `${leaks.length} of ${gen.forbidden.length} private or secret strings on the hub`);
  });
});
