// The benches' keep-alive client (bench/compare/common.mjs): a request sent on a kept-alive socket
// that the server closes as the request arrives (bun closes idle ones after 10 s) is sent once more
// on a new socket, instead of ending a long bench run with EPIPE / ECONNRESET; a POST that the
// server may have read is never sent twice.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..', '..');
type Res = { status: number; body: unknown; text: string };
type Client = { req: (method: string, p: string, body?: unknown, timeoutMs?: number) => Promise<Res>; close: () => void; stats: { retried: number } };
async function client(port: number): Promise<Client> {
  const mod = (await import(pathToFileURL(path.join(root, 'bench', 'compare', 'common.mjs')).href)) as { client: (port: number) => Client };
  return mod.client(port);
}

/**
 * A loopback HTTP server that answers the first request on each connection with keep-alive and
 * resets the connection as the second request on it arrives (the server-side idle close racing a
 * reused socket). Records every request line it read.
 */
function racingServer(): Promise<{ port: number; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const server = net.createServer((sock) => {
    let n = 0;
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        seen.push(head.split('\r\n')[0]);
        if (++n === 2) {
          sock.resetAndDestroy();
          return;
        }
        const body = '{"ok":true}';
        sock.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`);
      }
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, seen, close: () => server.close() })));
}

const servers: Array<{ close: () => void }> = [];
after(() => servers.forEach((s) => s.close()));

it('sends a GET once more on a new socket when the kept-alive one is reset as it arrives', async () => {
  const s = await racingServer();
  servers.push(s);
  const c = await client(s.port);
  try {
    assert.equal((await c.req('GET', '/api/health')).status, 200);
    const second = await c.req('GET', '/api/search?query=x');
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, { ok: true });
    assert.equal(c.stats.retried, 1);
    assert.deepEqual(s.seen, ['GET /api/health HTTP/1.1', 'GET /api/search?query=x HTTP/1.1', 'GET /api/search?query=x HTTP/1.1']);
  } finally {
    c.close();
  }
});

it('never sends a POST twice after a reset: the error reaches the caller', async () => {
  const s = await racingServer();
  servers.push(s);
  const c = await client(s.port);
  try {
    assert.equal((await c.req('GET', '/api/health')).status, 200);
    await assert.rejects(c.req('POST', '/api/import', { sessions: [] }), (e: NodeJS.ErrnoException) => e.code === 'ECONNRESET');
    assert.equal(c.stats.retried, 0);
    assert.deepEqual(s.seen, ['GET /api/health HTTP/1.1', 'POST /api/import HTTP/1.1']);
  } finally {
    c.close();
  }
});
