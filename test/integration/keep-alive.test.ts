// A client's kept-alive connection outlives a busy pause in that client. With Node's default 5 s
// idle timeout the worker closed a connection while a client whose event loop had been busy (a
// synchronous child process, a long computation) was writing its next request on it: the request
// was reset ("fetch failed") though the worker was healthy.
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, it } from 'node:test';
import { startWorker, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
before(async () => {
  w = await startWorker();
});
after(async () => {
  await w.stop();
});

/** Sends one GET on the socket and resolves with the status line, or rejects if the socket closes first. */
function get(sock: net.Socket, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    if (sock.readableEnded || sock.destroyed) return reject(new Error('the worker closed the connection'));
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const head = buf.indexOf('\r\n\r\n');
      if (head < 0) return;
      const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, head))?.[1] ?? 0);
      if (buf.length - head - 4 < len) return;
      done();
      resolve(buf.slice(0, buf.indexOf('\r\n')));
    };
    const onClose = () => {
      done();
      reject(new Error('the worker closed the connection'));
    };
    const done = () => {
      sock.off('data', onData);
      sock.off('close', onClose);
      sock.off('end', onClose);
      sock.off('error', onClose);
    };
    sock.on('data', onData);
    sock.on('close', onClose);
    sock.on('end', onClose);
    sock.on('error', onClose);
    sock.write(`GET /api/health HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\nconnection: keep-alive\r\n\r\n`);
  });
}

it('keeps an idle kept-alive connection open through a client pause of 8 s, and says for how long', { timeout: 30_000 }, async () => {
  const sock = net.connect(w.port, '127.0.0.1');
  sock.on('error', () => undefined); // seen by get()
  await new Promise((r) => sock.once('connect', r));
  let header = '';
  sock.once('data', (d) => (header = d.toString()));
  assert.match(await get(sock, w.token), /^HTTP\/1\.1 200/);
  const hinted = Number(/keep-alive: timeout=(\d+)/i.exec(header)?.[1]);
  assert.ok(hinted >= 60, `the worker tells clients how long it keeps a connection: ${hinted} s`);
  await new Promise((r) => setTimeout(r, 8_000));
  assert.match(await get(sock, w.token), /^HTTP\/1\.1 200/, 'the same connection answers after the pause');
  sock.destroy();
});
