// GET /stream: server-sent events for the panel and the viewer. Each connection holds a socket and
// a queue, so one client (a remote address and its credential: the bearer token that VS Code windows
// share, or one browser's viewer cookie) may hold only so many at once, and all clients together a
// few more; beyond that a stream is refused with 429.
import type { IncomingMessage } from 'node:http';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { TypedStreamEvent } from '../../../common/contract';
import { toStreamEvent } from '../../events';
import type { AppContext } from '../context';

const HEARTBEAT_MS = 15_000;
/** Streams one client may hold (a VS Code window's panel holds one; a viewer tab one). */
export const MAX_STREAMS_PER_CLIENT = 16;
/** Streams in all. */
export const MAX_STREAMS = 64;

function clientKey(c: Context): string {
  const addr = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.remoteAddress ?? '?';
  return `${addr} ${c.req.header('authorization') ? 'bearer' : `cookie ${c.req.header('cookie') ?? ''}`}`;
}

export function streamRoutes(app: Hono, ctx: AppContext): void {
  const open = new Map<string, number>();
  let total = 0;
  app.get('/stream', (c) => {
    const key = clientKey(c);
    const mine = open.get(key) ?? 0;
    if (mine >= MAX_STREAMS_PER_CLIENT || total >= MAX_STREAMS) {
      ctx.log.warn(`refused an event stream: ${mine >= MAX_STREAMS_PER_CLIENT ? `this client already holds ${mine}` : `${total} are open`}`);
      return c.json({ error: `too many event streams open (at most ${MAX_STREAMS_PER_CLIENT} per client); close some viewer tabs or windows` }, 429);
    }
    open.set(key, mine + 1);
    total++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      total--;
      const n = (open.get(key) ?? 1) - 1;
      if (n > 0) open.set(key, n);
      else open.delete(key);
    };
    return streamSSE(c, async (stream) => {
      const queue: TypedStreamEvent[] = [];
      let wake: (() => void) | undefined;
      const unsubscribe = ctx.events.subscribe((e) => {
        if (queue.length < 1000) queue.push(toStreamEvent(e)); // a stalled client drops events rather than growing memory
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
        release();
      }
    });
  });
}
