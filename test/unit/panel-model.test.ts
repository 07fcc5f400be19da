// The panel's model: replies normalised at the edge, the live feed driven by the worker's real
// event shapes (as lifecycle.ts, processor.ts and the routes emit them), filters, economics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Observation, StreamEvent } from '../../extension/panel/protocol';
import { asObservation, asObservations, asSearchResult, asSession, asTimeline, economics, FeedState, filtersActive, matchesObservation, readTokens } from '../../media/panel/model';

const DAY = 86_400_000;
const T0 = new Date(2026, 0, 15, 12, 0, 0).getTime();

function obs(id: number, extra: Partial<Observation> = {}): Observation {
  return {
    id,
    sessionId: 1,
    project: 'alpha',
    type: 'change',
    title: `Observation ${id}`,
    subtitle: null,
    facts: [],
    narrative: null,
    concepts: [],
    filesRead: [],
    filesModified: [],
    toolName: 'Edit',
    promptNumber: 1,
    source: 'local',
    inputTokens: 0,
    outputTokens: 0,
    discoveryTokens: 0,
    createdAt: new Date(T0 + id * 1000).toISOString(),
    createdAtEpoch: T0 + id * 1000,
    ...extra,
  };
}

const ev = (event: StreamEvent['event'], data: Record<string, unknown>): StreamEvent => ({ event, data });

describe('asObservation', () => {
  it('keeps a well-formed observation as it is', () => {
    const o = obs(3, { facts: ['f'], concepts: ['gotcha'], filesRead: ['a.ts'] });
    assert.deepEqual(asObservation(JSON.parse(JSON.stringify(o))), o);
  });
  it('coerces a sloppy one and refuses non-observations', () => {
    const o = asObservation({ id: 5, title: 7, facts: ['a', 3, null], concepts: 'x', createdAt: '2026-01-15T12:00:00.000Z', discoveryTokens: '12' });
    assert.equal(o?.title, '7');
    assert.deepEqual(o?.facts, ['a']);
    assert.deepEqual(o?.concepts, []);
    assert.equal(o?.createdAtEpoch, Date.parse('2026-01-15T12:00:00.000Z'));
    assert.equal(o?.discoveryTokens, 12);
    for (const bad of [null, 'x', [], { title: 'no id' }, { id: '5' }, { id: 1.5 }]) assert.equal(asObservation(bad), undefined);
  });
  it('reads list and batch replies', () => {
    assert.equal(asObservations({ items: [obs(1), { junk: true }, obs(2)], limit: 50 }).length, 2);
    assert.equal(asObservations([obs(1)]).length, 1);
    assert.equal(asObservations({ observations: [obs(1), obs(2), obs(3)] }).length, 3);
    assert.deepEqual(asObservations({ error: 'x' }), []);
  });
});

describe('search and timeline replies', () => {
  it('reads compact search rows under their likely names', () => {
    const r = asSearchResult({
      items: [
        { id: 12, type: 'bugfix', title: 'Fixed the token refresh', createdAtEpoch: T0, project: 'alpha', score: 0.87, readTokens: 42 },
        { id: 'S4', kind: 'summary', request: 'make the build faster', time: '2026-01-15T12:00:00Z', project: 'alpha' },
        { id: 9, docType: 'prompt', text: 'why does login fail', created_at: T0 },
        { nope: true },
      ],
      total: 20,
      notice: 'Semantic search unavailable; keyword results.',
    });
    assert.equal(r.rows.length, 3);
    assert.deepEqual(r.rows[0], { kind: 'observation', id: 12, key: 'observation:12', type: 'bugfix', title: 'Fixed the token refresh', project: 'alpha', at: T0, score: 0.87, readTokens: 42 });
    assert.equal(r.rows[1].kind, 'summary');
    assert.equal(r.rows[1].id, 4);
    assert.equal(r.rows[1].title, 'make the build faster');
    assert.equal(r.rows[2].kind, 'prompt');
    assert.equal(r.total, 20);
    assert.match(r.notice ?? '', /keyword/);
    assert.equal(asSearchResult({ results: [{ id: 1, title: 'a' }] }).rows.length, 1);
    assert.equal(asSearchResult([{ id: 1, title: 'a' }]).rows.length, 1);
  });

  it('reads a timeline flat or split around the anchor, oldest first, anchor marked', () => {
    const flat = asTimeline({ items: [{ id: 3, title: 'c', createdAtEpoch: T0 + 3 }, { id: 1, title: 'a', createdAtEpoch: T0 + 1 }, { id: 2, title: 'b', createdAtEpoch: T0 + 2 }] }, '2');
    assert.deepEqual(
      flat.rows.map((r) => [r.id, r.anchor === true]),
      [
        [1, false],
        [2, true],
        [3, false],
      ],
    );
    const split = asTimeline({ before: [{ id: 1, title: 'a', createdAtEpoch: T0 + 1 }], anchor: { id: 2, title: 'b', createdAtEpoch: T0 + 2 }, after: [{ id: 'S7', kind: 'summary', request: 'r', createdAtEpoch: T0 + 3 }] }, '2');
    assert.deepEqual(
      split.rows.map((r) => r.key),
      ['observation:1', 'observation:2', 'summary:7'],
    );
    assert.equal(split.rows[1].anchor, true);
  });
});

describe('FeedState', () => {
  function fresh(project?: string): FeedState {
    const f = new FeedState();
    f.reset(
      project,
      [obs(1, { sessionId: 1 }), obs(2, { sessionId: 1, type: 'bugfix', concepts: ['gotcha'] }), obs(3, { sessionId: 2, project: 'beta', title: 'Read docs/guide.md', filesRead: ['docs/guide.md'] })],
      [asSession({ id: 1, platform: 'claude-code', contentSessionId: 'a', project: 'alpha', cwd: null, status: 'active', promptCounter: 1, startedAt: new Date(T0).toISOString(), completedAt: null })!, asSession({ id: 2, platform: 'vscode', project: 'beta', status: 'completed', startedAt: new Date(T0).toISOString() })!],
    );
    return f;
  }

  it('groups by session, latest activity first, entries newest first', () => {
    const g = fresh().groups();
    assert.deepEqual(
      g.map((x) => [x.sessionId, x.entries.map((e) => (e.kind === 'observation' ? e.obs.id : e.kind))]),
      [
        [2, [3]],
        [1, [2, 1]],
      ],
    );
    assert.equal(g[1].session?.platform, 'claude-code');
  });

  it('applies the lifecycle events as the worker emits them', () => {
    const f = fresh();
    const now = T0 + 10 * 1000;
    assert.deepEqual(f.apply(ev('session_started', { sessionDbId: 5, contentSessionId: 'c', project: 'alpha', platform: 'vscode' }), now), { changed: true, projects: true });
    assert.deepEqual(f.apply(ev('new_prompt', { id: 8, sessionDbId: 5, project: 'alpha', promptNumber: 1, text: 'fix the flaky test' }), now), { changed: true });
    assert.deepEqual(f.apply(ev('observation_queued', { jobId: 3, sessionDbId: 5, project: 'alpha', toolName: 'Edit' }), now), { changed: false, status: true });
    assert.deepEqual(
      f.apply(ev('new_observation', { id: 9, sessionDbId: 5, project: 'alpha', type: 'change', title: 'Edited a.ts', toolName: 'Edit', createdAt: new Date(now).toISOString() }), now),
      { changed: false, fetch: [9], status: true },
    );
    assert.ok(f.addObservation(obs(9, { sessionId: 5, createdAtEpoch: now + 1 })));
    assert.deepEqual(f.apply(ev('new_summary', { id: 4, sessionDbId: 5, project: 'alpha', request: 'fix the flaky test' }), now + 2), { changed: true, status: true });
    assert.deepEqual(f.apply(ev('session_completed', { sessionDbId: 5, project: 'alpha', reason: 'exit' }), now), { changed: true });
    const g = f.groups()[0];
    assert.equal(g.sessionId, 5);
    assert.equal(g.session?.status, 'completed');
    assert.deepEqual(
      g.entries.map((e) => e.kind),
      ['summary', 'observation', 'prompt'],
    );
    // A manual memory (no sessionDbId in the event), a known one, and an import (no id).
    assert.deepEqual(f.apply(ev('new_observation', { id: 10, project: 'alpha', type: 'discovery', title: 'x', source: 'manual' })).fetch, [10]);
    assert.deepEqual(f.apply(ev('new_observation', { id: 9, project: 'alpha' })).fetch, undefined);
    assert.equal(f.apply(ev('new_observation', { imported: 12 })).reload, true);
    assert.equal(f.apply(ev('queue_changed', { jobId: 3, state: 'dead' })).status, true);
  });

  it('removes what the worker says was deleted', () => {
    const f = fresh();
    assert.equal(f.apply(ev('observation_deleted', { id: 2, project: 'alpha' })).changed, true);
    assert.equal(f.observations.has(2), false);
    assert.equal(f.apply(ev('observation_deleted', { id: 2, project: 'alpha' })).changed, false);
    // DELETE /api/session/:id emits project_deleted with the session id.
    assert.equal(f.apply(ev('project_deleted', { project: 'alpha', sessionDbId: 1 })).changed, true);
    assert.deepEqual([...f.observations.keys()], [3]);
    assert.ok(f.sessions.has(2) && !f.sessions.has(1));
    // DELETE /api/projects/:name emits project_deleted with the session count.
    const eff = f.apply(ev('project_deleted', { project: 'beta', sessions: 1 }));
    assert.equal(eff.changed, true);
    assert.equal(eff.projects, true);
    assert.equal(f.observations.size + f.sessions.size, 0);
  });

  it('keeps to its project', () => {
    const f = fresh('alpha');
    assert.deepEqual(f.apply(ev('new_observation', { id: 20, sessionDbId: 2, project: 'beta', title: 'x' })), { changed: false, status: true });
    assert.equal(f.apply(ev('new_prompt', { id: 1, sessionDbId: 2, project: 'beta', promptNumber: 1, text: 'x' })).changed, false);
    assert.equal(f.addObservation(obs(21, { project: 'beta' })), false);
    assert.equal(f.addObservation(obs(22, { project: 'alpha' })), true);
  });

  it('filters by type, concept, words and dates', () => {
    const f = fresh();
    f.apply(ev('new_prompt', { id: 8, sessionDbId: 1, project: 'alpha', promptNumber: 2, text: 'where is the guide' }), T0);
    const ids = (filters: Parameters<FeedState['groups']>[0]) => f.groups(filters).flatMap((g) => g.entries.map((e) => (e.kind === 'observation' ? e.obs.id : e.kind)));
    assert.deepEqual(ids({ type: 'bugfix' }), [2]);
    assert.deepEqual(ids({ concept: 'GOTCHA' }), [2]);
    assert.deepEqual(ids({ text: 'guide' }).sort(), [3, 'prompt'].sort());
    assert.deepEqual(ids({ text: 'guide docs' }), [3]);
    const day = (t: number) => {
      const d = new Date(t);
      return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    };
    assert.deepEqual(ids({ dateStart: day(T0 + DAY) }), []);
    assert.equal(ids({ dateStart: day(T0), dateEnd: day(T0) }).length, 4);
    assert.equal(filtersActive({}), false);
    assert.equal(filtersActive({ text: '  ' }), false);
    assert.equal(filtersActive({ type: 'bugfix' }), true);
    assert.equal(matchesObservation(obs(1, { filesModified: ['src/Auth.ts'] }), { text: 'auth' }), true);
    assert.deepEqual(f.concepts(), ['gotcha']);
  });
});

describe('token economics', () => {
  it('compares reading memory with the work it records', () => {
    const list = [obs(1, { narrative: 'x'.repeat(400), discoveryTokens: 2000, inputTokens: 300, outputTokens: 80 }), obs(2, { discoveryTokens: 1000 })];
    const e = economics(list);
    assert.equal(e.observations, 2);
    assert.equal(e.readTokens, readTokens(list[0]) + readTokens(list[1]));
    assert.equal(e.workTokens, 3000);
    assert.equal(e.modelTokens, 380);
    assert.equal(e.savedPercent, Math.round((1 - e.readTokens / 3000) * 100));
    assert.equal(economics([obs(3)]).savedPercent, undefined, 'no work recorded: no claim');
    assert.equal(economics([]).observations, 0);
  });
});
