// The CLI's hand-written HTTP/1.1 client (cli/client.ts) against real loopback servers.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NetworkError, parseResponse, query, request, type ClientTarget } from '../../cli/client';
import { proofReply } from '../helpers/squatter';
import { ROOT } from '../helpers/worker';

describe('parseResponse', () => {
  const b = (s: string) => Buffer.from(s, 'latin1');
  it('waits for the whole content-length body', () => {
    assert.equal(parseResponse(b('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab'), false), undefined);
    const p = parseResponse(b('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n"abc"'), false);
    assert.equal(p?.status, 200);
    assert.equal(p?.headers['content-type'], 'application/json');
    assert.equal(p?.body.toString(), '"abc"');
  });
  it('decodes a chunked body, waiting for the last chunk', () => {
    const head = 'HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n';
    assert.equal(parseResponse(b(`${head}3\r\nabc\r\n`), false), undefined);
    assert.equal(parseResponse(b(`${head}3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n`), false)?.body.toString(), 'abcdefg');
  });
  it('reads to the end without a length', () => {
    assert.equal(parseResponse(b('HTTP/1.1 500 Oops\r\n\r\npartial'), false), undefined);
    assert.equal(parseResponse(b('HTTP/1.1 500 Oops\r\n\r\nall of it'), true)?.body.toString(), 'all of it');
  });
  it('rejects a non-HTTP answer', () => {
    assert.throws(() => parseResponse(b('SSH-2.0-OpenSSH\r\n\r\n'), false), NetworkError);
  });
});

describe('request', () => {
  let server: http.Server;
  let target: ClientTarget;
  let dataDir: string;
  const seen: { auth?: string; body?: string; host?: string }[] = [];
  // A fake worker that knows the token, so it can prove itself (the client checks before sending).
  const health = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const proof = proofReply(req.url ?? '', 'tok-123', dataDir, (req.socket.address() as net.AddressInfo).port);
    if (proof !== undefined) res.writeHead(200, { 'content-type': 'application/json' }).end(proof);
    return proof !== undefined;
  };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-client-'));
    fs.writeFileSync(path.join(dataDir, 'auth.token'), 'tok-123\n');
    server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        if (health(req, res)) return;
        seen.push({ auth: req.headers.authorization, body, host: req.headers.host });
        if (req.url === '/json') res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, echo: body ? JSON.parse(body) : null }));
        else if (req.url === '/chunked') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"parts":');
          setTimeout(() => res.end('[1,2,3]}'), 20);
        } else if (req.url === '/text') res.writeHead(200, { 'content-type': 'text/markdown' }).end('# hi\n{not json}');
        else if (req.url === '/hang') return; // never answers
        else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    target = { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, dataDir };
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('sends JSON with the bearer token from the data dir and parses the JSON answer', async () => {
    const r = await request<{ ok: boolean; echo: unknown }>(target, 'POST', '/json', { a: 'é ✓' });
    assert.equal(r.status, 201);
    assert.deepEqual(r.body, { ok: true, echo: { a: 'é ✓' } });
    const last = seen.at(-1)!;
    assert.equal(last.auth, 'Bearer tok-123');
    assert.equal(last.host, `127.0.0.1:${target.port}`);
  });
  it('handles a chunked answer and keeps non-JSON as text', async () => {
    assert.deepEqual((await request(target, 'GET', '/chunked')).body, { parts: [1, 2, 3] });
    assert.equal((await request(target, 'GET', '/text')).body, '# hi\n{not json}');
  });
  it('returns error statuses rather than throwing', async () => {
    const r = await request(target, 'GET', '/missing');
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: 'nope' });
  });
  it('times out with ETIMEDOUT and refuses with ECONNREFUSED', async () => {
    await assert.rejects(request(target, 'GET', '/hang', undefined, 200), (e: NetworkError) => e.code === 'ETIMEDOUT');
    const closed = await new Promise<number>((r) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => r(p));
      });
    });
    await assert.rejects(request({ ...target, port: closed }, 'GET', '/json'), (e: NetworkError) => e.code === 'ECONNREFUSED');
  });
  it('uses public Node APIs only (no process.binding, no tcp_wrap) in source and bundle', () => {
    for (const f of ['cli/transport.ts', 'cli/client.ts', 'common/node/identity.ts']) assert.doesNotMatch(fs.readFileSync(path.join(ROOT, f), 'utf8'), /process\.binding|tcp_wrap/, f);
    for (const f of ['dist/cli-main.js', 'dist/cli-tools.js', 'dist/mcp.js']) {
      const file = path.join(ROOT, f);
      if (fs.existsSync(file)) assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /tcp_wrap|stream_wrap/, f);
    }
  });
  it('talks to an IPv6 loopback server, and by host name through node:net', async (t) => {
    const v6 = http.createServer((req, res) => health(req, res) || void res.writeHead(200, { 'content-type': 'application/json' }).end('{"v6":true}'));
    try {
      await new Promise<void>((resolve, reject) => v6.once('error', reject).listen(0, '::1', resolve));
    } catch {
      t.skip('no IPv6 loopback here');
      return;
    }
    const port = (v6.address() as net.AddressInfo).port;
    try {
      assert.deepEqual((await request({ ...target, host: '::1', port }, 'GET', '/')).body, { v6: true });
      assert.deepEqual((await request({ ...target, host: '[::1]', port }, 'GET', '/')).body, { v6: true });
      assert.deepEqual((await request({ ...target, host: 'localhost' }, 'POST', '/json', { n: 1 })).body, { ok: true, echo: { n: 1 } });
    } finally {
      v6.close();
    }
  });
  it('builds query strings from defined values', () => {
    assert.equal(query({ a: 'x y', b: undefined, c: 3, d: '' }), '?a=x%20y&c=3');
    assert.equal(query({}), '');
  });
});
