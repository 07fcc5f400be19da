// The token never travels in a URL: no route but the viewer's entry accepts
// ?token=; the entry swaps it (or a single-use code from POST /api/viewer/code) for an HttpOnly,
// SameSite=Strict cookie and redirects to a clean URL; the cookie works only from the viewer's own
// origin; `claude-mem viewer` puts a single-use code, not the token, in the URL it opens.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { WorkerClient } from '../../extension/workerClient';
import { CLI_JS, startWorker, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
before(async () => {
  w = await startWorker();
});
after(() => w.stop());

const get = (p: string, headers: Record<string, string> = {}) => fetch(w.url + p, { headers, redirect: 'manual' });

/** The status of a GET /stream, without waiting for the stream to end. */
function streamStatus(p: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: w.port, path: p, headers }, (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', reject);
  });
}

async function sessionCookie(entry: string): Promise<string> {
  const r = await get(entry);
  assert.equal(r.status, 303, await r.text());
  assert.equal(r.headers.get('location'), '/');
  const set = r.headers.get('set-cookie') ?? '';
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Strict/);
  assert.match(set, /Path=\//);
  assert.ok(!set.includes(w.token), 'the cookie is not the token');
  return set.split(';')[0];
}

describe('the token in a URL', () => {
  it('is refused by every route but the viewer entry', async () => {
    for (const p of ['/api/stats', '/api/observations?limit=1', '/api/queue']) {
      const r = await get(`${p}${p.includes('?') ? '&' : '?'}token=${w.token}`);
      assert.equal(r.status, 401, `${p} accepted ?token=`);
      assert.match((await r.json()).error, /not accepted in a URL/);
    }
    const post = await fetch(`${w.url}/api/memory/save?token=${w.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'planted', project: 'p' }) });
    assert.equal(post.status, 401);
    assert.equal(await streamStatus(`/stream?token=${w.token}`), 401);
  });

  it('is swapped once, on the entry route, for an HttpOnly SameSite=Strict cookie and a clean URL', async () => {
    const cookie = await sessionCookie(`/?token=${w.token}`);
    const page = await get('/', { cookie });
    assert.equal(page.status, 200);
    assert.ok(!(await page.text()).includes(w.token));
    assert.equal((await get('/api/stats', { cookie })).status, 200);
    assert.equal(await streamStatus('/stream', { cookie }), 200);
    assert.equal((await get('/?token=wrong')).status, 401);
  });

  it('the cookie is refused from any other origin or site, and a forged one is refused', async () => {
    const cookie = await sessionCookie(`/?token=${w.token}`);
    assert.equal((await get('/api/stats', { cookie, origin: `http://127.0.0.1:${w.port}`, 'sec-fetch-site': 'same-origin' })).status, 200);
    assert.equal((await get('/api/stats', { cookie, origin: 'http://127.0.0.1:1' })).status, 403);
    assert.equal((await get('/api/stats', { cookie, origin: 'vscode-webview://abc' })).status, 403);
    assert.equal((await get('/api/stats', { cookie, 'sec-fetch-site': 'same-site' })).status, 403);
    assert.equal((await get('/api/stats', { cookie, 'sec-fetch-site': 'cross-site' })).status, 403);
    const forged = cookie.replace(/=v1\.(\d+)\./, (_m, exp) => `=v1.${Number(exp) + 1}.`);
    assert.equal((await get('/api/stats', { cookie: forged })).status, 401);
  });

  it('a single-use code from POST /api/viewer/code works once', async () => {
    const r = await w.req('POST', '/api/viewer/code', {});
    assert.equal(r.status, 200);
    assert.match(r.body.code, /^[A-Za-z0-9_-]{20,}$/);
    assert.ok(r.body.expiresInMs > 0);
    assert.equal((await fetch(`${w.url}/api/viewer/code`, { method: 'POST' })).status, 401);
    await sessionCookie(`/?code=${r.body.code}`);
    const again = await get(`/?code=${r.body.code}`);
    assert.equal(again.status, 401);
    assert.match((await again.json()).error, /expired or was already used/);
  });

  it('`claude-mem viewer --print` gives a single-use link, never the token', async () => {
    const r = spawnSync(process.execPath, [CLI_JS, 'viewer', '--print'], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port) }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const url = r.stdout.trim();
    assert.ok(!url.includes(w.token), `the token is in the URL: ${url}`);
    assert.match(url, new RegExp(`^http://127\\.0\\.0\\.1:${w.port}/\\?code=[A-Za-z0-9_-]+$`));
    const entry = url.slice(w.url.length);
    await sessionCookie(entry);
    assert.equal((await get(entry)).status, 401, 'the link works once');
  });

  it('the extension event stream authenticates with a header, not the URL', async () => {
    const client = new WorkerClient({ host: '127.0.0.1', port: w.port, dataDir: w.dataDir });
    const got = new Promise<string>((resolve) => {
      const sub = client.subscribe((e) => {
        if (e.event === 'new_prompt' || e.event === 'session_started') {
          sub.dispose();
          resolve(e.event);
        }
      }, (connected) => connected && void w.req('POST', '/api/sessions/init', { contentSessionId: 'url-test', cwd: '/tmp/url-test', prompt: 'hi' }));
    });
    assert.ok(await got);
  });
});
