// The panel protocol: operation -> worker request (shared by the extension host and the browser
// transport), message validation on both sides, and the page shell.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorText, httpFor, OP_NAMES, parseHostMessage, parsePageMessage, ProtocolError, type OpName } from '../../common/contract';
import { inlineScript, renderPage, viewerCsp, viewerCspHeader, webviewCsp } from '../../common/panel/page';

describe('httpFor', () => {
  const cases: [OpName, unknown, { method: string; path: string; body?: unknown }][] = [
    ['health', {}, { method: 'GET', path: '/api/health' }],
    ['stats', undefined, { method: 'GET', path: '/api/stats' }],
    ['queue', {}, { method: 'GET', path: '/api/queue' }],
    ['projects', {}, { method: 'GET', path: '/api/projects' }],
    ['observations', {}, { method: 'GET', path: '/api/observations' }],
    ['observations', { project: 'my proj/x', limit: 100, offset: 200 }, { method: 'GET', path: '/api/observations?project=my%20proj%2Fx&limit=100&offset=200' }],
    ['sessions', { project: 'a', limit: 200 }, { method: 'GET', path: '/api/sessions?project=a&limit=200' }],
    ['observation', { id: 42 }, { method: 'GET', path: '/api/observation/42' }],
    ['observationsBatch', { ids: [1, 2, 3] }, { method: 'POST', path: '/api/observations/batch', body: { ids: [1, 2, 3] } }],
    [
      'search',
      { query: 'token bug', project: 'alpha', type: 'bugfix', concepts: 'gotcha', file: 'src/a.ts', dateStart: '2026-01-01', dateEnd: '2026-02-01', limit: 50, offset: 0, mode: 'hybrid' },
      { method: 'GET', path: '/api/search?query=token%20bug&project=alpha&type=bugfix&concepts=gotcha&file=src%2Fa.ts&dateStart=2026-01-01&dateEnd=2026-02-01&limit=50&offset=0&mode=hybrid' },
    ],
    ['search', { query: 'x', project: undefined, type: '' }, { method: 'GET', path: '/api/search?query=x' }],
    ['timeline', { anchor: '12', depthBefore: 6, depthAfter: 6, project: 'alpha' }, { method: 'GET', path: '/api/timeline?anchor=12&depth_before=6&depth_after=6&project=alpha' }],
    ['timeline', { anchor: 'S3' }, { method: 'GET', path: '/api/timeline?anchor=S3' }],
    ['deleteObservation', { id: 7 }, { method: 'DELETE', path: '/api/observation/7' }],
    ['forgetSession', { id: 9 }, { method: 'DELETE', path: '/api/session/9' }],
    ['forgetProject', { name: 'a/b c' }, { method: 'DELETE', path: '/api/projects/a%2Fb%20c' }],
    ['saveMemory', { text: 'We use pnpm.', title: 'PM', project: 'alpha' }, { method: 'POST', path: '/api/memory/save', body: { text: 'We use pnpm.', title: 'PM', project: 'alpha' } }],
    ['saveMemory', { text: 'line1\nline2' }, { method: 'POST', path: '/api/memory/save', body: { text: 'line1\nline2' } }],
    ['retryQueue', {}, { method: 'POST', path: '/api/queue/retry', body: { ids: 'all' } }],
    ['retryQueue', { ids: [4] }, { method: 'POST', path: '/api/queue/retry', body: { ids: [4] } }],
    ['agentStatus', {}, { method: 'GET', path: '/api/agent/status' }],
    ['resumeProvider', {}, { method: 'POST', path: '/api/agent/resume' }],
    ['searchStatus', {}, { method: 'GET', path: '/api/search/status' }],
    ['search', { query: '', kind: 'summary,prompt', project: 'a', limit: 100 }, { method: 'GET', path: '/api/search?kind=summary%2Cprompt&project=a&limit=100' }],
  ];
  for (const [op, params, want] of cases) it(`${op} ${JSON.stringify(params)}`, () => assert.deepEqual(httpFor(op, params), want));

  it('covers every operation', () => {
    const covered = new Set(cases.map((c) => c[0]));
    assert.deepEqual(OP_NAMES.filter((op) => !covered.has(op)), []);
  });

  const bad: [OpName, unknown, RegExp][] = [
    ['observation', {}, /id is required/],
    ['observation', { id: '7' }, /id must be an integer/],
    ['observation', { id: 0 }, /id must be an integer/],
    ['observation', { id: 1.5 }, /id must be an integer/],
    ['deleteObservation', { id: -3 }, /id must be/],
    ['observations', { limit: 5000 }, /limit must be an integer from 1 to 1000/],
    ['observations', { project: 5 }, /project must be a string/],
    ['observations', [], /params must be an object/],
    ['search', { query: 'x', mode: 'psychic' }, /mode must be one of/],
    ['search', { query: 'x'.repeat(2001) }, /query is longer than 2000/],
    ['search', { project: 'a\u0000b' }, /control characters/],
    ['timeline', {}, /anchor is required/],
    ['forgetProject', { name: '   ' }, /name is required/],
    ['saveMemory', { title: 'no text' }, /text is required/],
    ['observationsBatch', { ids: [] }, /ids must be 1 to 500/],
    ['observationsBatch', { ids: [1, 'x'] }, /ids must be 1 to 500/],
    ['observationsBatch', { ids: Array.from({ length: 501 }, (_, i) => i + 1) }, /ids must be 1 to 500/],
    ['health', { extra: 1 }, /no parameters/],
  ];
  for (const [op, params, re] of bad) {
    it(`refuses ${op} ${JSON.stringify(params).slice(0, 60)}`, () => assert.throws(() => httpFor(op, params), (e: Error) => e instanceof ProtocolError && re.test(e.message)));
  }
});

describe('parsePageMessage (host side)', () => {
  it('accepts the page messages', () => {
    assert.deepEqual(parsePageMessage({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parsePageMessage({ type: 'toggleCapture', junk: 1 }), { type: 'toggleCapture' });
    assert.deepEqual(parsePageMessage({ type: 'request', id: 3, op: 'observation', params: { id: 4 } }), { type: 'request', id: 3, op: 'observation', params: { id: 4 } });
    assert.deepEqual(parsePageMessage({ type: 'openFile', path: 'src/a.ts', project: 'alpha' }), { type: 'openFile', path: 'src/a.ts', project: 'alpha' });
    assert.deepEqual(parsePageMessage({ type: 'openFile', path: '/abs/a.ts', line: 12 }), { type: 'openFile', path: '/abs/a.ts', line: 12 });
  });
  it('refuses anything else', () => {
    for (const m of [
      null,
      'ready',
      [],
      {},
      { type: 'nope' },
      { type: 'request', id: 1, op: 'dropTables' },
      { type: 'request', id: -1, op: 'health' },
      { type: 'request', id: '1', op: 'health' },
      { type: 'openFile' },
      { type: 'openFile', path: '' },
      { type: 'openFile', path: 'a\nb' },
      { type: 'openFile', path: 'x'.repeat(5000) },
    ]) {
      assert.equal(parsePageMessage(m), undefined, JSON.stringify(m));
    }
  });
});

describe('parseHostMessage (page side)', () => {
  it('accepts the host messages', () => {
    assert.deepEqual(parseHostMessage({ type: 'hello', capabilities: { openFiles: true, pauseCapture: true }, project: 'alpha', capturePaused: false }), {
      type: 'hello',
      capabilities: { openFiles: true, pauseCapture: true },
      project: 'alpha',
      capturePaused: false,
    });
    assert.deepEqual(parseHostMessage({ type: 'hello' }), { type: 'hello', capabilities: { openFiles: false, pauseCapture: false } });
    assert.deepEqual(parseHostMessage({ type: 'reply', id: 1, ok: true, result: { items: [] } }), { type: 'reply', id: 1, ok: true, result: { items: [] } });
    assert.deepEqual(parseHostMessage({ type: 'reply', id: 1, ok: false, status: 404, error: 'no such observation' }), { type: 'reply', id: 1, ok: false, status: 404, error: 'no such observation' });
    assert.deepEqual(parseHostMessage({ type: 'event', event: { event: 'observation_deleted', data: { id: 3, project: 'a' } } }), {
      type: 'event',
      event: { event: 'observation_deleted', data: { id: 3, project: 'a' } },
    });
    assert.deepEqual(parseHostMessage({ type: 'connection', state: 'no-worker', detail: 'start it' }), { type: 'connection', state: 'no-worker', detail: 'start it' });
    assert.deepEqual(parseHostMessage({ type: 'capture', paused: true }), { type: 'capture', paused: true });
  });
  it('refuses anything else', () => {
    for (const m of [
      undefined,
      { type: 'reply', id: 'x', ok: true },
      { type: 'reply', id: 1 },
      { type: 'event', event: { event: 'rm_rf', data: {} } },
      { type: 'event', event: { event: 'new_observation', data: 'x' } },
      { type: 'connection', state: 'sleepy' },
      { type: 'capture', paused: 'yes' },
      { type: 'other' },
    ]) {
      assert.equal(parseHostMessage(m), undefined, JSON.stringify(m));
    }
  });
});

describe('errorText', () => {
  it('prefers the worker error', () => assert.equal(errorText(404, { error: 'no such observation' }), 'no such observation'));
  it('falls back to a short text body, then to the status', () => {
    assert.equal(errorText(502, 'Bad gateway'), 'Bad gateway');
    assert.equal(errorText(500, { nope: 1 }), 'the worker answered 500');
  });
});

describe('page shell', () => {
  it('escapes what would end the inline script early', () => {
    const js = 'const a = "</script><script>alert(1)</script>"; const b = "<!-- x";';
    const out = inlineScript(js);
    assert.ok(!/<\/script/i.test(out) && !out.includes('<!--'));
    // Still the same program.
    const vm = { a: '', b: '' };
    new Function('vm', out.replace(/const (\w) =/g, 'vm.$1 =')).call(null, vm);
    assert.equal(vm.a, '</script><script>alert(1)</script>');
    assert.equal(vm.b, '<!-- x');
  });

  it('puts the nonce on the script, the CSP in the head, and escapes attributes', () => {
    const html = renderPage({ nonce: 'n"1', csp: webviewCsp('vscode-resource:', 'n"1'), host: 'webview', script: { src: 'https://x/panel.js?a=1&b=2' } });
    assert.match(html, /<script nonce="n&quot;1" src="https:\/\/x\/panel.js\?a=1&amp;b=2"><\/script>/);
    assert.match(html, /http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;|http-equiv="Content-Security-Policy" content="default-src 'none'/);
    assert.match(html, /data-host="webview"/);
  });

  it('keeps the policies strict', () => {
    for (const csp of [webviewCsp('https://file+.vscode-resource.vscode-cdn.net', 'abc'), viewerCsp('abc'), viewerCspHeader('abc')]) {
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'nonce-abc'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    }
    assert.match(viewerCspHeader('abc'), /frame-ancestors 'none'/);
    assert.doesNotMatch(viewerCsp('abc'), /frame-ancestors/, 'ignored (and logged) in a meta tag');
  });
});
