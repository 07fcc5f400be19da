// The worker's internal event bus: typed handlers per event, every event to a plain subscriber,
// and the stream's view of an import (a `new_observation` without an id, as clients expect).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBus, toStreamEvent, type WorkerEvent } from '../../worker/events';

describe('worker events', () => {
  it('calls the handler of each event with its payload, and stops after unsubscribe', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const off = bus.on({
      new_observation: (d) => seen.push(`obs ${d.id} ${d.title}`),
      observations_imported: (d) => seen.push(`imported ${d.count}`),
    });
    bus.emit('new_observation', { id: 3, project: 'p', type: 'change', title: 't', source: 'manual' });
    bus.emit('observations_imported', { count: 12 });
    bus.emit('observation_deleted', { id: 3, project: 'p' });
    off();
    bus.emit('observations_imported', { count: 1 });
    assert.deepEqual(seen, ['obs 3 t', 'imported 12']);
  });

  it('the stream sends stored events as they are and an import as new_observation {imported}', () => {
    const bus = new EventBus();
    const all: WorkerEvent[] = [];
    const off = bus.subscribe((e) => all.push(e), 'client');
    assert.equal(bus.clientCount, 1);
    bus.emit('observations_imported', { count: 4 });
    bus.emit('observation_deleted', { id: 2, project: 'p' });
    off();
    assert.equal(bus.clientCount, 0);
    assert.deepEqual(all.map(toStreamEvent), [
      { event: 'new_observation', data: { imported: 4 } },
      { event: 'observation_deleted', data: { id: 2, project: 'p' } },
    ]);
  });
});
