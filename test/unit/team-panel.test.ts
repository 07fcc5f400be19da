import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asObservation, asRow, filtersActive, matchesAuthor, matchesObservation, teamLabel } from '../../media/panel/model';

const obs = (id: number, team?: { author: string; machine: string }) => asObservation({ id, title: `t${id}`, type: 'discovery', createdAtEpoch: 1000, ...(team ? { team } : {}) })!;

describe('team: the panel filter by author', () => {
  it('reads the label of pulled records and shows it as author@machine', () => {
    const o = obs(1, { author: 'alice', machine: 'laptop' });
    assert.deepEqual(o.team, { author: 'alice', machine: 'laptop' });
    assert.equal(teamLabel(o.team), 'alice@laptop');
    assert.equal(obs(2).team, undefined);
    assert.deepEqual(asRow({ kind: 'observation', id: 3, title: 'x', team: { author: 'bob', machine: 'devbox' } })?.team, { author: 'bob', machine: 'devbox' });
    assert.equal(asObservation({ id: 4, team: 'nonsense' })?.team, undefined);
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
