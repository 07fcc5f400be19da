import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

async function allTitles(w: RunningWorker, project: string): Promise<string[]> {
  const titles: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const r = await w.req('GET', `/api/observations?project=${project}&limit=1000&offset=${offset}`);
    titles.push(...r.body.items.map((o: { title: string }) => o.title));
    if (r.body.items.length < 1000) return titles;
  }
}

const post = (w: RunningWorker, i: number) =>
  w.req('POST', '/api/sessions/observations', {
    contentSessionId: 'burst',
    project: 'p-burst',
    tool_name: 'Read',
    tool_input: { file_path: `f${i}.ts` },
    tool_response: `content ${i}`,
    tool_use_id: `t${i}`,
  });

describe('durability', () => {
  it('SIGKILL during a burst of 2,000 observation posts loses no acknowledged observation', async () => {
    const dataDir = tempDir();
    // A small journal threshold so snapshots also run during the burst.
    const env = { CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES: String(256 * 1024) };
    const w = await startWorker({ dataDir, env });
    const acked = new Set<number>();
    let next = 0;
    let killed = false;
    const client = async () => {
      while (next < 2000) {
        const i = next++;
        try {
          const r = await post(w, i);
          if (r.status === 202) acked.add(i);
        } catch {
          /* connection died with the worker: not acknowledged */
        }
        if (!killed && acked.size >= 700) {
          killed = true;
          await w.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    assert.ok(killed, 'the worker was killed mid-burst');
    assert.ok(acked.size >= 700);

    const w2 = await startWorker({ dataDir, env });
    try {
      await until(async () => (await w2.req('GET', '/api/health')).body.queueDepth === 0, 30_000, 'queue to drain');
      const titles = await allTitles(w2, 'p-burst');
      const have = new Set(titles);
      assert.equal(have.size, titles.length, 'no duplicate observations');
      const missing = [...acked].filter((i) => !have.has(`Read f${i}.ts`));
      assert.deepEqual(missing, [], `${missing.length} acknowledged observations lost`);
      // And the worker keeps working after recovery.
      assert.equal((await post(w2, 5000)).status, 202);
    } finally {
      await w2.stop();
    }
  });

  it('a torn journal tail is dropped with a note, not a crash', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    for (let i = 0; i < 20; i++) assert.equal((await post(w, i)).status, 202);
    await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0);
    await w.kill('SIGKILL');
    const dbDir = path.join(dataDir, 'db');
    const seg = fs.readdirSync(dbDir).filter((n) => n.startsWith('journal-')).sort().pop()!;
    const file = path.join(dbDir, seg);
    const full = fs.readFileSync(file);
    // Simulate a crash mid-write: a record header and half its payload.
    fs.appendFileSync(file, Buffer.concat([full.subarray(0, 12), Buffer.from('{"half": ')]));
    const w2 = await startWorker({ dataDir });
    try {
      const ready = await w2.req('GET', '/api/readiness');
      assert.equal(ready.body.ready, true);
      assert.match(ready.body.recovery.problems.join('\n'), /torn or damaged tail/);
      const titles = await allTitles(w2, 'p-burst');
      assert.equal(titles.length, 20);
      assert.equal((await post(w2, 21)).status, 202);
    } finally {
      await w2.stop();
    }
  });

  it('a graceful stop releases the lock and loses nothing: a restart has every write', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    for (let i = 0; i < 5; i++) await post(w, i);
    await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0);
    assert.equal(await w.stop(), 0);
    assert.ok(!fs.existsSync(path.join(dataDir, 'worker.pid')), 'lock released');
    // A small journal is not turned into a snapshot on the way out: the next start replays it.
    const w2 = await startWorker({ dataDir });
    try {
      const ready = await w2.req('GET', '/api/readiness');
      assert.equal(ready.body.ready, true);
      assert.deepEqual(ready.body.recovery.problems, []);
      assert.equal((await allTitles(w2, 'p-burst')).length, 5);
      assert.equal((await post(w2, 6)).status, 202);
    } finally {
      await w2.stop();
    }
  });
});
