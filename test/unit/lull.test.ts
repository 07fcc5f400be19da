// Background work waits for requests (worker/lull.ts): for a lull, not while requests keep coming
// nor while one is in flight; for idle, only while one is in flight; at most its longest wait
// however steady they are; and the app tells it of every request but the model bridge's long poll.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { nullLogger } from '../../common/node/log';
import { Lull } from '../../worker/lull';
import { createApp, LONG_POLL } from '../../worker/server/app';
import type { AppContext } from '../../worker/server/context';

const later = (ms: number) => new Promise<'later'>((r) => setTimeout(() => r('later'), ms));
/** 'went' when the wait ends within ms, else 'later'. */
const within = (wait: Promise<void>, ms: number) => Promise.race([wait.then(() => 'went' as const), later(ms)]);

const HEADERS = { host: '127.0.0.1:37777', authorization: `Bearer ${'t'.repeat(64)}` };

/** The worker's app with these routes, telling `lull` of its requests. */
function appTelling(lull: Lull, routes: ((a: Hono) => void)[]): Hono {
  const ctx = {
    config: { host: '127.0.0.1', settings: { maxBodyBytes: 1 << 20, maxImportBytes: 1 << 20, allowRemoteBind: false } },
    token: 't'.repeat(64),
    port: () => 37777,
    touch: () => undefined,
    log: nullLogger,
    lull,
  } as unknown as AppContext;
  return createApp(ctx, routes);
}

describe('a lull in requests', () => {
  it('goes at once when no request came, and waits while they keep coming', async () => {
    const lull = new Lull(200, 60_000);
    assert.equal(await within(lull.wait(), 50), 'went');
    let coming = true;
    lull.request()();
    const requests = setInterval(() => lull.request()(), 10);
    const went = lull.wait().then(() => coming);
    await later(600);
    coming = false;
    clearInterval(requests);
    assert.equal(await went, false, 'it went only once the requests stopped');
  });

  it('goes after its longest wait however steady the requests', async () => {
    const lull = new Lull(200, 300);
    let last = performance.now();
    const requests = setInterval(() => {
      lull.request()();
      last = performance.now();
    }, 10);
    try {
      lull.request()();
      await lull.wait();
      assert.ok(performance.now() - last < 200, 'it went while requests were still coming');
    } finally {
      clearInterval(requests);
    }
  });

  it('waits while a request is in flight, however long ago it started', async () => {
    const lull = new Lull(20, 60_000);
    const ended = lull.request();
    assert.equal(await within(lull.wait(), 150), 'later', 'not while the request runs');
    const went = lull.wait().then(() => performance.now());
    await later(50);
    const at = performance.now();
    ended();
    ended();
    assert.ok((await went) >= at, 'it went once the request ended');
    assert.equal(await within(lull.wait(), 100), 'went', 'an end told twice counts once');
  });

  it('is idle as soon as no request is in flight, however lately one ended', async () => {
    const lull = new Lull(200, 60_000);
    const ended = lull.request();
    assert.equal(await within(lull.idle(), 100), 'later', 'not while the request runs');
    const idle = lull.idle().then(() => performance.now());
    await later(30);
    const at = performance.now();
    ended();
    assert.ok((await idle) - at < 100, 'at once after it ended');
    assert.equal(await within(lull.wait(), 50), 'later', 'a lull still waits its quiet time');
  });

  it('goes after its longest wait while a request stays in flight', async () => {
    const lull = new Lull(20, 100);
    lull.request();
    assert.equal(await within(lull.wait(), 400), 'went');
  });

  it('is told by the app when each request starts and ends', async () => {
    const lull = new Lull(200, 60_000);
    let during: string | undefined;
    const app = appTelling(lull, [
      (a: Hono) =>
        a.get('/api/probe', async (c) => {
          during = await within(lull.wait(), 100);
          return c.json({ ok: true });
        }),
    ]);
    await later(250);
    const res = await app.request('/api/probe', { headers: HEADERS });
    assert.equal(res.status, 200);
    assert.equal(during, 'later', 'not while the request had just started');
    assert.equal(await within(lull.wait(), 100), 'later', 'not just after it ended');
    await lull.wait();
  });

  it('is held by a request for as long as it runs, but not by the model bridge\'s long poll or the event stream', async () => {
    const lull = new Lull(20, 60_000);
    const during = async () => within(lull.wait(), 150);
    const seen: Record<string, string> = {};
    const app = appTelling(lull, [
      (a: Hono) => {
        // A search waiting for its query embedding, and the long poll waiting for model calls.
        a.get('/api/slow', async (c) => c.json({ seen: (seen.slow = await during()) }));
        a.get(LONG_POLL, async (c) => c.json({ seen: (seen.poll = await during()) }));
        // The event stream: answered at once, it streams after.
        a.get('/api/events-probe', (c) => streamSSE(c, async (stream) => {
          seen.stream = await during();
          await stream.writeSSE({ data: seen.stream });
        }));
      },
    ]);
    assert.equal((await app.request('/api/slow', { headers: HEADERS })).status, 200);
    assert.equal(seen.slow, 'later', 'background work waited the whole request');
    await lull.wait();
    assert.equal((await app.request(LONG_POLL, { headers: HEADERS })).status, 200);
    assert.equal(seen.poll, 'went', 'the long poll held nothing back');
    const events = await app.request('/api/events-probe', { headers: HEADERS });
    assert.match(await events.text(), /data: went/, 'the event stream held nothing back');
  });
});
