// The compression queue waits while write requests are being answered, but a write that never
// finishes (here: a client that sends half its body and stalls) must not starve it.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, it } from 'node:test';
import { startWorker, until, type RunningWorker } from '../helpers/worker';

let w: RunningWorker | undefined;
after(async () => w?.stop());

it('observations are compressed while a write request stays in flight', { timeout: 120_000 }, async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off' } });
  const worker = w;
  const body = Buffer.from(JSON.stringify({ contentSessionId: 'stalled', project: 'yield', tool_name: 'Read', tool_input: { file_path: 'slow.ts' }, tool_response: 'late' }));
  const stalled = http.request({
    host: '127.0.0.1',
    port: worker.port,
    method: 'POST',
    path: '/api/sessions/observations',
    headers: { authorization: `Bearer ${worker.token}`, 'content-type': 'application/json', 'content-length': body.length },
  });
  const answered = new Promise<number>((resolve, reject) => {
    stalled.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    stalled.on('error', reject);
  });
  stalled.write(body.subarray(0, 10));
  stalled.flushHeaders();
  try {
    for (let n = 0; n < 10; n++) {
      const r = await worker.req('POST', '/api/sessions/observations', { contentSessionId: 'busy', project: 'yield', tool_name: 'Read', tool_input: { file_path: `f${n}.ts` }, tool_response: `content ${n}` });
      assert.equal(r.status, 202);
    }
    await until(async () => Number((await worker.req('GET', '/api/stats')).body.observations) === 10, 30_000, 'the queue stayed stalled behind a write in flight');
  } finally {
    stalled.end(body.subarray(10));
  }
  assert.equal(await answered, 202, 'the slow request is answered once its body arrives');
});
