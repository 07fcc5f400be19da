import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseObservation, type Observation } from '../../common/contract';
import { filtersActive, matchesAuthor, matchesObservation, rowOf, teamLabel } from '../../media/panel/model';

const base = (id: number): Observation => ({ id, sessionId: 1, project: 'p', type: 'discovery', title: `t${id}`, subtitle: null, facts: [], narrative: null, concepts: [], filesRead: [], filesModified: [], toolName: null, promptNumber: null, source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 0, createdAt: new Date(1000).toISOString(), createdAtEpoch: 1000 });
const obs = (id: number, team?: { author: string; machine: string }) => parseObservation({ ...base(id), ...(team ? { team } : {}) });

describe('team: the panel filter by author', () => {
  it('reads the label of pulled records and shows it as author@machine', () => {
    const o = obs(1, { author: 'alice', machine: 'laptop' });
    assert.deepEqual(o.team, { author: 'alice', machine: 'laptop' });
    assert.equal(teamLabel(o.team), 'alice@laptop');
    assert.equal(obs(2).team, undefined);
    assert.deepEqual(rowOf({ kind: 'observation', id: 3, ref: '3', type: 'discovery', title: 'x', project: 'p', sessionId: 1, time: '', epoch: 0, readTokens: 1, team: { author: 'bob', machine: 'devbox' } }).team, { author: 'bob', machine: 'devbox' });
    assert.throws(() => parseObservation({ ...base(4), team: 'nonsense' }), /team must be an object/);
  });

  it('"me" keeps local records, a name keeps that teammate\'s', () => {
    const mine = obs(1);
    const alices = obs(2, { author: 'alice', machine: 'laptop' });
    assert.ok(filtersActive({ author: 'me' }));
    assert.deepEqual([mine, alices].filter((o) => matchesObservation(o, { author: 'me' })).map((o) => o.id), [1]);
    assert.deepEqual([mine, alices].filter((o) => matchesObservation(o, { author: 'Alice' })).map((o) => o.id), [2]);
    assert.deepEqual([mine, alices].filter((o) => matchesObservation(o, {})).map((o) => o.id), [1, 2]);
    assert.equal(matchesAuthor(undefined, { author: 'bob' }), false);
  });
});
