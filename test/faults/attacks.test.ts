// Attacks: no token, wrong token (and its timing), foreign Host, a cross-origin page in a real
// browser, file modes, and secrets that must never be written anywhere.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { chromium } from 'playwright-core';
import { renderPage, webviewCsp } from '../../common/panel/page';
import { plainFiles } from '../helpers/dataFiles';
import { startWorker, type RunningWorker } from '../helpers/worker';
import { faultCase } from './record';

const F = __filename;
const SECRET = 'sk-ant-api03-NEVERWRITEME0123456789abcdefABCDEF';
let w: RunningWorker;

const ROUTES: [string, string][] = [
  ['GET', '/api/readiness'], ['GET', '/api/stats'], ['GET', '/api/observations'], ['GET', '/api/observation/1'], ['DELETE', '/api/observation/1'],
  ['GET', '/api/sessions'], ['DELETE', '/api/session/1'], ['GET', '/api/projects'], ['DELETE', '/api/projects/x'], ['POST', '/api/sessions/init'],
  ['POST', '/api/sessions/observations'], ['POST', '/api/sessions/summarize'], ['POST', '/api/sessions/complete'], ['POST', '/api/memory/save'],
  ['GET', '/api/export'], ['POST', '/api/import'], ['GET', '/api/queue'], ['POST', '/api/queue/retry'], ['GET', '/stream'], ['POST', '/api/admin/snapshot'],
  ['POST', '/api/admin/shutdown'], ['POST', '/api/noop'], ['GET', '/api/search?query=x'], ['GET', '/api/timeline?anchor=1'], ['POST', '/api/observations/batch'],
  ['GET', '/api/search/by-file?path=x'], ['GET', '/api/context/inject?project=x'], ['GET', '/'],
];

function raw(method: string, p: string, headers: Record<string, string>, body?: string): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const rq = http.request({ host: '127.0.0.1', port: w.port, method, path: p, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    rq.on('error', reject);
    rq.end(body);
  });
}

before(async () => {
  w = await startWorker({ env: { ANTHROPIC_API_KEY: SECRET, CLAUDE_MEM_LOG_STDERR: '1' } });
  await w.req('POST', '/api/memory/save', { text: 'the crown jewels', project: 'atk' });
});
after(async () => {
  await w.stop();
});

it('no token: 401 on every route but health', async () => {
  await faultCase(F, 'attacks', 'no token on every route', async () => {
    for (const [m, p] of ROUTES) {
      const r = await raw(m, p, {}, m === 'POST' ? '{}' : undefined);
      assert.equal(r.status, 401, `${m} ${p}`);
    }
    assert.equal((await raw('GET', '/api/health', {})).status, 200);
    return `${ROUTES.length} routes -> 401; /api/health -> 200`;
  });
});

it('wrong token: 401, no timing difference worth measuring', async () => {
  await faultCase(F, 'attacks', 'wrong token, constant-time compare', async () => {
    const right = w.token;
    const nearly = right.slice(0, -1) + (right.endsWith('0') ? '1' : '0'); // all but the last char right
    const far = 'f'.repeat(right.length).replace(/^./, right[0] === 'f' ? 'e' : 'f'); // first char wrong
    const median = async (tok: string) => {
      const xs: number[] = [];
      for (let i = 0; i < 300; i++) xs.push((await raw('GET', '/api/stats', { authorization: `Bearer ${tok}` })).ms);
      xs.sort((a, b) => a - b);
      return xs[150];
    };
    for (const t of [nearly, far]) assert.equal((await raw('GET', '/api/stats', { authorization: `Bearer ${t}` })).status, 401);
    // Interleave to share the machine's noise.
    const a1 = await median(nearly);
    const b1 = await median(far);
    const a2 = await median(nearly);
    const b2 = await median(far);
    const diffUs = (Math.abs(a1 - b1) + Math.abs(a2 - b2)) * 500;
    return `median 401 latency, last-char-wrong ${((a1 + a2) / 2).toFixed(3)} ms vs first-char-wrong ${((b1 + b2) / 2).toFixed(3)} ms (|diff| ${diffUs.toFixed(0)} µs; compare is sha256 + timingSafeEqual)`;
  });
});

it('Host: evil.example gets 403', async () => {
  await faultCase(F, 'attacks', 'DNS rebinding (foreign Host)', async () => {
    const r = await raw('GET', '/api/stats', { host: 'evil.example', authorization: `Bearer ${w.token}` });
    assert.equal(r.status, 403);
    const r2 = await raw('GET', '/api/stats', { host: `evil.example:${w.port}`, authorization: `Bearer ${w.token}` });
    assert.equal(r2.status, 403);
    return 'Host evil.example and evil.example:port -> 403 even with the token';
  });
});

it('a cross-origin page in Chromium cannot read or write memory', async () => {
  await faultCase(F, 'attacks', 'cross-origin fetch from a browser page', async () => {
    const page = `<!doctype html><script>
      window.results = {};
      const base = 'http://127.0.0.1:${w.port}';
      (async () => {
        const tryIt = async (name, fn) => { try { const r = await fn(); window.results[name] = 'status ' + r.status + ' ' + (await r.text()).slice(0, 80); } catch (e) { window.results[name] = 'blocked: ' + e.message; } };
        await tryIt('read', () => fetch(base + '/api/observations?project=atk'));
        await tryIt('readWithToken', () => fetch(base + '/api/observations?project=atk&token=${w.token}'));
        await tryIt('simplePost', () => fetch(base + '/api/memory/save', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ text: 'planted', project: 'atk' }) }));
        await tryIt('simplePostWithToken', () => fetch(base + '/api/memory/save?token=${w.token}', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ text: 'planted2', project: 'atk' }) }));
        window.done = true;
      })();
    </script>`;
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    const sitePort = (site.address() as { port: number }).port;
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const p = await browser.newPage();
      await p.goto(`http://127.0.0.1:${sitePort}/`);
      await p.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, { timeout: 15_000 });
      const results = (await p.evaluate(() => (window as unknown as { results: Record<string, string> }).results)) as Record<string, string>;
      for (const k of ['read', 'readWithToken', 'simplePost']) assert.match(results[k], /^blocked/, `${k}: ${results[k]}`);
      const exp = await w.req('GET', '/api/export?project=atk');
      const text = JSON.stringify(exp.body);
      assert.ok(!text.includes('planted'), 'the cross-origin page wrote memory');
      return `reads blocked by the browser (no CORS), writes refused by the Origin check (403) even with a stolen token: ${Object.entries(results).map(([k, v]) => `${k}=${v.slice(0, 40)}`).join('; ')}`;
    } finally {
      await browser.close();
      site.close();
    }
  });
});

it('a page on another local port cannot use the viewer session cookie', async () => {
  await faultCase(F, 'attacks', 'viewer cookie from another local port (same site)', async () => {
    // SameSite=Strict treats every port of 127.0.0.1 as the same site, so the browser attaches the
    // cookie to these requests: the worker's Origin and Fetch-Metadata checks must refuse them.
    const page = `<!doctype html><script>
      window.results = {};
      const base = 'http://127.0.0.1:${w.port}';
      (async () => {
        const tryIt = async (name, fn) => { try { const r = await fn(); window.results[name] = 'status ' + r.status + ' ' + r.type; } catch (e) { window.results[name] = 'blocked: ' + e.message; } };
        await tryIt('read', () => fetch(base + '/api/observations?project=atk', { credentials: 'include' }));
        await tryIt('post', () => fetch(base + '/api/memory/save', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ text: 'cookie-planted', project: 'atk' }) }));
        await tryIt('code', () => fetch(base + '/api/viewer/code', { method: 'POST', mode: 'no-cors', credentials: 'include' }));
        window.done = true;
      })();
    </script>`;
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const ctx = await browser.newContext();
      const viewer = await ctx.newPage();
      await viewer.goto(`${w.url}/?token=${w.token}`);
      assert.ok(!viewer.url().includes('token'), viewer.url());
      assert.ok((await ctx.cookies()).some((c) => c.httpOnly && c.sameSite === 'Strict'), 'the viewer set its cookie');
      const p = await ctx.newPage();
      await p.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/`);
      await p.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, { timeout: 15_000 });
      const results = (await p.evaluate(() => (window as unknown as { results: Record<string, string> }).results)) as Record<string, string>;
      assert.match(results.read, /^blocked/, `read: ${results.read}`);
      const text = JSON.stringify((await w.req('GET', '/api/export?project=atk')).body);
      assert.ok(!text.includes('cookie-planted'), 'a page on another port wrote memory with the viewer cookie');
      return `cookie set HttpOnly/SameSite=Strict; from another port: ${Object.entries(results).map(([k, v]) => `${k}=${v.slice(0, 40)}`).join('; ')}; nothing written`;
    } finally {
      await browser.close();
      site.close();
    }
  });
});

it('the token file is 0600 and the data dir 0700', async () => {
  await faultCase(F, 'attacks', 'file modes', async () => {
    const tok = fs.statSync(path.join(w.dataDir, 'auth.token')).mode & 0o777;
    const dir = fs.statSync(w.dataDir).mode & 0o777;
    assert.equal(tok, 0o600);
    assert.equal(dir, 0o700);
    for (const f of fs.readdirSync(path.join(w.dataDir, 'db'))) {
      const m = fs.statSync(path.join(w.dataDir, 'db', f)).mode & 0o777;
      assert.ok((m & 0o077) === 0, `${f} is ${m.toString(8)}`);
    }
    return `auth.token ${tok.toString(8)}, data dir ${dir.toString(8)}, db files 600/700`;
  });
});

it('secrets never appear in logs, exports, the journal or error messages', async () => {
  await faultCase(F, 'attacks', 'API key never written', async () => {
    // Exercise errors and normal paths, then grep every file the worker wrote and every answer.
    const answers: string[] = [];
    for (const [m, p] of ROUTES.filter(([, p]) => !p.includes('shutdown') && p !== '/stream')) {
      const r = await w.req(m, p, m === 'POST' ? { bad: true } : undefined);
      answers.push(JSON.stringify(r.body));
    }
    answers.push(JSON.stringify((await w.req('GET', '/api/export')).body), JSON.stringify((await w.req('GET', '/api/stats')).body), w.stdout());
    await w.req('POST', '/api/admin/snapshot', {});
    // Compressed and packed files are read inflated: compression must not hide a key from this check.
    const files = plainFiles(w.dataDir);
    const leaks = files.filter((f) => f.bytes.includes(SECRET)).map((f) => f.file).concat(answers.filter((a) => a.includes(SECRET)).map(() => 'an HTTP answer'));
    assert.deepEqual(leaks, []);
    return `grepped ${files.length} files in the data dir and ${answers.length} answers: no API key`;
  });
});

it('the webview and viewer CSP block inline script without the nonce', async () => {
  await faultCase(F, 'attacks', 'CSP blocks un-nonced inline script', async () => {
    const nonce = 'n0nce' + Math.random().toString(36).slice(2);
    // The webview's real page shell and CSP, with an injected script that lacks the nonce.
    const html = renderPage({ nonce, csp: webviewCsp('http://127.0.0.1', nonce), host: 'webview', script: { inline: 'window.goodRan = true;' } }).replace(
      '</body>',
      '<script>window.badRan = true;</script><img src=x onerror="window.badRan2 = true"></body>',
    );
    const site = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    try {
      const p = await browser.newPage();
      await p.goto(`http://127.0.0.1:${(site.address() as { port: number }).port}/`);
      const ran = await p.evaluate('[window.goodRan === true, window.badRan === true, window.badRan2 === true]');
      assert.deepEqual(ran, [true, false, false], 'nonced script runs, un-nonced inline script and handler do not');
      // The viewer served by the worker: a script injected into its DOM is refused too.
      await p.goto(`${w.url}/?token=${w.token}`);
      const injected = await p.evaluate(`new Promise((resolve) => {
        document.addEventListener('securitypolicyviolation', (e) => resolve('blocked: ' + e.violatedDirective));
        const s = document.createElement('script'); s.textContent = 'window.injected = true'; document.body.appendChild(s);
        setTimeout(() => resolve(window.injected ? 'ran' : 'not run'), 1000);
      })`);
      assert.match(String(injected), /^blocked: script-src/);
      return `webview shell: nonced script ran, inline script and onerror handler blocked; viewer: injected script ${injected}`;
    } finally {
      await browser.close();
      site.close();
    }
  });
});
