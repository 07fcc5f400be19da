// The panel's stale marks: read from search rows ({freshness:'stale', staleReason}) and
// from full records ({freshness:{status, reason}}), and only for stale or retired memories. Replies
// are read with the contract's parsers (common/contract/replies.ts) first.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContractError, parseObservation } from '../../common/contract';
import { STREAM_EVENTS } from '../../common/contract';
import { confirmedLabel, confirmedMarkOf, observationStale, rowOf, staleLabel, staleMarkOf } from '../../media/panel/model';

const record = (freshness?: unknown) => ({
  id: 7, sessionId: 1, project: 'p', type: 'change', title: 'Retry limit is 3', subtitle: null, facts: [], narrative: null, concepts: [], filesRead: [], filesModified: [],
  toolName: null, promptNumber: null, source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 0, createdAt: new Date(1).toISOString(), createdAtEpoch: 1,
  ...(freshness === undefined ? {} : { freshness }),
});
const row = (id: number, extra: Record<string, unknown> = {}) => ({ kind: 'observation' as const, id, ref: String(id), type: 'change', title: 't', project: 'p', sessionId: 1, time: '', epoch: 0, readTokens: 1, ...extra });

describe('panel stale marks', () => {
  it('a search row marked stale keeps what changed; a fresh one has no mark', () => {
    assert.deepEqual(rowOf(row(7, { freshness: 'stale', staleReason: 'src/retry.ts changed on main 2026-12-03' })).stale, { status: 'stale', reason: 'src/retry.ts changed on main 2026-12-03' });
    assert.equal(rowOf(row(8)).stale, undefined);
    assert.deepEqual(rowOf(row(10, { freshness: 'retired' })).stale, { status: 'retired' });
  });

  it('a full record carries its freshness object through; only stale or retired ones are marked', () => {
    const stale = parseObservation(record({ status: 'stale', reason: 'src/retry.ts was deleted', branch: 'main' }));
    assert.deepEqual(stale.freshness, { status: 'stale', branch: 'main', reason: 'src/retry.ts was deleted' });
    assert.deepEqual(observationStale(stale), { status: 'stale', reason: 'src/retry.ts was deleted' });
    for (const f of [undefined, { status: 'fresh', branch: 'main', otherBranch: true }, { status: 'confirmed', branch: null }]) {
      assert.equal(observationStale(parseObservation(record(f))), undefined, JSON.stringify(f));
    }
    for (const f of ['nonsense', 42]) assert.throws(() => parseObservation(record(f)), ContractError);
  });

  it('labels and reasons are bounded and worded for a badge', () => {
    assert.equal(staleLabel({ status: 'stale' }), 'may be stale');
    assert.equal(staleLabel({ status: 'retired' }), 'retired');
    // A teammate's retire (team sync) names them, from a search row or a full record.
    assert.equal(staleLabel(staleMarkOf({ freshness: 'retired', decidedBy: 'alice' }) ?? { status: 'stale' }), 'retired by alice');
    assert.equal(staleLabel(staleMarkOf({ freshness: { status: 'retired', decidedBy: 'bob' } }) ?? { status: 'stale' }), 'retired by bob');
    assert.equal(staleMarkOf({ freshness: 'stale', decidedBy: 'alice' })?.decidedBy, undefined, 'only a retire is named on the badge');
    assert.equal(staleMarkOf({ freshness: 'stale', staleReason: 'x'.repeat(1000) })?.reason?.length, 300);
  });

  it('a confirmed memory gets a "confirmed" badge, naming the teammate who confirmed it; never beside a stale mark', () => {
    // Full records: the user's own confirm, a teammate's (team sync).
    assert.deepEqual(confirmedMarkOf(parseObservation(record({ status: 'confirmed', branch: null }))), {});
    assert.deepEqual(confirmedMarkOf(parseObservation(record({ status: 'confirmed', branch: 'main', decidedBy: 'alice' }))), { decidedBy: 'alice' });
    assert.equal(confirmedLabel({}), 'confirmed');
    assert.equal(confirmedLabel({ decidedBy: 'alice' }), 'confirmed by alice');
    // Search rows carry no confirmed status: a teammate's confirm is decidedBy on a row with no freshness.
    assert.deepEqual(rowOf(row(9, { decidedBy: 'alice' })).confirmed, { decidedBy: 'alice' });
    assert.equal(rowOf(row(9, { decidedBy: 'alice' })).stale, undefined);
    assert.equal(rowOf(row(8)).confirmed, undefined, 'a plain fresh row: no badge');
    for (const u of [{ freshness: 'retired', decidedBy: 'alice' }, { freshness: 'stale', staleReason: 'x' }, { freshness: { status: 'retired', decidedBy: 'bob' } }, { freshness: { status: 'stale', reason: 'x' } }, { freshness: { status: 'fresh', branch: 'main' } }]) {
      assert.equal(confirmedMarkOf(u), undefined, JSON.stringify(u));
    }
    assert.equal(rowOf(row(10, { freshness: 'retired', decidedBy: 'alice' })).confirmed, undefined);
    assert.equal(confirmedMarkOf({ decidedBy: 'x'.repeat(1000) })?.decidedBy?.length, 100);
  });

  it('the panel listens to memory_freshness (the worker emits it when marks change)', () => {
    assert.ok(STREAM_EVENTS.includes('memory_freshness'));
  });
});
