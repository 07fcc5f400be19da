// The worker's internal events, typed: what happened in the store and the queue. Search indexing,
// team sync and the SSE stream (GET /stream, common/contract/stream.ts) each subscribe; the stream
// is one subscriber among them and decides what clients see.
import { EventEmitter } from 'node:events';
import type { ObservationStoredPayload, StreamPayloads, TypedStreamEvent } from '../common/contract';

export interface WorkerEvents extends Omit<StreamPayloads, 'new_observation'> {
  /** One observation stored (compressed, saved by hand, pulled from the team hub, or re-verified). */
  new_observation: ObservationStoredPayload;
  /** Records imported in bulk (POST /api/import): too many to name one by one. */
  observations_imported: { count: number };
}

export type WorkerEventName = keyof WorkerEvents;
export type WorkerEvent = { [K in WorkerEventName]: { event: K; data: WorkerEvents[K] } }[WorkerEventName];

/** What clients of the stream see of an internal event: an import is announced as a `new_observation` without an id. */
export function toStreamEvent(e: WorkerEvent): TypedStreamEvent {
  return e.event === 'observations_imported' ? { event: 'new_observation', data: { imported: e.data.count } } : e;
}

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends WorkerEventName>(event: K, data: WorkerEvents[K]): void {
    this.emitter.emit('event', { event, data } as WorkerEvent);
  }

  private clients = 0;

  /** Every event. `client` subscribers are connected viewers/panels (they keep the worker from idling out). */
  subscribe(fn: (e: WorkerEvent) => void, kind: 'client' | 'internal' = 'internal'): () => void {
    this.emitter.on('event', fn);
    if (kind === 'client') this.clients += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.emitter.off('event', fn);
      if (kind === 'client') this.clients -= 1;
    };
  }

  /** The events named, each with its own payload type. */
  on(handlers: { [K in WorkerEventName]?: (data: WorkerEvents[K]) => void }): () => void {
    return this.subscribe((e) => (handlers[e.event] as ((d: WorkerEvents[typeof e.event]) => void) | undefined)?.(e.data));
  }

  get clientCount(): number {
    return this.clients;
  }
}
