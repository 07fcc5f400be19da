// Fake servers for the worker-identity checks: a squatter that answers /api/health like a worker
// (but cannot prove it holds the token) and records every request, and a proof answer for fake
// workers that do know the token (tests of the clients against canned replies).
import * as http from 'node:http';
import type * as net from 'node:net';
import { dataDirIdentity, identityProof } from '../../common/node/identity';

export interface Seen {
  method: string;
  url: string;
  authorization?: string;
  cookie?: string;
  body: string;
}

export interface Squatter {
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

export async function startSquatter(port = 0): Promise<Squatter> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, cookie: req.headers.cookie, body });
      const addr = server.address() as net.AddressInfo;
      res.writeHead(200, { 'content-type': 'application/json' });
      if ((req.url ?? '').startsWith('/api/health')) {
        res.end(JSON.stringify({ status: 'ok', service: 'claude-mem-vscode', version: '9.9.9', pid: 4242, port: addr.port, uptimeMs: 1, queueDepth: 0, provider: { name: 'local', state: 'ready' }, proof: 'f'.repeat(64) }));
      } else res.end(JSON.stringify({ ok: true, sessionDbId: 1, promptNumber: 1, project: 'x', items: [] }));
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The /api/health reply of a worker that holds `token` for `dataDir` (for fake workers in client
 * tests): undefined when the URL is not a health probe.
 */
export function proofReply(url: string, token: string, dataDir: string, port: number, pid = 4242): string | undefined {
  const u = new URL(url, 'http://x');
  if (u.pathname !== '/api/health') return undefined;
  const nonce = u.searchParams.get('nonce');
  return JSON.stringify({
    status: 'ok',
    service: 'claude-mem-vscode',
    version: 'test',
    pid,
    port,
    uptimeMs: 1,
    queueDepth: 0,
    provider: { name: 'local', state: 'ready' },
    ...(nonce ? { proof: identityProof(token, { nonce, port, dataDir: dataDirIdentity(dataDir), pid }) } : {}),
  });
}
