// Retention and recovery that never deletes evidence: one damaged file never
// loses everything; when recovery cannot rebuild acknowledged data, the worker says so, keeps every
// file, refuses writes, and `claude-mem recover` rebuilds from the surviving journals.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { CLI_JS, startWorker, tempDir, type RunningWorker } from '../helpers/worker';
import { faultCase } from './record';

const F = __filename;
const dbDir = (d: string) => path.join(d, 'db');
const files = (d: string, prefix: string) => fs.readdirSync(dbDir(d)).filter((n) => n.startsWith(prefix)).sort();

async function addMemories(w: RunningWorker, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) assert.equal((await w.req('POST', '/api/memory/save', { text: `memory ${i}`, project: 'ret' })).status, 201);
}

async function memories(w: RunningWorker): Promise<string[]> {
  const r = await w.req('GET', '/api/observations?project=ret&limit=1000');
  return r.body.items.map((o: { narrative: string }) => o.narrative).sort();
}

const expected = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `memory ${from + i}`).sort();

it('one graceful run, the snapshot its writes went into truncated: every memory is back (the journal it was built from is kept)', async () => {
  await faultCase(F, 'damaged files', 'the first checkpoint truncated after the first stop', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    await addMemories(w, 0, 20);
    // The first checkpoint (a stop writes none itself), then the stop.
    assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
    await w.stop();
    // The first start's snapshot of an empty store (the page cache serves a data dir from its first
    // start) and the checkpoint that holds the 20 memories.
    const snaps = files(dataDir, 'snapshot-');
    assert.equal(snaps.length, 2);
    const snap = path.join(dbDir(dataDir), snaps[1]);
    fs.truncateSync(snap, Math.floor(fs.statSync(snap).size / 2));
    const w2 = await startWorker({ dataDir });
    try {
      const ready = (await w2.req('GET', '/api/readiness')).body;
      assert.deepEqual(await memories(w2), expected(20), `readiness: ${JSON.stringify(ready)}`);
      assert.equal(ready.ready, true);
      return `all 20 memories back from the journal kept beside the first snapshot; reported: "${ready.recovery.problems.join('; ')}"`;
    } finally {
      await w2.stop();
    }
  });
});

it('every snapshot damaged and the early journals compacted: not ready, read-only, nothing deleted; recover --accept-loss starts with what survives', async () => {
  await faultCase(F, 'damaged files', 'all snapshots damaged, early journals compacted', async () => {
    const dataDir = tempDir();
    for (let run = 0; run < 4; run++) {
      const w = await startWorker({ dataDir });
      await addMemories(w, run * 5, 5);
      assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
      await w.stop();
    }
    const segmentsBefore = files(dataDir, 'journal-');
    const snaps = files(dataDir, 'snapshot-');
    assert.ok(snaps.length >= 2);
    for (const s of snaps) fs.truncateSync(path.join(dbDir(dataDir), s), 100);
    const w = await startWorker({ dataDir });
    let sentence = '';
    try {
      const ready = (await w.req('GET', '/api/readiness')).body;
      assert.equal(ready.ready, false, JSON.stringify(ready));
      assert.equal(ready.storage, 'degraded');
      assert.match(ready.message, /claude-mem recover/);
      sentence = ready.message;
      const write = await w.req('POST', '/api/memory/save', { text: 'new', project: 'ret' });
      assert.equal(write.status, 503);
      assert.match(write.body.error, /degraded|read-only/);
    } finally {
      await w.stop();
    }
    // Nothing deleted: every journal is still where it was, the damaged snapshots are in damaged/.
    for (const s of segmentsBefore) assert.ok(fs.existsSync(path.join(dbDir(dataDir), s)), `${s} kept`);
    const damaged = fs.readdirSync(path.join(dbDir(dataDir), 'damaged'));
    for (const s of snaps) assert.ok(damaged.some((n) => n.startsWith(s)), `${s} moved to damaged/`);
    // A second start says the same (the loss does not disappear because the bad files were moved).
    const again = await startWorker({ dataDir });
    try {
      assert.equal((await again.req('GET', '/api/readiness')).body.ready, false);
    } finally {
      await again.stop();
    }
    const dry = spawnSync(process.execPath, [CLI_JS, 'recover'], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir }, encoding: 'utf8' });
    assert.equal(dry.status, 3, dry.stdout + dry.stderr);
    assert.match(dry.stdout, /--accept-loss/);
    const accept = spawnSync(process.execPath, [CLI_JS, 'recover', '--accept-loss'], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir }, encoding: 'utf8' });
    assert.equal(accept.status, 0, accept.stdout + accept.stderr);
    const after = await startWorker({ dataDir });
    try {
      const ready = (await after.req('GET', '/api/readiness')).body;
      assert.equal(ready.ready, true, JSON.stringify(ready));
      const got = await memories(after);
      // The memories whose records survive in journals after the compacted ones are back.
      assert.ok(got.length >= 5, `recovered ${got.length}`);
      await addMemories(after, 100, 1);
      return `not ready: "${sentence}"; writes 503; ${segmentsBefore.length} journals kept, ${snaps.length} snapshots in damaged/; recover --accept-loss rebuilt ${got.length}/20 from surviving journals`;
    } finally {
      await after.stop();
    }
  });
});
