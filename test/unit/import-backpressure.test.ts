// A chunked import (worker/transfer.ts importChunked) into a store served by the page cache goes no
// faster than checkpoints write what it changes (Store.checkpointBackpressure): the chunks it left
// dirty stay near the writer's bound instead of growing with the import, and every record is stored
// and comes back after a restart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../common/node/log';
import { migrate } from '../../worker/store/schema';
import { Store } from '../../worker/store/store';
import { importChunked, parseImport } from '../../worker/transfer';
import { tempDir } from '../helpers/worker';

const T0 = Date.UTC(2026, 10, 2);
const WORDS = ['cache', 'retry', 'token', 'parser', 'queue', 'render', 'schema', 'socket', 'button', 'deploy', 'journal', 'vector'];

function doc(sessions: number, perSession: number) {
  return {
    format: 'claude-mem-vscode/export',
    version: 1,
    exportedAt: new Date(T0).toISOString(),
    project: null,
    sessions: Array.from({ length: sessions }, (_, s) => ({
      platform: 'claude-code', contentSessionId: `bp-${s}`, project: `p${s % 3}`, cwd: '/src/p', status: 'completed', promptCounter: 1,
      startedAt: T0, updatedAt: T0, completedAt: T0, completionReason: 'exit',
      prompts: [],
      observations: Array.from({ length: perSession }, (_, j) => {
        const k = s * perSession + j;
        const w = (i: number) => WORDS[(k * 7 + i * 5) % WORDS.length];
        return {
          type: 'change', title: `${w(1)} ${w(2)} ${k}`, subtitle: null, narrative: `${w(3)} ${w(4)} word${k} ${'lorem ipsum dolor sit amet '.repeat(12)}`, facts: [`${w(5)} fact ${k}`], concepts: [], filesRead: [], filesModified: [],
          source: 'local', inputTokens: 0, outputTokens: 0, discoveryTokens: 10, toolName: 'Edit', promptNumber: 1, contentHash: `h-${k}`, createdAt: T0 + k * 1000,
        };
      }),
      summaries: [],
    })),
  };
}

describe('import backpressure', () => {
  it('keeps the chunks an import leaves dirty near the bound, and stores every record', async () => {
    const dir = path.join(tempDir('import-bp-'), 'db');
    const bound = 256 << 10;
    // No journal-driven checkpoints (bulkDeltaBytes 0, a huge snapshotJournalBytes): only the import's own backpressure takes them.
    const open = () => Store.open({ dir, log: nullLogger, snapshotJournalBytes: 1 << 40, bulkDeltaBytes: 0, deltaMinBytes: 0, replicaScript: null, pageCacheBytes: 1 << 20, writerDirtyBytes: bound });
    let store = await open();
    await migrate(store);
    await store.close(true);
    store = await open();
      try {
      const imported = await importChunked(store, parseImport(doc(60, 100)));
      assert.equal(imported.observations, 6000);
      const dirtyAfter = store.pageCache?.dirtyBytes ?? NaN;
      // The import waits after each transaction while more than the bound is dirty (without it: 1.1 MB here).
      assert.ok(dirtyAfter <= bound, `dirty after the import: ${dirtyAfter} bytes (bound ${bound})`);
      const files = fs.readdirSync(dir);
      assert.ok(files.filter((n) => /^(delta|snapshot)-\d+\.db$/.test(n)).length >= 2, `checkpoints were taken during the import: ${files.join(' ')}`);
    } finally {
      await store.close(false);
    }
    store = await open();
    try {
      assert.equal(store.get<{ n: number }>('SELECT count(*) AS n FROM observations')?.n, 6000);
      assert.equal(store.get<{ n: number }>("SELECT count(*) AS n FROM observations WHERE narrative LIKE '% word5999 %'")?.n, 1);
    } finally {
      await store.close(false);
    }
  });
});
