// The journal writer: records land in commit order across bursts, batches and a rotation, each
// promise resolves only after an fdatasync that covers it, and a closed file refuses appends.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { JournalWriter, listSegments, readSegment, segmentName, SyncTimes } from '../../worker/store/journal';
import { tempDir } from '../helpers/worker';

const records = (dir: string, gen: number) => readSegment(path.join(dir, segmentName(gen))).records.map((b) => b.toString());

it('keeps commit order over bursts, overlapping syncs and a rotation', async () => {
  const dir = tempDir();
  let durableCalls = 0;
  const j = await JournalWriter.open(dir, 1, { durable: () => (durableCalls += 1) });
  const acks: Promise<void>[] = [];
  let n = 0;
  // Bursts in separate turns, so several writes and fdatasyncs overlap.
  for (let burst = 0; burst < 20; burst++) {
    for (let k = 0; k < 25; k++) acks.push(j.append(Buffer.from(`r${n++}`)));
    if (burst === 9) {
      const rotated = j.rotate();
      // Appended after the rotation was asked for: must land in the new segment.
      acks.push(j.append(Buffer.from(`r${n++}`)));
      assert.equal(await rotated, 2);
    }
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(acks);
  await j.close();
  assert.deepEqual(listSegments(dir), [1, 2]);
  const all = [...records(dir, 1), ...records(dir, 2)];
  assert.deepEqual(all, Array.from({ length: n }, (_, i) => `r${i}`));
  assert.equal(records(dir, 1).length, 250, 'everything queued before the rotation is in the old segment');
  assert.ok(durableCalls >= 1);
  assert.equal(j.segmentBytes, fs.statSync(path.join(dir, segmentName(2))).size);
});

it('writes a burst on the next turn, resolves once it is in the file, and rejects once closed', async () => {
  const dir = tempDir();
  const j = await JournalWriter.open(dir, 7);
  const file = path.join(dir, segmentName(7));
  await j.append(Buffer.from('first'));
  assert.deepEqual(records(dir, 7), ['first']);
  const sizeBefore = fs.statSync(file).size;
  const pending = j.append(Buffer.from('second'));
  assert.equal(fs.statSync(file).size, sizeBefore, 'a burst is written on the next turn, as one write');
  await pending;
  assert.deepEqual(records(dir, 7), ['first', 'second']);
  await j.close();
  await assert.rejects(j.append(Buffer.from('late')), /closed/);
});

it('sync times: percentiles over the most recent syncs, and every sync of a writer is counted', async () => {
  const t = new SyncTimes();
  assert.deepEqual(t.summary(), { count: 0, window: 0, p50Ms: 0, p99Ms: 0, maxMs: 0 });
  for (let i = 100; i >= 1; i--) t.add(i);
  assert.deepEqual(t.summary(), { count: 100, window: 100, p50Ms: 51, p99Ms: 100, maxMs: 100 });
  // Past the window the oldest are forgotten: 10,000 fast syncs push out the slow ones.
  for (let i = 0; i < 10_000; i++) t.add(0.5);
  assert.deepEqual(t.summary(), { count: 10_100, window: 8192, p50Ms: 0.5, p99Ms: 0.5, maxMs: 0.5 });

  const w = await JournalWriter.open(tempDir(), 1);
  await Promise.all(Array.from({ length: 5 }, (_, i) => w.append(Buffer.from(`r${i}`))));
  const s = w.syncTimes.summary();
  assert.ok(s.count >= 1 && s.count <= 5 && s.maxMs >= s.p50Ms, JSON.stringify(s));
  await w.close();
});
