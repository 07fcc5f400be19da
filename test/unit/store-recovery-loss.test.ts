// What recovery counts as lost acknowledged data: a crash's torn write is not; damage is.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { nullLogger } from '../../common/node/log';
import { listSegments, segmentName } from '../../worker/store/journal';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

async function open(dir: string): Promise<Store> {
  const s = await Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  if (!s.degraded) await s.write((tx) => tx.run('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  return s;
}

async function fill(dir: string, n: number): Promise<string> {
  const s = await open(dir);
  for (let i = 0; i < n; i++) await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`v${i}`]));
  // no close: as if killed
  return path.join(dir, segmentName(s.journalGen));
}

it('a torn write at the end of the last segment is not a loss, and stays not a loss after the next crash', async () => {
  const dir = tempDir();
  const seg = await fill(dir, 10);
  const whole = fs.readFileSync(seg);
  fs.appendFileSync(seg, whole.subarray(0, 20)); // a header and part of a payload: a write cut short
  const s = await open(dir);
  assert.equal(s.degraded, undefined, String(s.degraded));
  assert.match(s.recovery.problems.join('\n'), /torn or damaged tail/);
  assert.equal(fs.statSync(seg).size, whole.length, 'the torn end was cut off (a copy is in damaged/)');
  assert.equal(fs.readdirSync(path.join(dir, 'damaged')).length, 1);
  // Crash again: the earlier segment is no longer the last, and must not look damaged now.
  const s2 = await open(dir);
  assert.equal(s2.degraded, undefined, String(s2.degraded));
  assert.equal(s2.all('SELECT v FROM t').length, 10);
});

it('a damaged end of a closed segment, or garbage at the end of the last one, is a loss: degraded, read-only', async () => {
  const dir = tempDir();
  const seg = await fill(dir, 10);
  fs.appendFileSync(seg, Buffer.from('this was never a record of ours'));
  const s = await open(dir);
  assert.ok(s.degraded, 'degraded');
  assert.match(s.recovery.lost.join('\n'), /damaged bytes at its end/);
  await assert.rejects(s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['x'])), /degraded/);
  await assert.rejects(s.snapshot(), /degraded/);
  await s.close();
  assert.ok(listSegments(dir).length >= 1);
  assert.ok(fs.existsSync(seg), 'nothing deleted');
});

it('a missing segment is a loss: between the snapshot and the newest, or the snapshot\'s own', async () => {
  for (const which of ['between', 'own'] as const) {
    const dir = tempDir();
    const s = await open(dir);
    await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['a']));
    const first = (await s.snapshot()).gen;
    await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['b']));
    const second = (await s.snapshot()).gen;
    await s.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['c']));
    await s.close(false);
    const away = (f: string) => fs.renameSync(path.join(dir, f), path.join(tempDir(), f));
    if (which === 'between') {
      // The newest snapshot damaged away, and the segment after the older one gone.
      away('snapshot-' + String(second).padStart(10, '0') + '.db');
      away(segmentName(first));
    } else away(segmentName(second));
    const s2 = await open(dir);
    assert.ok(s2.degraded, which);
    assert.match(s2.recovery.lost.join('\n'), /missing/);
    await s2.close();
  }
});
