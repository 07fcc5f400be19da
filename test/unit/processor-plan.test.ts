// A burst from many sessions is worked off from a few queue scans: units planned beyond the free
// slots wait in memory instead of a new 500-row scan per finished unit.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LocalCompressor } from '../../worker/compression/compressor';
import { DEFAULT_SETTINGS } from '../../common/node/config';
import { EventBus } from '../../worker/events';
import { nullLogger } from '../../common/node/log';
import { Processor } from '../../worker/queue/processor';
import { observe } from '../../worker/server/routes/observe';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { tempDir } from '../helpers/worker';

it('200 sessions x 2 tool uses: every job compressed, with a handful of queue scans', async () => {
  const store = await Store.open({ dir: tempDir(), log: nullLogger, snapshotJournalBytes: 1 << 30, replicaScript: null });
  await migrate(store);
  const events = new EventBus();
  const processor = new Processor(store, events, nullLogger, new LocalCompressor());
  const deps = { store, events, settings: DEFAULT_SETTINGS, recordCitations: true, onQueued: () => undefined };
  const posts = [];
  for (let s = 0; s < 200; s++) {
    for (let n = 0; n < 2; n++) posts.push(observe(deps, { contentSessionId: `s${s}`, project: 'p', tool_name: 'Read', tool_input: { file_path: `f${s}-${n}.ts` }, tool_response: 'x' }));
  }
  await Promise.all(posts);
  processor.kick();
  const deadline = Date.now() + 60_000;
  while (processor.processed < 400 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await processor.idle();
  const count = (t: string) => Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM ${t}`)?.n);
  assert.equal(count('observations'), 400);
  assert.equal(count('pending_work'), 0);
  // 200 units (one per session), 4 at a time: planning afresh whenever slots free took 51 scans.
  assert.ok(processor.plans <= 20, `${processor.plans} queue scans`);
  await processor.stop();
  await store.close(false);
});
