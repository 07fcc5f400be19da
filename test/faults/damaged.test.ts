// Damaged files: the worker starts with the most data it can recover, says what it could not,
// and never overwrites the only good copy.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { it } from 'node:test';
import { CLI_JS, copyDataDir, startWorker, tempDir, WORKER_JS, type RunningWorker } from '../helpers/worker';
import { faultCase } from './record';

const F = __filename;

async function addMemories(w: RunningWorker, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) assert.equal((await w.req('POST', '/api/memory/save', { text: `memory ${i}`, project: 'dmg' })).status, 201);
}

async function memories(w: RunningWorker): Promise<string[]> {
  const r = await w.req('GET', '/api/observations?project=dmg&limit=1000');
  return r.body.items.map((o: { narrative: string }) => o.narrative).sort();
}

const expected = (n: number) => Array.from({ length: n }, (_, i) => `memory ${i}`).sort();
const dbDir = (d: string) => path.join(d, 'db');
const newest = (d: string, prefix: string) => fs.readdirSync(dbDir(d)).filter((n) => n.startsWith(prefix)).sort().pop() as string;

/**
 * Two runs, each checkpointed before its graceful stop (a stop writes none itself): two snapshots, 20
 * memories. Built once; each case gets its own copy.
 */
let twoSnapshotsDir: Promise<string> | undefined;
async function twoSnapshots(): Promise<string> {
  twoSnapshotsDir ??= (async () => {
    const dataDir = tempDir();
    let w = await startWorker({ dataDir });
    await addMemories(w, 0, 10);
    assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
    await w.stop();
    w = await startWorker({ dataDir });
    await addMemories(w, 10, 10);
    assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
    await w.stop();
    return dataDir;
  })();
  return copyDataDir(await twoSnapshotsDir);
}

for (const [name, damage] of [
  ['a truncated snapshot', (f: string) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2))],
  ['a snapshot of random bytes', (f: string) => fs.writeFileSync(f, Buffer.from(Array.from({ length: fs.statSync(f).size }, () => Math.floor(Math.random() * 256))))],
] as const) {
  it(`recovers from ${name}`, async () => {
    await faultCase(F, 'damaged files', name, async () => {
      const dataDir = await twoSnapshots();
      const snap = newest(dataDir, 'snapshot-');
      const file = path.join(dbDir(dataDir), snap);
      damage(file);
      const w = await startWorker({ dataDir });
      try {
        assert.deepEqual(await memories(w), expected(20));
        const ready = (await w.req('GET', '/api/readiness')).body;
        const problems = ready.recovery.problems.join('; ');
        assert.match(problems, new RegExp(`${snap} unusable`));
        assert.equal(fs.readdirSync(path.join(dbDir(dataDir), 'damaged')).length, 1, 'the damaged file is kept aside, not deleted');
        return `all 20 memories back from the previous snapshot + journal; reported: "${problems}"`;
      } finally {
        await w.stop();
      }
    });
  });
}

it('recovers from a torn journal and from a corrupted record in the middle', async () => {
  await faultCase(F, 'damaged files', 'torn journal + corrupted middle record', async () => {
    const dataDir = tempDir();
    const w = await startWorker({ dataDir });
    await addMemories(w, 0, 30);
    await w.kill('SIGKILL');
    const seg = path.join(dbDir(dataDir), newest(dataDir, 'journal-'));
    const buf = fs.readFileSync(seg);
    // Corrupt one byte in the middle of the memories' records (a fresh journal starts with the
    // schema's migration records, which now fill its first half), and tear the tail.
    const mid = buf.indexOf('memory 15') > 0 ? buf.indexOf('memory 15') : Math.floor(buf.length / 2);
    buf[mid] ^= 0xff;
    fs.writeFileSync(seg, Buffer.concat([buf, buf.subarray(0, 20)]));
    const w2 = await startWorker({ dataDir });
    try {
      const got = await memories(w2);
      const problems = (await w2.req('GET', '/api/readiness')).body.recovery.problems as string[];
      assert.ok(got.length >= 28 && got.length < 30, `recovered ${got.length} of 30`);
      assert.ok(problems.some((p) => /skipped \d+ damaged bytes/.test(p)), problems.join('; '));
      assert.ok(problems.some((p) => /torn or damaged tail/.test(p)), problems.join('; '));
      assert.equal(fs.readdirSync(path.join(dbDir(dataDir), 'damaged')).length, 1, 'a copy of the damaged journal is kept');
      // An acknowledged record is gone: not ready, read-only, until a human accepts the loss.
      const ready = (await w2.req('GET', '/api/readiness')).body;
      assert.equal(ready.ready, false);
      assert.equal(ready.storage, 'degraded');
      assert.equal((await w2.req('POST', '/api/memory/save', { text: 'memory 100', project: 'dmg' })).status, 503);
      await w2.stop();
      const accept = spawnSync(process.execPath, [CLI_JS, 'recover', '--accept-loss'], { env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir }, encoding: 'utf8' });
      assert.equal(accept.status, 0, accept.stdout + accept.stderr);
      const w3 = await startWorker({ dataDir });
      try {
        assert.equal((await w3.req('GET', '/api/readiness')).body.ready, true);
        assert.equal((await memories(w3)).length, got.length);
        await addMemories(w3, 100, 1);
      } finally {
        await w3.stop();
      }
      return `recovered ${got.length}/30 memories (the damaged record's only); not ready ("degraded") until recover --accept-loss; reported: ${problems.join('; ')}`;
    } finally {
      await w2.stop();
    }
  });
});

it('creates a missing data dir', async () => {
  await faultCase(F, 'damaged files', 'missing data dir', async () => {
    const dataDir = path.join(tempDir(), 'does', 'not', 'exist');
    const w = await startWorker({ dataDir });
    try {
      await addMemories(w, 0, 1);
      return `created ${path.basename(dataDir)} (mode ${(fs.statSync(dataDir).mode & 0o777).toString(8)}) and stored`;
    } finally {
      await w.stop();
    }
  });
});

it('refuses a read-only data dir with a clear message and touches nothing', async () => {
  await faultCase(F, 'damaged files', 'read-only data dir', async () => {
    const dataDir = await twoSnapshots();
    const listing = () => fs.readdirSync(dbDir(dataDir)).map((n) => `${n}:${fs.statSync(path.join(dbDir(dataDir), n)).size}`).sort().join(',');
    const before = listing();
    // Root ignores permissions, so run the worker as nobody against a dir it can read but not write.
    execFileSync('chmod', ['-R', 'a+rX,go-w', dataDir]);
    // The parent must let nobody in; never chmod the machine's tmp dir itself (it is 1777: 0755
    // took its sticky, world-writable bit away, and apt-get, which writes there as _apt, failed after).
    if (path.resolve(path.dirname(dataDir)) !== path.resolve(os.tmpdir())) fs.chmodSync(path.dirname(dataDir), 0o755);
    const asNobody = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
    // nobody may not be able to enter the clone (mktemp -d makes 0700 dirs): run a readable copy of the build.
    let workerJs = WORKER_JS;
    if (asNobody.length) {
      const copy = tempDir('cmem-dist-');
      fs.cpSync(path.dirname(WORKER_JS), copy, { recursive: true, filter: (f) => !f.endsWith('.map') && !f.includes('embed-model') });
      execFileSync('chmod', ['-R', 'a+rX', copy]);
      workerJs = path.join(copy, path.basename(WORKER_JS));
    }
    const r = spawnSync(asNobody[0] ?? process.execPath, [...asNobody.slice(1), ...(asNobody.length ? [process.execPath] : []), workerJs], {
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: dataDir, CLAUDE_MEM_WORKER_PORT: '0', HOME: '/tmp' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    // Run as nobody, the data dir is root's: refused for its owner before its mode matters.
    assert.match(r.stderr, /refuses to start: the data dir must belong to you alone\.\n {2}.*(belongs to uid \d+, not to you|is not writable)/);
    assert.equal(listing(), before, 'nothing in the data dir changed');
    return `exit 1: "${r.stderr.trim().slice(0, 140)}"`;
  });
});

it('a full disk: writes fail cleanly, reads go on, nothing acknowledged is lost', async () => {
  await faultCase(F, 'damaged files', 'full disk (2 MB tmpfs)', async () => {
    const mnt = tempDir('cmem-full-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt]);
    try {
      const dataDir = path.join(mnt, 'data');
      const w = await startWorker({ dataDir, env: { CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES: String(1 << 30) } });
      const acked: number[] = [];
      let failedStatus = 0;
      let failedAt = -1;
      for (let i = 0; i < 5000 && failedStatus === 0; i++) {
        const r = await w.req('POST', '/api/memory/save', { text: `memory ${i} ${'x'.repeat(2000)}`, project: 'dmg' }).catch((e: Error) => {
          throw new Error(`${e.message} at write ${i}; the worker said:\n${w.stdout().slice(-3000)}`);
        });
        if (r.status === 201) acked.push(i);
        else [failedStatus, failedAt] = [r.status, i];
      }
      assert.equal(failedStatus, 503, 'a write that cannot be made durable is refused');
      const err = await w.req('POST', '/api/memory/save', { text: 'after full', project: 'dmg' });
      assert.equal(err.status, 503);
      assert.match(err.body.error, /read-only|durable/);
      const seen = (await w.req('GET', '/api/observations?project=dmg&limit=1000')).body.items.map((o: { narrative: string }) => o.narrative.split(' ')[1]);
      assert.ok(seen.length >= acked.length, 'reads still work');
      // The write that failed is not in reads (the store reloads what is on disk).
      assert.ok(!seen.includes(String(failedAt)), `the failed write (memory ${failedAt}) is visible in reads`);
      await w.kill('SIGKILL');
      // Free space, restart: every acknowledged write is there.
      execFileSync('mount', ['-o', 'remount,size=64m', mnt]);
      const w2 = await startWorker({ dataDir });
      try {
        const have = new Set((await w2.req('GET', '/api/observations?project=dmg&limit=1000')).body.items.map((o: { narrative: string }) => o.narrative.split(' ')[1]));
        const lost = acked.filter((i) => !have.has(String(i)));
        assert.deepEqual(lost, []);
        assert.ok(!have.has(String(failedAt)), 'the refused write did not come back after restart');
        return `${acked.length} writes acknowledged before ENOSPC, then 503 "${err.body.error.slice(0, 80)}"; the failed write not in reads; after restart all ${acked.length} present and the refused one absent`;
      } finally {
        await w2.stop();
      }
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});

it('a disk that fills while vectors are being stored: the worker stays up, read-only', async () => {
  await faultCase(F, 'damaged files', 'full disk during embedding (600 KB tmpfs)', async () => {
    // Small enough that the embedding indexer's write is often the one refused: its rejected
    // background pass used to end the worker process (an unhandled rejection).
    const mnt = tempDir('cmem-full-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=600k', 'tmpfs', mnt]);
    try {
      // The indexer embeds each batch as it comes (no idle-time gate), so its writes meet the full disk.
      fs.mkdirSync(path.join(mnt, 'data'));
      fs.writeFileSync(path.join(mnt, 'data', 'settings.json'), JSON.stringify({ search: { indexStartDelayMs: 0, indexQuietMs: 0 } }));
      const w = await startWorker({ dataDir: path.join(mnt, 'data'), env: { CLAUDE_MEM_SNAPSHOT_JOURNAL_BYTES: String(1 << 30) } });
      let acked = 0;
      for (let i = 0; i < 5000; i++) {
        const r = await w.req('POST', '/api/memory/save', { text: `memory ${i} ${'x'.repeat(2000)}`, project: 'dmg' }).catch((e: Error) => {
          throw new Error(`${e.message} at write ${i}; the worker said:\n${w.stdout().slice(-3000)}`);
        });
        if (r.status !== 201) break;
        acked++;
      }
      // Give the indexer time to try (and fail) its next batches.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const ready = await w.req('GET', '/api/readiness').catch((e: Error) => {
        throw new Error(`the worker died after the disk filled (${e.message}):\n${w.stdout().slice(-3000)}`);
      });
      assert.equal(ready.status, 200);
      assert.equal((await w.req('GET', '/api/observations?project=dmg&limit=5')).status, 200, 'reads go on');
      await w.kill('SIGKILL');
      return `${acked} writes acknowledged, then refused; the worker kept answering reads`;
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});
