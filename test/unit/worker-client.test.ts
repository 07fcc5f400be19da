// The extension's worker client resends a request that died on a pooled socket the worker had
// already closed (Node's keep-alive race), and only that: other errors still reach the caller.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, it } from 'node:test';
import { WorkerClient } from '../../extension/workerClient';
import { proofReply } from '../helpers/squatter';
import { tempDir } from '../helpers/worker';

/**
 * A minimal HTTP/1.1 server that answers the first request on each connection with keep-alive and
 * resets the connection when a second request arrives on it: what a client sees when it reuses a
 * socket the server's keep-alive timer closed.
 */
function resettingServer(dataDir: string, token: string): Promise<{ port: number; requests: string[]; close(): void }> {
  const requests: string[] = [];
  const server = net.createServer((sock) => {
    let served = 0;
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      const body = buf.slice(end + 4, end + 4 + length);
      const head = buf.slice(0, end);
      buf = buf.slice(end + 4 + length);
      // The identity probe the client sends first (on a connection of its own): prove we hold the token.
      const proof = proofReply(head.split(' ')[1] ?? '', token, dataDir, (server.address() as net.AddressInfo).port);
      if (proof !== undefined) return void sock.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(proof)}\r\nConnection: close\r\n\r\n${proof}`);
      if (served++ > 0) return void sock.resetAndDestroy();
      requests.push(body);
      const reply = JSON.stringify({ n: requests.length });
      sock.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${reply.length}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\n${reply}`);
    });
    sock.on('error', () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as net.AddressInfo).port, requests, close: () => server.close() })),
  );
}

const servers: Array<{ close(): void }> = [];
after(() => servers.forEach((s) => s.close()));

it('a request reset on a reused keep-alive socket is sent again on a new connection', async () => {
  const dataDir = tempDir();
  fs.writeFileSync(path.join(dataDir, 'auth.token'), 'tok');
  const srv = await resettingServer(dataDir, 'tok');
  servers.push(srv);
  const client = new WorkerClient({ host: '127.0.0.1', port: srv.port, dataDir });
  const first = await client.request('POST', '/api/x', { a: 1 });
  assert.deepEqual(first, { status: 200, body: { n: 1 } });
  // Same agent, so this takes the pooled socket, which the server resets on the second request.
  const second = await client.request('POST', '/api/x', { a: 2 });
  assert.deepEqual(second, { status: 200, body: { n: 2 } });
  assert.deepEqual(srv.requests, ['{"a":1}', '{"a":2}']);
});

it('a reset on a new connection is not retried: the caller gets the error', async () => {
  const server = net.createServer((sock) => sock.once('data', () => sock.resetAndDestroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  let connections = 0;
  server.on('connection', () => connections++);
  const client = new WorkerClient({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, dataDir: tempDir() });
  await assert.rejects(client.request('POST', '/api/x', { a: 1 }), /ECONNRESET/);
  assert.equal(connections, 1);
});
