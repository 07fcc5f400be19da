// The page side of the webview protocol: WebviewTransport with the host's real message shapes,
// posted as MessageEvents the way a webview receives them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HostMessage, PageMessage, StreamEvent } from '../../common/contract';
import { ApiError, type TransportListener } from '../../media/panel/transport';
import { WebviewTransport } from '../../media/panel/webviewTransport';

function setup(timeoutMs = 60_000) {
  const sent: PageMessage[] = [];
  const source = new EventTarget();
  const t = new WebviewTransport({ postMessage: (m) => sent.push(m) }, source as unknown as ConstructorParameters<typeof WebviewTransport>[1], timeoutMs);
  const fromHost = (m: HostMessage | unknown) => source.dispatchEvent(new MessageEvent('message', { data: m }));
  const seen = { events: [] as StreamEvent[], connection: [] as string[], capture: [] as boolean[] };
  const listener: TransportListener = {
    event: (e) => seen.events.push(e),
    connection: (s, d) => seen.connection.push(d ? `${s}: ${d}` : s),
    capture: (p) => seen.capture.push(p),
  };
  return { t, sent, fromHost, seen, listener };
}

describe('WebviewTransport', () => {
  it('says ready and resolves with what hello says', async () => {
    const { t, sent, fromHost, listener } = setup();
    const started = t.start(listener);
    assert.deepEqual(sent, [{ type: 'ready' }]);
    fromHost({ type: 'hello', capabilities: { openFiles: true, pauseCapture: true }, project: 'alpha', capturePaused: false });
    assert.deepEqual(await started, { capabilities: { openFiles: true, pauseCapture: true }, project: 'alpha', capturePaused: false });
  });

  it('matches replies to requests by id, in any order', async () => {
    const { t, sent, fromHost, listener } = setup();
    void t.start(listener);
    const a = t.request('observation', { id: 5 });
    const b = t.request('projects', {});
    assert.deepEqual(sent.slice(1), [
      { type: 'request', id: 1, op: 'observation', params: { id: 5 } },
      { type: 'request', id: 2, op: 'projects', params: {} },
    ]);
    fromHost({ type: 'reply', id: 2, ok: true, result: { projects: [{ name: 'alpha', sessions: 1, observations: 2, lastActivity: '2026-01-01T00:00:00.000Z' }] } });
    fromHost({ type: 'reply', id: 1, ok: false, status: 404, error: 'no such observation' });
    assert.equal((await b).projects[0].name, 'alpha');
    await assert.rejects(a, (e: unknown) => e instanceof ApiError && e.status === 404 && e.message === 'no such observation' && !e.routeMissing);
  });

  it('knows a missing route from a missing record', async () => {
    const { t, fromHost, listener } = setup();
    void t.start(listener);
    const s = t.request('search', { query: 'x' });
    fromHost({ type: 'reply', id: 1, ok: false, status: 404, error: 'no route GET /api/search' });
    await assert.rejects(s, (e: unknown) => e instanceof ApiError && e.routeMissing);
  });

  it('passes events, connection and capture state on, and drops junk', async () => {
    const { t, fromHost, seen, listener } = setup();
    void t.start(listener);
    fromHost({ type: 'hello', capabilities: { openFiles: true, pauseCapture: true } });
    fromHost({ type: 'event', event: { event: 'observation_deleted', data: { id: 3, project: 'alpha' } } });
    fromHost({ type: 'connection', state: 'no-worker', detail: 'start it' });
    fromHost({ type: 'capture', paused: true });
    fromHost({ type: 'event', event: { event: 'drop_everything', data: {} } });
    fromHost({ type: 'reply', id: 77, ok: true, result: 1 }); // nobody asked
    fromHost('junk');
    fromHost(null);
    assert.deepEqual(seen.events, [{ event: 'observation_deleted', data: { id: 3, project: 'alpha' } }]);
    assert.deepEqual(seen.connection, ['no-worker: start it']);
    assert.deepEqual(seen.capture, [true]);
  });

  it('asks the host to open files and toggle capture', () => {
    const { t, sent } = setup();
    t.openFile('src/a.ts', 'alpha');
    t.toggleCapture();
    assert.deepEqual(sent, [{ type: 'openFile', path: 'src/a.ts', project: 'alpha' }, { type: 'toggleCapture' }]);
  });

  it('gives up on a request the host never answers', async () => {
    const { t, listener } = setup(50);
    void t.start(listener);
    await assert.rejects(t.request('stats', {}), (e: unknown) => e instanceof ApiError && e.status === 0 && /did not answer/.test(e.message));
  });
});
