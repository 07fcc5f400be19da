// The panel's model: replies normalised at the edge, the live feed driven by the worker's real
// event shapes (as lifecycle.ts, processor.ts and the routes emit them), filters, economics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Observation, StreamEvent } from '../../common/contract';
import { ContractError, parseObservation, parseObservationList, parseSearchResponse, parseTimelineResponse } from '../../common/contract';
import { economics, FeedState, filtersActive, matchesObservation, readTokens, searchRows, sessionLite, timelineRows } from '../../media/panel/model';

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

describe('observation replies (read with the contract)', () => {
  it('keeps a well-formed observation as it is', () => {
    const o = obs(3, { facts: ['f'], concepts: ['gotcha'], filesRead: ['a.ts'] });
    assert.deepEqual(parseObservation(JSON.parse(JSON.stringify(o))), o);
  });
  it('refuses a sloppy one loudly instead of guessing', () => {
    const sloppy = { ...obs(5), title: 7, facts: ['a', 3, null], concepts: 'x', discoveryTokens: '12' };
    assert.throws(() => parseObservation(sloppy), (e: unknown) => e instanceof ContractError && /title must be a string/.test(e.message));
    for (const bad of [null, 'x', [], { title: 'no id' }, { ...obs(5), id: '5' }, { ...obs(5), id: 1.5 }]) assert.throws(() => parseObservation(bad), ContractError);
  });
  it('reads the list reply and nothing else', () => {
    assert.equal(parseObservationList({ items: [obs(1), obs(2)], limit: 50, offset: 0 }).items.length, 2);
    assert.throws(() => parseObservationList({ items: [obs(1), { junk: true }], limit: 50, offset: 0 }), /items\[1\]/);
    for (const bad of [[obs(1)], { observations: [obs(1)] }, { error: 'x' }]) assert.throws(() => parseObservationList(bad), ContractError);
  });
});

const row = (id: number, extra: Record<string, unknown> = {}) => ({ kind: 'observation', id, ref: String(id), type: 'change', title: `t${id}`, project: 'alpha', sessionId: 1, time: new Date(T0 + id).toISOString(), epoch: T0 + id, readTokens: 10, ...extra });

describe('search and timeline replies', () => {
  it('shows compact search rows as the route declares them', () => {
    const r = searchRows(
      parseSearchResponse({
        query: 'token',
        mode: 'hybrid',
        modeUsed: 'keyword',
        notice: 'Semantic search unavailable; keyword results.',
        items: [
          { ...row(12), type: 'bugfix', title: 'Fixed the token refresh', epoch: T0, score: 0.87, readTokens: 42 },
          { ...row(4), kind: 'summary', ref: 'S4', type: 'summary', title: 'make the build faster', score: 0.5 },
          { ...row(9), kind: 'prompt', ref: 'P9', type: 'prompt', title: 'why does login fail', score: 0.2 },
        ],
        limit: 20,
        offset: 0,
        hasMore: true,
        tookMs: 3,
      }),
    );
    assert.equal(r.rows.length, 3);
    assert.deepEqual(r.rows[0], { kind: 'observation', id: 12, key: 'observation:12', type: 'bugfix', title: 'Fixed the token refresh', project: 'alpha', at: T0, score: 0.87, readTokens: 42, sessionId: 1 });
    assert.deepEqual([r.rows[1].kind, r.rows[1].id, r.rows[1].title, r.rows[2].kind], ['summary', 4, 'make the build faster', 'prompt']);
    assert.equal(r.hasMore, true);
    assert.match(r.notice ?? '', /keyword/);
    assert.throws(() => parseSearchResponse({ results: [{ id: 1, title: 'a' }] }), ContractError);
    assert.throws(() => parseSearchResponse([{ id: 1, title: 'a' }]), ContractError);
  });

  it('shows a timeline oldest first, the anchor marked', () => {
    const t = timelineRows(
      parseTimelineResponse({
        anchor: { kind: 'observation', ref: '2', time: new Date(T0 + 2).toISOString(), epoch: T0 + 2 },
        project: null,
        items: [row(3), { ...row(2), anchor: true }, row(1), { ...row(7), kind: 'summary', ref: 'S7', type: 'summary', epoch: T0 + 4 }],
        depthBefore: 6,
        depthAfter: 6,
      }),
    );
    assert.deepEqual(
      t.rows.map((r) => [r.key, r.anchor === true]),
      [
        ['observation:1', false],
        ['observation:2', true],
        ['observation:3', false],
        ['summary:7', false],
      ],
    );
  });
});

describe('FeedState', () => {
  function fresh(project?: string): FeedState {
    const f = new FeedState();
    f.reset(
      project,
      [obs(1, { sessionId: 1 }), obs(2, { sessionId: 1, type: 'bugfix', concepts: ['gotcha'] }), obs(3, { sessionId: 2, project: 'beta', title: 'Read docs/guide.md', filesRead: ['docs/guide.md'] })],
      [sessionLite({ id: 1, platform: 'claude-code', contentSessionId: 'a', project: 'alpha', cwd: null, status: 'active', promptCounter: 1, startedAt: new Date(T0).toISOString(), completedAt: null }), sessionLite({ id: 2, platform: 'vscode', contentSessionId: 'b', project: 'beta', cwd: null, status: 'completed', promptCounter: 1, startedAt: new Date(T0).toISOString(), completedAt: null })],
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
