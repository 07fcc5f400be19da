// GET /stream: server-sent events for the panel and the viewer.
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { StreamEvent } from '../../protocol';
import type { AppContext } from '../context';

const HEARTBEAT_MS = 15_000;

export function streamRoutes(app: Hono, ctx: AppContext): void {
  app.get('/stream', (c) =>
    streamSSE(c, async (stream) => {
      const queue: StreamEvent[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = ctx.events.subscribe((e) => {
        if (queue.length < 1000) queue.push(e); // a stalled client drops events rather than growing memory
        wake?.();
      }, 'client');
      let closed = false;
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      try {
        await stream.writeSSE({ event: 'connected', data: JSON.stringify({ pid: process.pid }) });
        while (!closed) {
          const e = queue.shift();
          if (e) {
            await stream.writeSSE({ event: e.event, data: JSON.stringify(e.data) });
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            const t = setTimeout(resolve, HEARTBEAT_MS);
            t.unref();
          });
          wake = undefined;
          if (!closed && queue.length === 0) await stream.write(': heartbeat\n\n');
        }
      } finally {
        unsubscribe();
      }
    }),
  );
}
