// The panel's stale marks (issue 22): read from search rows ({freshness:'stale', staleReason}) and
// from full records ({freshness:{status, reason}}), and only for stale or retired memories.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { STREAM_EVENTS } from '../../extension/panel/protocol';
import { asObservation, asRow, observationStale, staleLabel, staleMarkOf } from '../../media/panel/model';

const record = (freshness?: unknown) => ({ id: 7, sessionId: 1, project: 'p', type: 'change', title: 'Retry limit is 3', createdAtEpoch: 1, ...(freshness === undefined ? {} : { freshness }) });

describe('panel stale marks', () => {
  it('a search row marked stale keeps what changed; a fresh one has no mark', () => {
    const row = asRow({ id: 7, kind: 'observation', title: 't', freshness: 'stale', staleReason: 'src/retry.ts changed on main 2026-12-03' });
    assert.deepEqual(row?.stale, { status: 'stale', reason: 'src/retry.ts changed on main 2026-12-03' });
    assert.equal(asRow({ id: 8, kind: 'observation', title: 't' })?.stale, undefined);
    assert.equal(asRow({ id: 9, kind: 'observation', title: 't', freshness: 'fresh' })?.stale, undefined);
    assert.deepEqual(asRow({ id: 10, kind: 'observation', title: 't', freshness: 'retired' })?.stale, { status: 'retired' });
  });

  it('a full record carries its freshness object through, and only when it is stale or retired', () => {
    const stale = asObservation(record({ status: 'stale', reason: 'src/retry.ts was deleted', branch: 'main' }));
    assert.deepEqual(stale?.freshness, { status: 'stale', branch: 'main', reason: 'src/retry.ts was deleted' });
    assert.deepEqual(observationStale(stale!), { status: 'stale', reason: 'src/retry.ts was deleted' });
    for (const f of [undefined, { status: 'fresh', branch: 'main', otherBranch: true }, { status: 'confirmed', branch: null }, 'nonsense', 42]) {
      const o = asObservation(record(f));
      assert.equal(o?.freshness, undefined, JSON.stringify(f));
      assert.equal(observationStale(o!), undefined);
    }
  });

  it('labels and reasons are bounded and worded for a badge', () => {
    assert.equal(staleLabel({ status: 'stale' }), 'may be stale');
    assert.equal(staleLabel({ status: 'retired' }), 'retired');
    assert.equal(staleMarkOf({ freshness: 'stale', staleReason: 'x'.repeat(1000) })?.reason?.length, 300);
  });

  it('the panel listens to memory_freshness (the worker emits it when marks change)', () => {
    assert.ok(STREAM_EVENTS.includes('memory_freshness'));
  });
});
