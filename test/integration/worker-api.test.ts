import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startWorker, until, type RunningWorker } from '../helpers/worker';
import { assertLinearAsync, processCpuMs } from '../helpers/linear';

let w: RunningWorker;
before(async () => {
  w = await startWorker();
});
after(async () => {
  await w.stop();
});

const obs = (sid: string, extra: Record<string, unknown> = {}) => ({
  contentSessionId: sid,
  cwd: '/home/u/projects/alpha',
  tool_name: 'Edit',
  tool_input: { file_path: '/home/u/projects/alpha/src/a.ts', old_string: 'a', new_string: 'b' },
  tool_response: 'ok',
  ...extra,
});

describe('sessions', () => {
  it('init is idempotent per (platform, session) and numbers prompts', async () => {
    const a = await w.req('POST', '/api/sessions/init', { contentSessionId: 'idem', project: 'p-idem', prompt: 'first' });
    const b = await w.req('POST', '/api/sessions/init', { contentSessionId: 'idem', project: 'p-idem', prompt: 'second' });
    const c = await w.req('POST', '/api/sessions/init', { contentSessionId: 'idem', project: 'p-idem', prompt: 'third', platform: 'vscode' });
    assert.equal(a.status, 200);
    assert.equal(a.body.sessionDbId, b.body.sessionDbId);
    assert.deepEqual([a.body.promptNumber, b.body.promptNumber], [1, 2]);
    assert.notEqual(c.body.sessionDbId, a.body.sessionDbId, 'another platform is another session');
    assert.equal(c.body.promptNumber, 1);
    const sessions = await w.req('GET', '/api/sessions?project=p-idem');
    assert.equal(sessions.body.items.length, 2);
  });

  it('derives the project from cwd when not given', async () => {
    const r = await w.req('POST', '/api/sessions/init', { contentSessionId: 'cwd1', cwd: '/tmp/some/where/projname', prompt: 'x' });
    assert.equal(r.body.project, 'projname');
  });

  it('queues an observation, processes it locally, and creates unknown sessions', async () => {
    const r = await w.req('POST', '/api/sessions/observations', obs('never-inited'));
    assert.equal(r.status, 202);
    assert.equal(r.body.queued, true);
    const list = await until(async () => {
      const l = await w.req('GET', '/api/observations?project=alpha');
      return l.body.items.length > 0 ? l : undefined;
    });
    const o = list.body.items[0];
    assert.equal(o.title, 'Edited src/a.ts');
    assert.deepEqual(o.filesModified, ['src/a.ts']);
    const one = await w.req('GET', `/api/observation/${o.id}`);
    assert.equal(one.body.id, o.id);
    const dup = await w.req('POST', '/api/sessions/observations', obs('never-inited'));
    assert.deepEqual(dup.body, { skipped: 'duplicate' });
  });

  it('skips tools on the skip list', async () => {
    const r = await w.req('POST', '/api/sessions/observations', obs('skip', { tool_name: 'TodoWrite' }));
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { skipped: 'skip_list' });
  });

  it('summarize and complete', async () => {
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'sum1', project: 'p-sum', prompt: 'make the build faster' });
    await w.req('POST', '/api/sessions/observations', { ...obs('sum1'), project: 'p-sum' });
    const s = await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'sum1', project: 'p-sum', last_user_message: 'make the build faster', last_assistant_message: 'Done: cached the bundle.' });
    assert.equal(s.status, 202);
    const c = await w.req('POST', '/api/sessions/complete', { contentSessionId: 'sum1', project: 'p-sum', reason: 'exit' });
    assert.equal(c.body.status, 'completed');
    const exp = await until(async () => {
      const e = await w.req('GET', '/api/export?project=p-sum');
      return e.body.sessions[0].summaries.length > 0 ? e : undefined;
    });
    assert.equal(exp.body.sessions[0].summaries[0].request, 'make the build faster');
    assert.equal(exp.body.sessions[0].status, 'completed');
  });

  it('saves a manual memory at once', async () => {
    const r = await w.req('POST', '/api/memory/save', { text: 'Deploys need VPN <private>pw=hunter2</private>', title: 'Deploy note', project: 'p-man' });
    assert.equal(r.status, 201);
    const o = await w.req('GET', `/api/observation/${r.body.id}`);
    assert.equal(o.body.title, 'Deploy note');
    assert.ok(!o.body.narrative.includes('hunter2'));
    const again = await w.req('POST', '/api/memory/save', { text: 'Deploys need VPN <private>pw=hunter2</private>', title: 'Deploy note', project: 'p-man' });
    assert.equal(again.body.duplicate, true);
    const empty = await w.req('POST', '/api/memory/save', { text: '<private>only</private>' });
    assert.equal(empty.status, 400);
  });
});

describe('privacy', () => {
  it('strips private and context tags (multiline, attributes) before storing', async () => {
    const prompt = 'fix the <private reason="creds">\nAPI_KEY=abc\n</private> login <claude-mem-context>\nold context\n</claude-mem-context>bug';
    const r = await w.req('POST', '/api/sessions/init', { contentSessionId: 'priv1', project: 'p-priv', prompt });
    assert.equal(r.status, 200);
    const o = await w.req('POST', '/api/sessions/observations', {
      contentSessionId: 'priv1',
      project: 'p-priv',
      tool_name: 'Bash',
      tool_input: { command: 'echo <PRIVATE>token-123</PRIVATE> done' },
      tool_response: 'line1\n<private>\nsecret-output\n</private>\nline2',
    });
    assert.equal(o.status, 202);
    const exp = await until(async () => {
      const e = await w.req('GET', '/api/export?project=p-priv');
      return e.body.sessions[0]?.observations.length > 0 ? e : undefined;
    });
    const text = JSON.stringify(exp.body);
    for (const secret of ['API_KEY', 'abc\\n', 'old context', 'token-123', 'secret-output']) assert.ok(!text.includes(secret), `${secret} leaked`);
    assert.equal(exp.body.sessions[0].prompts[0].text, 'fix the  login bug');
  });

  it('a fully private prompt is not stored and suppresses its observations', async () => {
    const r = await w.req('POST', '/api/sessions/init', { contentSessionId: 'priv2', project: 'p-priv2', prompt: '<private>all of it</private>' });
    assert.equal(r.body.skipped, 'private_prompt');
    const o = await w.req('POST', '/api/sessions/observations', { ...obs('priv2'), project: 'p-priv2' });
    assert.deepEqual(o.body, { skipped: 'private_prompt' });
    const next = await w.req('POST', '/api/sessions/init', { contentSessionId: 'priv2', project: 'p-priv2', prompt: 'a normal prompt' });
    assert.equal(next.body.promptNumber, 2);
    const o2 = await w.req('POST', '/api/sessions/observations', { ...obs('priv2', { tool_input: { file_path: 'x.ts', old_string: '1', new_string: '2' } }), project: 'p-priv2' });
    assert.equal(o2.status, 202);
    const exp = await w.req('GET', '/api/export?project=p-priv2');
    assert.deepEqual(exp.body.sessions[0].prompts.map((p: { text: string }) => p.text), ['a normal prompt']);
  });

  it('a 1 MB adversarial prompt is stored, cut to 100,000 characters, in worker CPU time linear in its size (against 1/16 of it)', async () => {
    // '<private' never followed by '>' opens no block: the text is kept, cut to the prompt cap.
    const make = (k: number) => '<private'.repeat(8_192 * k);
    let n = 0;
    await assertLinearAsync(
      make,
      async (evil) => {
        const r = await w.req('POST', '/api/sessions/init', { contentSessionId: `evil-${n++}`, project: 'p-evil', prompt: evil });
        assert.equal(r.status, 200);
        assert.equal(r.body.skipped, undefined);
      },
      () => processCpuMs(w.proc.pid!),
    );
    const exp = await w.req('GET', '/api/export?project=p-evil');
    const texts: string[] = exp.body.sessions.map((s: { prompts: { text: string }[] }) => s.prompts[0].text);
    assert.equal(texts.length, n);
    for (const t of texts) {
      assert.ok(t.length <= 100_000, `${t.length} characters`);
      assert.ok(t.startsWith('<private'.repeat(4_000)), `${t.length}: ${t.slice(0, 40)}…${t.slice(-40)}`);
    }
  });
});

describe('security and bad input', () => {
  const raw = (p: string, init: RequestInit = {}) => fetch(w.url + p, init);

  it('401 without or with a wrong token; health is open', async () => {
    assert.equal((await raw('/api/health')).status, 200);
    assert.equal((await raw('/api/stats')).status, 401);
    assert.equal((await raw('/api/stats', { headers: { authorization: 'Bearer nope' } })).status, 401);
    const r = await raw('/api/sessions/init', { method: 'POST', body: '{}' });
    assert.equal(r.status, 401);
    assert.ok(((await r.json()) as { error: string }).error);
  });

  it('403 for a foreign Host or Origin', async () => {
    // fetch cannot set Host, so use node:http for the DNS-rebinding case.
    const withHost = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const rq = http.request({ host: '127.0.0.1', port: w.port, path: '/api/stats', headers: { host, authorization: `Bearer ${w.token}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        rq.on('error', reject);
        rq.end();
      });
    assert.equal(await withHost('evil.example'), 403);
    assert.equal(await withHost(`evil.example:${w.port}`), 403);
    assert.equal(await withHost(`localhost:${w.port}`), 200);
    assert.equal((await w.req('GET', '/api/stats', undefined, { origin: 'http://evil.example' })).status, 403);
    assert.equal((await w.req('GET', '/api/stats', undefined, { origin: 'http://127.0.0.1:1' })).status, 403);
    assert.equal((await w.req('GET', '/api/stats', undefined, { origin: 'vscode-webview://abc' })).status, 200);
    assert.equal((await w.req('GET', '/api/stats', undefined, { origin: w.url })).status, 200);
  });

  it('413 for a body over the cap', async () => {
    const big = JSON.stringify({ contentSessionId: 'big', tool_name: 'Read', tool_response: 'x'.repeat(9 * 1024 * 1024) });
    const r = await w.req('POST', '/api/sessions/observations', big);
    assert.equal(r.status, 413);
    assert.ok(r.body.error);
  });

  it('413 for a chunked body (no length declared) that grows past the cap, and the worker goes on', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const rq = http.request(
        { host: '127.0.0.1', port: w.port, method: 'POST', path: '/api/sessions/observations', headers: { authorization: `Bearer ${w.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      rq.on('error', reject);
      const chunk = 'x'.repeat(1024 * 1024);
      rq.write('{"contentSessionId":"chunked","tool_name":"Read","tool_response":"');
      let sent = 0;
      const more = () => {
        // Keep sending until the worker answers (it must not wait for the end of the body).
        while (sent < 64 && rq.write(chunk)) sent++;
        if (sent < 64) rq.once('drain', more);
        else rq.end('"}');
      };
      more();
    });
    assert.equal(status, 413);
    assert.equal((await w.req('GET', '/api/health')).status, 200);
  });

  it('malformed JSON, missing and wrong-typed fields get 4xx with {error} and change nothing', async () => {
    const before = await w.req('GET', '/api/export');
    const cases: [string, string, unknown][] = [
      ['POST', '/api/sessions/init', '{"contentSessionId": '],
      ['POST', '/api/sessions/init', ''],
      ['POST', '/api/sessions/init', []],
      ['POST', '/api/sessions/init', { prompt: 'no id' }],
      ['POST', '/api/sessions/init', { contentSessionId: 42 }],
      ['POST', '/api/sessions/init', { contentSessionId: '' }],
      ['POST', '/api/sessions/init', { contentSessionId: 'x', prompt: 7 }],
      ['POST', '/api/sessions/observations', { contentSessionId: 'x' }],
      ['POST', '/api/sessions/observations', { contentSessionId: 'x', tool_name: ['Read'] }],
      ['POST', '/api/sessions/summarize', { contentSessionId: null }],
      ['POST', '/api/sessions/complete', { contentSessionId: 'x', reason: 5 }],
      ['POST', '/api/memory/save', { text: 5 }],
      ['POST', '/api/import', { format: 'something-else' }],
      ['POST', '/api/import', { format: 'claude-mem-vscode/export', version: 1, sessions: [{ platform: 'x' }] }],
      ['GET', '/api/observations?limit=abc', undefined],
      ['GET', '/api/observations?limit=-1', undefined],
      ['GET', '/api/observation/abc', undefined],
      ['GET', '/api/observation/0', undefined],
      ['DELETE', '/api/observation/999999', undefined],
      ['DELETE', '/api/projects/nope-nope', undefined],
      ['GET', '/api/no-such-route', undefined],
    ];
    for (const [method, p, body] of cases) {
      const r = await w.req(method, p, body);
      assert.ok(r.status >= 400 && r.status < 500, `${method} ${p} ${JSON.stringify(body)} -> ${r.status}`);
      assert.equal(typeof r.body.error, 'string', `${method} ${p} has an error message`);
    }
    const afterExp = await w.req('GET', '/api/export');
    assert.deepEqual({ ...afterExp.body, exportedAt: 0 }, { ...before.body, exportedAt: 0 });
  });
});

describe('curating, export and import', () => {
  it('export, import into a fresh worker, import again adds nothing', async () => {
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'exp1', project: 'p-exp', prompt: 'exported prompt' });
    await w.req('POST', '/api/sessions/observations', { ...obs('exp1'), project: 'p-exp' });
    await until(async () => (await w.req('GET', '/api/observations?project=p-exp')).body.items.length > 0);
    const exp = await w.req('GET', '/api/export');
    const other = await startWorker();
    try {
      const first = await other.req('POST', '/api/import', exp.body);
      assert.equal(first.status, 200);
      assert.ok(first.body.imported.observations > 0);
      const second = await other.req('POST', '/api/import', exp.body);
      assert.deepEqual(second.body.imported, { sessions: 0, prompts: 0, observations: 0, summaries: 0 });
      const back = await other.req('GET', '/api/export');
      const strip = (d: { sessions: unknown[] }) => JSON.stringify(d.sessions);
      assert.equal(strip(back.body), strip(exp.body));
    } finally {
      await other.stop();
    }
  });

  it('deletes an observation and forgets a project with everything in it', async () => {
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'del1', project: 'p-del', prompt: 'p' });
    await w.req('POST', '/api/sessions/observations', { ...obs('del1'), project: 'p-del' });
    await w.req('POST', '/api/sessions/observations', { ...obs('del1', { tool_input: { file_path: 'b.ts', old_string: 'x', new_string: 'y' } }), project: 'p-del' });
    const items = (await until(async () => {
      const l = await w.req('GET', '/api/observations?project=p-del');
      return l.body.items.length === 2 ? l : undefined;
    })).body.items;
    assert.equal((await w.req('DELETE', `/api/observation/${items[0].id}`)).status, 200);
    assert.equal((await w.req('GET', `/api/observation/${items[0].id}`)).status, 404);
    const gone = await w.req('DELETE', '/api/projects/p-del');
    assert.equal(gone.status, 200);
    assert.equal((await w.req('GET', '/api/observations?project=p-del')).body.items.length, 0);
    assert.ok(!(await w.req('GET', '/api/projects')).body.projects.some((p: { name: string }) => p.name === 'p-del'));
  });
});

describe('stream', () => {
  it('sends session, prompt, queued and observation events', async () => {
    const ac = new AbortController();
    const r = await fetch(`${w.url}/stream`, { signal: ac.signal, headers: { authorization: `Bearer ${w.token}` } });
    assert.equal(r.status, 200);
    const reader = r.body!.getReader();
    let text = '';
    const seen = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (/event: new_observation/.test(text)) return;
      }
    })();
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'sse1', project: 'p-sse', prompt: 'stream me' });
    await w.req('POST', '/api/sessions/observations', { ...obs('sse1'), project: 'p-sse' });
    await Promise.race([seen, new Promise((_, rej) => setTimeout(() => rej(new Error(`no events: ${text}`)), 5000))]);
    ac.abort();
    for (const e of ['session_started', 'new_prompt', 'observation_queued', 'new_observation']) assert.match(text, new RegExp(`event: ${e}`));
  });

  it('forgetting a session sends session_forgotten, forgetting a project project_deleted (glossary: forget)', async () => {
    const ac = new AbortController();
    const r = await fetch(`${w.url}/stream`, { signal: ac.signal, headers: { authorization: `Bearer ${w.token}` } });
    const reader = r.body!.getReader();
    let text = '';
    const until = (re: RegExp) =>
      Promise.race([
        (async () => {
          while (!re.test(text)) {
            const { value, done } = await reader.read();
            if (done) break;
            text += new TextDecoder().decode(value);
          }
        })(),
        new Promise((_, rej) => setTimeout(() => rej(new Error(`no ${re}: ${text}`)), 5000)),
      ]);
    const init = await w.req('POST', '/api/sessions/init', { contentSessionId: 'forget-1', project: 'p-forget', prompt: 'one' });
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'forget-2', project: 'p-forget', prompt: 'two' });
    assert.equal((await w.req('DELETE', `/api/session/${init.body.sessionDbId}`)).status, 200);
    await until(/event: session_forgotten\ndata: [^\n]*/);
    const data = JSON.parse(/event: session_forgotten\ndata: ([^\n]*)/.exec(text)![1]);
    assert.deepEqual(data, { project: 'p-forget', sessionDbId: init.body.sessionDbId });
    assert.doesNotMatch(text, /event: project_deleted/, 'one session is not the project');
    assert.equal((await w.req('DELETE', '/api/projects/p-forget')).status, 200);
    await until(/event: project_deleted\ndata: [^\n]*/);
    assert.deepEqual(JSON.parse(/event: project_deleted\ndata: ([^\n]*)/.exec(text)![1]), { project: 'p-forget', sessions: 1 });
    ac.abort();
  });
});
