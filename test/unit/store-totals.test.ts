// /api/stats reads running totals the schema's triggers keep (schema.ts TOTALS_TABLE) instead of
// summing every row: after inserts, ignored duplicates, token updates and deletes, on a new store and
// on one migrated from before the totals with rows in it, after a crash (the journal replayed over
// the last checkpoint) and after a team hub pull (its own insert and delete path), they equal the
// rows' own count and sums.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { nullLogger } from '../../common/node/log';
import { insertObservation } from '../../worker/store/repos/observations';
import { insertPrompt } from '../../worker/store/repos/prompts';
import { insertSummary } from '../../worker/store/repos/summaries';
import { migrate, SCHEMA_VERSION } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { addShare, type Applied, applyChanges } from '../../worker/team/local';
import type { HubChange } from '../../worker/team/types';
import { tempDir } from '../helpers/worker';

const open = (dir: string) => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });

async function addSession(s: Store, sid: number, n: number): Promise<void> {
  await s.write((tx) => {
    tx.run(`INSERT INTO sessions (id, platform, content_session_id, project, status, started_at, updated_at) VALUES (?, 'claude-code', ?, 'p', 'completed', 1, 1)`, [sid, `s${sid}`]);
    for (let i = 0; i < n; i++) {
      const o = { sessionId: sid, project: 'p', type: 'change', title: `t${sid}-${i}`, toolName: 'Edit', promptNumber: 1, contentHash: `h${sid}-${i}`, source: 'local', createdAt: 1, inputTokens: 10 + i, outputTokens: 2 * i, discoveryTokens: i % 3 };
      insertObservation(tx, o as Parameters<typeof insertObservation>[1]);
      insertObservation(tx, o as Parameters<typeof insertObservation>[1]); // ignored: the same content hash
      insertPrompt(tx, { sessionId: sid, project: 'p', promptNumber: i + 1, text: `prompt ${i}`, createdAt: 1 });
    }
    insertSummary(tx, { sessionId: sid, project: 'p', request: 'r', promptNumber: 1, contentHash: `sum${sid}`, createdAt: 1, inputTokens: 100 * sid, outputTokens: 7 });
  });
}

function assertTotals(s: Store, what: string): void {
  const totals = Object.fromEntries(s.all<{ name: string; n: number; input: number; output: number; discovery: number }>('SELECT * FROM totals').map((r) => [r.name, { ...r }]));
  const obs = s.get<{ n: number; i: number; o: number; d: number }>('SELECT count(*) AS n, coalesce(sum(input_tokens), 0) AS i, coalesce(sum(output_tokens), 0) AS o, coalesce(sum(discovery_tokens), 0) AS d FROM observations');
  const sums = s.get<{ n: number; i: number; o: number }>('SELECT count(*) AS n, coalesce(sum(input_tokens), 0) AS i, coalesce(sum(output_tokens), 0) AS o FROM session_summaries');
  const count = (t: string) => s.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`)?.n;
  assert.deepEqual(totals, {
    observations: { name: 'observations', n: obs?.n, input: obs?.i, output: obs?.o, discovery: obs?.d },
    session_summaries: { name: 'session_summaries', n: sums?.n, input: sums?.i, output: sums?.o, discovery: 0 },
    sessions: { name: 'sessions', n: count('sessions'), input: 0, output: 0, discovery: 0 },
    user_prompts: { name: 'user_prompts', n: count('user_prompts'), input: 0, output: 0, discovery: 0 },
  }, what);
}

async function churn(s: Store): Promise<void> {
  await addSession(s, 3, 6);
  assertTotals(s, 'after inserts');
  await s.write((tx) => {
    tx.run('UPDATE observations SET input_tokens = input_tokens + 1000, discovery_tokens = 5 WHERE id % 2 = 0');
    tx.run('UPDATE session_summaries SET output_tokens = 99');
  });
  assertTotals(s, 'after token updates');
  await s.write((tx) => {
    tx.run('DELETE FROM observations WHERE id % 3 = 0');
    tx.run('DELETE FROM user_prompts WHERE session_id = 1');
    tx.run('DELETE FROM session_summaries WHERE session_id = 1');
    tx.run('DELETE FROM observations WHERE session_id = 1');
    tx.run('DELETE FROM sessions WHERE id = 1');
  });
  assertTotals(s, 'after deletes');
}

it('a new store keeps the totals through inserts, token updates and deletes, and across a restart', async () => {
  const dir = tempDir('totals-');
  try {
    let s = await open(dir);
    await migrate(s);
    assertTotals(s, 'empty');
    await addSession(s, 1, 4);
    await addSession(s, 2, 3);
    await churn(s);
    await s.close(false);
    s = await open(dir); // the journal replayed: the triggers ran with each write
    assertTotals(s, 'after a restart');
    await s.close(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a store from before the totals gets them filled from its rows, then kept', async () => {
  const dir = tempDir('totals-old-');
  try {
    const s = await open(dir);
    await migrate(s, SCHEMA_VERSION - 1);
    assert.equal(s.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'totals'"), undefined);
    await addSession(s, 1, 4);
    await addSession(s, 2, 3);
    await migrate(s);
    assertTotals(s, 'filled by the migration');
    await churn(s);
    await s.close(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('a crash loses none of it: the journal replayed over the last checkpoint gives the same totals', async () => {
  const dir = tempDir('totals-crash-');
  try {
    const s = await open(dir);
    await migrate(s);
    await addSession(s, 1, 4);
    await addSession(s, 2, 3);
    await s.snapshot(true);
    await churn(s);
    const before = s.all('SELECT * FROM totals ORDER BY name');
    // No close: as if killed. The next open replays what followed the checkpoint.
    const after = await open(dir);
    assert.ok(after.recovery.snapshotGen !== null && after.recovery.recordsReplayed >= 3, `the checkpoint and the writes after it replayed: ${JSON.stringify(after.recovery)}`);
    assert.deepEqual(after.all('SELECT * FROM totals ORDER BY name'), before, 'the totals from before the crash');
    assertTotals(after, 'after the replay');
    await after.close(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('records a team hub pull adds and removes (worker/team/local.ts) are counted too', async () => {
  const dir = tempDir('totals-hub-');
  try {
    const s = await open(dir);
    await migrate(s);
    await addSession(s, 1, 2);
    const change = (gid: string, seq: number, kind: string, payload: Record<string, unknown> | null, op: HubChange['op'] = 'put'): HubChange => ({
      op, gid, seq: String(seq), kind, origin: 'o', machine: 'm', author: 'teammate', origin_session: 'remote-session', payload, created_at: '1700000000000',
    });
    const out: Applied = { added: [], removed: [], refused: [], cut: 0 };
    await s.write((tx) => {
      addShare(tx, 'p', 'team', 1);
      applyChanges(tx, 'p', [
        change('g1', 1, 'observation', { type: 'discovery', title: 'pulled one' }),
        change('g2', 2, 'observation', { type: 'change', title: 'pulled two' }),
        change('g3', 3, 'prompt', { text: 'a pulled prompt', promptNumber: 1 }),
        change('g4', 4, 'summary', { request: 'a pulled summary' }),
      ], out);
    });
    assert.deepEqual(out.added.map((a) => a.kind), ['observation', 'observation', 'prompt', 'summary'], JSON.stringify(out.refused));
    assertTotals(s, 'after a pull that added records');
    await s.write((tx) => applyChanges(tx, 'p', [change('g1', 5, 'observation', null, 'delete'), change('g3', 6, 'prompt', null, 'delete'), change('g4', 7, 'summary', null, 'delete')], out));
    assert.equal(out.removed.length, 3);
    assertTotals(s, 'after a pull that removed records');
    await s.close(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
