// The journal writer: records land in commit order across bursts, batches and a rotation, each
// promise resolves only after an fdatasync that covers it, and a closed file refuses appends.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { JournalWriter, listSegments, readSegment, segmentName } from '../../worker/store/journal';
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
