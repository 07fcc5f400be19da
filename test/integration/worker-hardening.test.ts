// Hardening against a real worker: /api/health says less without the token, event streams
// are capped per client, an aborted upload is one log line (no stack).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

describe('/api/health without the token', () => {
  let fake: FakeAnthropic;
  let w: RunningWorker;
  before(async () => {
    fake = await startFakeAnthropic(() => text('unused'), { apiKey: 'right-key' });
    const dataDir = tempDir('cmem-hard-');
    fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ modelObservations: 'every', agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 2, batchMaxAgeMs: 0, batchMaxUses: 1 }));
    w = await startWorker({ dataDir, env: { ANTHROPIC_API_KEY: 'wrong-key', ANTHROPIC_BASE_URL: fake.url } });
  });
  after(async () => {
    await w.stop();
    await fake.close();
  });

  it('gives no lastError text to a caller without the token', async () => {
    await w.req('POST', '/api/sessions/observations', { contentSessionId: 'h', project: 'h', cwd: '/repo', tool_name: 'Read', tool_input: { file_path: '/repo/a.ts' }, tool_response: 'x', tool_use_id: 'tu-h' });
    const withToken = await until(async () => {
      const h = (await w.req('GET', '/api/health')).body;
      return h.provider.lastError ? h : undefined;
    }, 20_000, 'the provider to record its 401');
    assert.match(withToken.provider.lastError, /401/);
    const anon = await (await fetch(`${w.url}/api/health`)).json();
    assert.equal(anon.service, 'claude-mem-vscode');
    assert.deepEqual(Object.keys(anon.provider).sort(), ['name', 'state']);
    // Only string values can carry error text; numbers (the port, the pid) may contain "401" by chance.
    const strings = Object.values(anon).concat(Object.values(anon.provider)).filter((v) => typeof v === 'string');
    assert.ok(!strings.some((v) => String(v).includes('401')), JSON.stringify(anon));
  });
});

describe('event streams and uploads', () => {
  let w: RunningWorker;
  before(async () => {
    w = await startWorker();
  });
  after(() => w.stop());

  it('caps event streams per client with a clear 429', async () => {
    const open: http.ClientRequest[] = [];
    const connect = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: w.port, path: '/stream', headers: { authorization: `Bearer ${w.token}` } }, (res) => {
          if (res.statusCode === 200) return resolve({ status: 200, body: '' });
          let body = '';
          res.setEncoding('utf8').on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        open.push(req);
      });
    try {
      let refused: { status: number; body: string } | undefined;
      for (let i = 0; i < 100 && !refused; i++) {
        const r = await connect();
        if (r.status !== 200) refused = r;
      }
      assert.ok(refused, 'a client opened 100 event streams');
      assert.equal(refused.status, 429);
      assert.match(JSON.parse(refused.body).error, /too many event streams/);
      // Closing one lets the client open another.
      open.shift()?.destroy();
      await until(async () => (await connect()).status === 200, 5000, 'a stream after one was closed');
    } finally {
      for (const r of open) r.destroy();
    }
  });

  it('logs an aborted upload as one line, with no stack', async () => {
    await new Promise<void>((resolve) => {
      const sock = net.connect(w.port, '127.0.0.1', () => {
        sock.write(`POST /api/sessions/observations HTTP/1.1\r\nHost: 127.0.0.1:${w.port}\r\nAuthorization: Bearer ${w.token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"contentSessionId":"abort","tool_name":"Read","tool_input":"`);
        setTimeout(() => {
          sock.destroy();
          resolve();
        }, 200);
      });
      sock.on('error', () => undefined);
    });
    const logFile = path.join(w.dataDir, 'logs', 'worker.log');
    const line = await until(() => fs.readFileSync(logFile, 'utf8').split('\n').find((l) => /went away during the upload/.test(l)), 10_000, 'the aborted upload to be logged');
    assert.match(line, /WARN POST \/api\/sessions\/observations: the client went away during the upload/);
    const log = fs.readFileSync(logFile, 'utf8');
    assert.doesNotMatch(log, /unhandled error|"stack"|\n\s+at /);
  });
});
