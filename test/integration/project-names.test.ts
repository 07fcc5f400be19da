// Project names "." and ".." (and empty ones, separators, control characters) are refused when a
// client gives them; a project already stored under such a name can still be forgotten.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { Store } from '../../worker/store/store';
import { startWorker, tempDir } from '../helpers/worker';

const BAD = ['.', '..', 'a/b', 'a\\b', 'bell\u0007', 'del\u007f'];

function rawDelete(port: number, token: string, p: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'DELETE', path: p, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('project names', () => {
  it('names a route could not address are refused with a 400 on save, session start and import', async () => {
    const w = await startWorker();
    try {
      for (const name of BAD) {
        const save = await w.req('POST', '/api/memory/save', { text: 'note', project: name });
        assert.equal(save.status, 400, `save ${JSON.stringify(name)}: ${JSON.stringify(save.body)}`);
        assert.match(save.body.error, /project/);
        const init = await w.req('POST', '/api/sessions/init', { contentSessionId: `s-${BAD.indexOf(name)}`, project: name, prompt: 'hi' });
        assert.equal(init.status, 400, `init ${JSON.stringify(name)}: ${JSON.stringify(init.body)}`);
      }
      const doc = (await w.req('GET', '/api/export')).body;
      const session = { platform: 'claude-code', contentSessionId: 'imp', project: '..', cwd: null, status: 'completed', promptCounter: 0, startedAt: 1, updatedAt: 1, completedAt: 1, completionReason: null, prompts: [], observations: [], summaries: [] };
      const imp = await w.req('POST', '/api/import', { ...doc, sessions: [session] });
      assert.equal(imp.status, 400, JSON.stringify(imp.body));
      assert.match(imp.body.error, /project must not be "\." or "\.\."/);
      assert.deepEqual((await w.req('GET', '/api/projects')).body.projects, []);
      // A name with a dot in it is fine.
      assert.equal((await w.req('POST', '/api/memory/save', { text: 'note', project: '.dotfiles' })).status, 201);
    } finally {
      await w.stop();
    }
  });

  it('a project stored as "." or ".." (before this check) can be forgotten, percent-encoded or not', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    for (const p of ['dot', 'dotdot', 'dotdot2']) assert.equal((await w.req('POST', '/api/memory/save', { text: `note in ${p}`, project: p })).status, 201);
    await w.stop();
    // What an older worker let a client store: renamed in the store itself.
    const store = await Store.open({ dir: path.join(dataDir, 'db'), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
    await store.write((tx) => {
      for (const [from, to] of [['dot', '.'], ['dotdot', '..'], ['dotdot2', '..']] as const) {
        tx.run('UPDATE sessions SET project = ? WHERE project = ?', [to, from]);
        tx.run('UPDATE observations SET project = ? WHERE project = ?', [to, from]);
      }
    });
    await store.close(true);
    const w2 = await startWorker({ dataDir });
    try {
      const names = () => w2.req('GET', '/api/projects').then((r) => (r.body.projects as { name: string }[]).map((p) => p.name).sort());
      assert.deepEqual(await names(), ['.', '..']);
      const dd = await rawDelete(w2.port, w2.token, '/api/projects/%2e%2e');
      assert.equal(dd.status, 200, JSON.stringify(dd.body));
      assert.deepEqual(dd.body, { deleted: '..', sessions: 2 });
      const d = await rawDelete(w2.port, w2.token, '/api/projects/.');
      assert.equal(d.status, 200, JSON.stringify(d.body));
      assert.deepEqual(await names(), []);
      assert.equal((await rawDelete(w2.port, w2.token, '/api/projects/%2E%2E')).status, 404, 'gone now');
    } finally {
      await w2.stop();
    }
  });
});
