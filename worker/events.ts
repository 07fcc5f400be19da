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

  private clients = 0;

  /** `client` subscribers are connected viewers/panels (they keep the worker from idling out). */
  subscribe(fn: (e: StreamEvent) => void, kind: 'client' | 'internal' = 'internal'): () => void {
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

  get clientCount(): number {
    return this.clients;
  }
}
