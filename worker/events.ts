// In-process event bus feeding the SSE stream (panel, viewer) and anything else that listens.
import { EventEmitter } from 'node:events';
import type { StreamEvent, StreamEventName } from './protocol';

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit(event: StreamEventName, data: Record<string, unknown>): void {
    this.emitter.emit('event', { event, data } satisfies StreamEvent);
  }

  subscribe(fn: (e: StreamEvent) => void): () => void {
    this.emitter.on('event', fn);
    return () => this.emitter.off('event', fn);
  }

  get listenerCount(): number {
    return this.emitter.listenerCount('event');
  }
}
